#!/usr/bin/env bash
# Two builds' kernels on the CPU device side by side, alternating, with
# OpenCV's CPU filters and the device's copy floor, in one run: the README's
# table of the CPU kernels.
#
# Usage: tests/bench/cpu-side-by-side.sh NEW_BUILD OLD_BUILD [ROUNDS]
#   NEW_BUILD, OLD_BUILD  build directories that hold tests/clf-bench (the
#                         old one e.g. from `git worktree add` of an earlier
#                         commit, set up and built the same way)
#   ROUNDS                rounds of the two builds in turn (default 2)
# Environment: SIZE (1280x720), RADII (1,7,31,63,64,127,255), FRAMES (100),
#   DEVICE (cpu), PYTHON (/usr/bin/python3, for OpenCV).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
new=$1 old=$2 rounds=${3:-2}
size=${SIZE:-1280x720} radii=${RADII:-1,7,31,63,64,127,255}
device=${DEVICE:-cpu} python=${PYTHON:-/usr/bin/python3}

# One line per case: mode radius median (min) check.
bench() {
  XDG_CACHE_HOME=${XDG_CACHE_HOME:-$1/tests/xdg-cache} "$1/tests/clf-bench" \
    --devices "$device" --modes laplace,sliding --radii "$radii" \
    --sizes "$size" --frames "${FRAMES:-100}" 2>/dev/null \
    | awk -F'\t' 'NR > 1 { printf "%s r=%s %s (min %s) %s\n", $2, $3, $5, $6, $9 }'
}

for ((round = 1; round <= rounds; round++)); do
  for build in "$new" "$old"; do
    echo "== $build, round $round"
    bench "$build"
  done
done
echo "== OpenCV, CPU"
if "$python" -c 'import cv2' 2>/dev/null; then
  "$python" "$root/tests/bench/opencv-bench.py" --backends cpu --sizes "$size" \
    --radii "${radii//,64/}" --reps 60 | cut -f3,5,6
else
  echo "(no OpenCV for $python: apt-get install python3-opencv)"
fi
echo "== floor"
"$new/tests/clf-floor" --device "$device" --size "$size" | cut -f3-5
