# Checks on examples' clfilter-demo output, shared by tests/demo-x11.sh and
# tests/demo-headless.sh (sourced).

fail() {                        # fail MESSAGE [LOG]
  echo "${0##*/}: $1" >&2
  [ -z "${2:-}" ] || cat "$2" >&2
  exit 1
}

# check_frames LOG N SETTINGS: N frame lines, each ending in SETTINGS
# ("sliding r=7 clamp"; "laplace clamp", as laplace has no radius).
check_frames() {
  local all matching
  all=$(grep -c '^frame ' "$1" || true)
  matching=$(grep -c "^frame .*  $3\$" "$1" || true)
  [ "$all" -eq "$2" ] && [ "$matching" -eq "$2" ] \
    || fail "expected $2 frame lines ending in '$3', saw $all lines, $matching matching" "$1"
}
