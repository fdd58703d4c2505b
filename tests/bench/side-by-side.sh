#!/usr/bin/env bash
# Two builds' kernels on one device side by side, alternating, with
# OpenCV's filters on that device and its copy floor, in one run: the
# tables of the CPU kernels (the defaults) and of the GPU kernels in
# docs/performance/history.md (DEVICE=gpu).
#
# Usage: tests/bench/side-by-side.sh NEW_BUILD OLD_BUILD [ROUNDS]
#   NEW_BUILD, OLD_BUILD  build directories that hold tests/clf-bench (the
#                         old one e.g. from `git worktree add` of an earlier
#                         commit, set up and built the same way)
#   ROUNDS                rounds of the two builds in turn (default 2)
# Environment: DEVICE (cpu; gpu takes OpenCV's OpenCL on the first GPU),
#   SIZES (1280x720), RADII (1,7,31,63,64,127,255), MODES (laplace,sliding),
#   FORMATS (rgba), FRAMES (100), CHECK_PIXELS (clf-bench's default),
#   PYTHON (/usr/bin/python3, for OpenCV).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 2 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
new=$1 old=$2 rounds=${3:-2}
sizes=${SIZES:-1280x720} radii=${RADII:-1,7,31,63,64,127,255}
device=${DEVICE:-cpu} python=${PYTHON:-/usr/bin/python3}
check=()
[ -z "${CHECK_PIXELS:-}" ] || check=(--check-pixels "$CHECK_PIXELS")

# One line per case: mode radius size format median (min) check.
bench() {
  XDG_CACHE_HOME=${XDG_CACHE_HOME:-$1/tests/xdg-cache} "$1/tests/clf-bench" \
    --devices "$device" --modes "${MODES:-laplace,sliding}" \
    --radii "$radii" --sizes "$sizes" --formats "${FORMATS:-rgba}" \
    --frames "${FRAMES:-100}" "${check[@]}" 2>/dev/null \
    | awk -F'\t' 'NR > 1 { printf "%s r=%s %s %s %s (min %s) %s\n",
        $2, $3, $4, $10, $5, $6, $9 }'
}

for ((round = 1; round <= rounds; round++)); do
  for build in "$new" "$old"; do
    echo "== $build, round $round"
    bench "$build"
  done
done
backend=cpu
[ "$device" = cpu ] || backend=opencl
echo "== OpenCV, $backend"
if "$python" -c 'import cv2' 2>/dev/null; then
  OPENCV_OPENCL_DEVICE=${OPENCV_OPENCL_DEVICE:-:GPU:} "$python" \
    "$root/tests/bench/opencv-bench.py" --backends "$backend" \
    --sizes "$sizes" --radii "${radii//,64/}" --reps 60 | cut -f3-6
else
  echo "(no OpenCV for $python: apt-get install python3-opencv)"
fi
echo "== floor"
for size in ${sizes//,/ }; do
  "$new/tests/clf-floor" --device "$device" --size "$size" | cut -f2-5
done
