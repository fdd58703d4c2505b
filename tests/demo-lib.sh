# Checks on examples' clfilter-demo output, shared by tests/demo-x11.sh and
# tests/demo-headless.sh (sourced).

fail() {                        # fail MESSAGE [LOG]
  echo "${0##*/}: $1" >&2
  [ -z "${2:-}" ] || cat "$2" >&2
  exit 1
}

# check_settings LOG SETTINGS: frame lines, each ending in SETTINGS
# ("sliding r=7 clamp"; "laplace clamp", as laplace has no radius).
check_settings() {
  local all matching
  all=$(grep -c '^frame ' "$1" || true)
  matching=$(grep -c "^frame .*  $2\$" "$1" || true)
  [ "$all" -gt 0 ] && [ "$matching" -eq "$all" ] \
    || fail "expected frame lines ending in '$2', saw $all lines, $matching matching" "$1"
}

# check_frames LOG N SETTINGS: N frame lines, each ending in SETTINGS.  Only
# where nothing drops frames (headless: the sink does not sync).
check_frames() {
  local all matching
  all=$(grep -c '^frame ' "$1" || true)
  matching=$(grep -c "^frame .*  $3\$" "$1" || true)
  [ "$all" -eq "$2" ] && [ "$matching" -eq "$2" ] \
    || fail "expected $2 frame lines ending in '$3', saw $all lines, $matching matching" "$1"
}

# check_account LOG [N]: every frame that reached the filter is accounted
# for, as the demo counts them from the pipeline: filtered (out of the
# filter), or dropped there as late by QoS; every frame filtered has its
# frame line, and the filter's clfilter-summary counted the same frames.
# With N (--frames N), exactly N frames reached the filter.  How many were
# dropped is the machine's business (a busy one drops more), so no test
# asks for a number of them.
check_account() {
  local lines
  lines=$(grep -c '^frame ' "$1" || true)
  awk -v lines="$lines" -v want="${2:-}" '
    /^summary: [0-9]+ frames on / { summary = $2 + 0 }
    /^no frames were filtered$/ { summary = 0 }
    /^  frames: / {
      seen = 1; into = $2 + 0; out = $6 + 0; late = $8 + 0; printed = $12 + 0
    }
    END {
      if (!seen) { print "no frames line in the summary"; exit 1 }
      if (want != "" && into != want) {
        printf "%d frames reached the filter, not %d\n", into, want; exit 1
      }
      if (out + late != into) {
        printf "%d frames in, but %d out and %d dropped as late\n", into, out, late
        exit 1
      }
      if (printed != out || lines != out || summary != out) {
        printf "%d frames out of the filter, but %d frame lines counted, " \
          "%d printed, %d in clfilter-summary\n", out, printed, lines, summary
        exit 1
      }
    }' "$1" >&2 || fail "the frames do not add up" "$1"
}

# check_verdict LOG: the headless summary's verdict agrees with its rate:
# within 5% of the movie's rate is real time.  The rate is printed to 0.1
# frames/s, so either verdict passes where that rounding straddles a bound.
check_verdict() {
  awk '
    function verdict_at(fps) {
      return fps < 0.95 * movie ? "SLOWER than real time" : \
        fps <= 1.05 * movie ? "real time" : "faster than real time"
    }
    /^  end to end: / {
      fps = $4 + 0
      verdict = $0; sub(/^[^:]*: [^:]*: /, "", verdict); sub(/ \(.*/, "", verdict)
      movie = $0; sub(/.*\(/, "", movie); movie += 0
      seen = 1
      if (verdict != verdict_at(fps - 0.06) && verdict != verdict_at(fps + 0.06)) {
        printf "%s frames/s for a %s frames/s movie: \"%s\", not \"%s\"\n", \
          fps, movie, verdict, verdict_at(fps)
        exit 1
      }
    }
    END { if (!seen) { print "no end-to-end line"; exit 1 } }' "$1" >&2 \
    || fail "the summary's real-time verdict is wrong" "$1"
}
