#!/usr/bin/env bash
# 16-bit formats against their 8-bit siblings of the same size, side by
# side: clf-bench runs each pair in turn, ROUNDS times, and the table gives
# each case's median kernel time over the rounds and the ratio deep / 8-bit
# (the bytes double: about 2 is the most a ratio should be).
#
# Usage: tests/bench/deep-vs-8bit.sh [clf-bench options]
#   e.g. --devices 0:0 --sizes 1920x1080 --radii 1,7,31,140 --frames 20
# Environment: CLF_BUILD_DIR (default ./build), ROUNDS (default 3),
#   PAIRS (default "gray8:gray16 i420:i420-10 i420:p010 rgba:rgba64").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench=${CLF_BUILD_DIR:-$root/build}/tests/clf-bench
rounds=${ROUNDS:-3}
pairs=${PAIRS:-gray8:gray16 i420:i420-10 i420:p010 rgba:rgba64}
[ -x "$bench" ] || { echo "no $bench: build first (meson setup build && ninja -C build)" >&2; exit 2; }
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for ((round = 1; round <= rounds; round++)); do
  for pair in $pairs; do
    for format in ${pair%%:*} ${pair##*:}; do
      "$bench" --formats "$format" --budget-ms 1500 "$@" 2>/dev/null \
        | awk -v p="$pair" 'NR > 1 { print p "\t" $0 }' >> "$raw"
    done
  done
done
# pair device mode radius size median min frames fps check format
awk -F'\t' '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  $11 != "skipped" && $6 != "-" {
    key = $1 SUBSEP $3 SUBSEP $4 SUBSEP $5
    deep = $1; sub(/^[^:]*:/, "", deep)
    times[key, $11 == deep] = times[key, $11 == deep] " " $6
    if ($10 == "MISMATCH") bad = 1
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  }
  END {
    printf "%-16s %-10s %6s %-10s %10s %10s %6s\n", "pair", "mode", "radius", "size", "8-bit ms", "deep ms", "ratio"
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (times[k, 0] == "" || times[k, 1] == "") continue
      split(k, f, SUBSEP)
      a = median(times[k, 0]); b = median(times[k, 1])
      printf "%-16s %-10s %6s %-10s %10.4f %10.4f %6.2f\n", f[1], f[2], f[3], f[4], a, b, b / a
    }
    if (bad) { print "a case MISMATCHED the reference"; exit 1 }
  }' "$raw"
