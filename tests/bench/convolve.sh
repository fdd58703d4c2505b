#!/usr/bin/env bash
# mode=convolve's kernel times on RGBA frames, 7x7 (the seed's motion
# blur) and 15x15 (a random kernel), with OpenCV's cv2.filter2D on the
# same kernel in the same run where cv2 is importable (on the CPU, or with
# OCL=1 through its OpenCL T-API, on the device OPENCV_OPENCL_DEVICE
# names), and the device's copy floor (clf-floor).  Prints one line a
# case: what, clfilter's median kernel time (clfilter-summary's
# median-kernel-ns over FRAMES frames, on the element's device), OpenCV's
# median call time and their ratio.
#
# Usage: tests/bench/convolve.sh       (after ninja -C build)
# Environment: FRAMES=60, SIZE=1280x720, DEVICE=auto (clfilter's device=),
#   CV_REPS=30, OCL=0, CLF_BUILD_DIR (default ./build), PYTHON (default
#   /usr/bin/python3).
# On a GPU: DEVICE=gpu SIZE=3840x2160 OCL=1 OPENCV_OPENCL_DEVICE=:GPU:
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
python=${PYTHON:-/usr/bin/python3}
frames=${FRAMES:-60}
size=${SIZE:-1280x720}
width=${size%x*} height=${size#*x}
export GST_PLUGIN_PATH=$build/gst

motion="0,0,0,0,0,145,0,0,0,0,0,376,1283,145,0,0,0,376,1283,376,0,0,376,1283,376,0,0,0,145,1283,376,0,0,0,0,0,145,0,0,0,0,0,0,0,0,0,0,0,0"
big=$(awk 'BEGIN { srand(15); for (i = 0; i < 225; i++) printf "%s%d", i ? "," : "", int(rand() * 17) - 8 }')

# clfilter's median kernel time (ms) for a kernel.
clfilter_ms() {
  gst-launch-1.0 -m videotestsrc num-buffers="$frames" pattern=snow \
    ! video/x-raw,format=RGBA,width="$width",height="$height" \
    ! clfilter mode=convolve device="${DEVICE:-auto}" kernel="<$1>" \
      divisor=0 stats-interval=0 ! fakesink 2>&1 \
    | sed -n 's/.*clfilter-summary.*median-kernel-ns=(guint64)\([0-9]*\).*/\1/p' \
    | awk '{ printf "%.2f", $1 / 1e6 }'
}

# OpenCV's median cv2.filter2D call (ms), same kernel, or "-".
opencv_ms() {
  "$python" - "$1" "${CV_REPS:-30}" "$width" "$height" "${OCL:-0}" \
    <<'PY' 2>/dev/null || echo -
import statistics, sys, time
import cv2, numpy as np
k = np.array([int(c) for c in sys.argv[1].split(",")], np.float32)
n = int(round(len(k) ** 0.5))
k = (k / max(abs(k.sum()), 1)).reshape(n, n)
w, h, ocl = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
img = np.random.default_rng(1).integers(0, 256, (h, w, 4), np.uint8)
cv2.ocl.setUseOpenCL(ocl)
if ocl:
    assert cv2.ocl.useOpenCL()
    img = cv2.UMat(img)
times = []
for i in range(int(sys.argv[2]) + 2):
    t = time.perf_counter()
    out = cv2.filter2D(img, -1, k, borderType=cv2.BORDER_REPLICATE)
    if ocl:
        cv2.ocl.finish()
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
echo "copy floor (clf-floor, the frame's copy on the device):"
XDG_CACHE_HOME=${XDG_CACHE_HOME:-$build/tests/xdg-cache} \
  "$build/tests/clf-floor" --device "${DEVICE:-auto}" --size "$size" \
  --reps 30 2>/dev/null \
  | awk -F'\t' '$3 == "copy" { printf "  %s: median %.4f ms, min %.4f ms\n", $2, $4 / 1000, $5 / 1000 }'
