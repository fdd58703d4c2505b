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

# check_verdict LOG synced|unsynced: the summary's verdict agrees with its
# rate: within 5% of the movie's rate is real time, and a run synced to the
# clock is never faster than real time.  The rate is printed to 0.1 frames/s,
# so either verdict passes where that rounding straddles a bound.
check_verdict() {
  awk -v synced="$2" '
    function verdict_at(fps) {
      return fps < 0.95 * movie ? "SLOWER than real time" : \
        synced == "synced" || fps <= 1.05 * movie ? "real time" : \
        "faster than real time"
    }
    /^  end to end: / {
      fps = $4 + 0
      verdict = $0; sub(/^[^:]*: [^:]*: /, "", verdict); sub(/ \(.*/, "", verdict)
      movie = $0; sub(/.*\(/, "", movie); movie += 0
      seen = 1
      if (verdict != verdict_at(fps - 0.06) && verdict != verdict_at(fps + 0.06)) {
        printf "%s frames/s for a %s frames/s movie (%s): \"%s\", not \"%s\"\n", \
          fps, movie, synced, verdict, verdict_at(fps)
        exit 1
      }
    }
    END { if (!seen) { print "no end-to-end line"; exit 1 } }' "$1" >&2 \
    || fail "the summary's real-time verdict is wrong" "$1"
}
