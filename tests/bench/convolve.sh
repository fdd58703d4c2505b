#!/usr/bin/env bash
# mode=convolve's kernel times at 1280x720 RGBA, 7x7 (the seed's motion
# blur) and 15x15 (a random kernel), with OpenCV's CPU cv2.filter2D on the
# same kernel in the same run where cv2 is importable.  Prints one line a
# case: what, clfilter's median kernel time (clfilter-summary's
# median-kernel-ns over FRAMES frames, on the element's device), OpenCV's
# median call time and their ratio.
#
# Usage: tests/bench/convolve.sh       (after ninja -C build)
# Environment: FRAMES=60, DEVICE=auto (clfilter's device=), CV_REPS=30,
#   CLF_BUILD_DIR (default ./build), PYTHON (default /usr/bin/python3).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
python=${PYTHON:-/usr/bin/python3}
frames=${FRAMES:-60}
export GST_PLUGIN_PATH=$build/gst

motion="0,0,0,0,0,145,0,0,0,0,0,376,1283,145,0,0,0,376,1283,376,0,0,376,1283,376,0,0,0,145,1283,376,0,0,0,0,0,145,0,0,0,0,0,0,0,0,0,0,0,0"
big=$(awk 'BEGIN { srand(15); for (i = 0; i < 225; i++) printf "%s%d", i ? "," : "", int(rand() * 17) - 8 }')

# clfilter's median kernel time (ms) for a kernel.
clfilter_ms() {
  gst-launch-1.0 -m videotestsrc num-buffers="$frames" pattern=snow \
    ! video/x-raw,format=RGBA,width=1280,height=720 \
    ! clfilter mode=convolve device="${DEVICE:-auto}" kernel="<$1>" \
      divisor=0 stats-interval=0 ! fakesink 2>&1 \
    | sed -n 's/.*clfilter-summary.*median-kernel-ns=(guint64)\([0-9]*\).*/\1/p' \
    | awk '{ printf "%.2f", $1 / 1e6 }'
}

# OpenCV's median cv2.filter2D call (ms) on the CPU, same kernel, or "-".
opencv_ms() {
  "$python" - "$1" "${CV_REPS:-30}" <<'PY' 2>/dev/null || echo -
import statistics, sys, time
import cv2, numpy as np
k = np.array([int(c) for c in sys.argv[1].split(",")], np.float32)
n = int(round(len(k) ** 0.5))
k = (k / max(abs(k.sum()), 1)).reshape(n, n)
img = np.random.default_rng(1).integers(0, 256, (720, 1280, 4), np.uint8)
times = []
for i in range(int(sys.argv[2]) + 2):
    t = time.perf_counter()
    cv2.filter2D(img, -1, k, borderType=cv2.BORDER_REPLICATE)
    times.append(time.perf_counter() - t)
print("%.2f" % (statistics.median(times[2:]) * 1e3))
PY
}

printf '%-28s %12s %12s %8s\n' case clfilter-ms opencv-ms ratio
for name in "7x7 motion blur:$motion" "15x15 random:$big"; do
  what=${name%%:*} kernel=${name#*:}
  clf=$(clfilter_ms "$kernel")
  cv=$(opencv_ms "$kernel")
  ratio=-
  [ "$cv" = - ] || ratio=$(awk -v a="$clf" -v b="$cv" 'BEGIN { printf "%.2f", b / a }')
  printf '%-28s %12s %12s %8s\n' "$what" "$clf" "$cv" "$ratio"
done
"$python" -c 'import cv2' 2>/dev/null \
  || echo "(OpenCV's python, cv2, is not installed: no OpenCV column)"
