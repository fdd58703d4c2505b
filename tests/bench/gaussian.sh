#!/usr/bin/env bash
# mode=gaussian and mode=unsharp: kernel times at each sigma on RGBA
# frames of snow, next to the sliding blur at r=7 (the element's own
# measure of a blur), OpenCV's cv2.GaussianBlur(ksize=(0, 0), sigma) on
# the same frame in the same run where cv2 is importable (on the CPU, or
# with OCL=1 through its OpenCL T-API on the device OPENCV_OPENCL_DEVICE
# names), and FFmpeg's gblur and unsharp (CPU; unsharp's matrix about 6
# sigma wide, at most 13x13) where ffmpeg is installed.
# Prints one line a sigma: clfilter's median kernel time for gaussian
# and unsharp (clfilter-summary's median-kernel-ns over FRAMES frames of
# one frame of snow), their ratios to each other and to sliding r=7,
# OpenCV's median call and its ratio to gaussian, and FFmpeg's ms a frame
# (a run of FF_FRAMES frames with the filter less one without it, from
# ffmpeg -benchmark's rtime: the whole filter, threads included).
#
# Usage: tests/bench/gaussian.sh       (after ninja -C build)
# Environment: FRAMES=60, SIZE=1280x720, SIGMAS="0.5 2 5 10 25 50 100",
#   DEVICE=auto (clfilter's device=), CV_REPS=20, OCL=0, FF_FRAMES=20,
#   CLF_BUILD_DIR (default ./build), PYTHON (default /usr/bin/python3).
# On a GPU: DEVICE=gpu SIZE=3840x2160 OCL=1 OPENCV_OPENCL_DEVICE=:GPU:
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
python=${PYTHON:-/usr/bin/python3}
frames=${FRAMES:-60}
size=${SIZE:-1280x720}
width=${size%x*} height=${size#*x}
export GST_PLUGIN_PATH=$build/gst

. "$root/tests/bench/clfilter-ms.sh"

# OpenCV's median cv2.GaussianBlur call (ms) at sigma $1, or "-".
opencv_ms() {
  "$python" - "$1" "${CV_REPS:-20}" "$width" "$height" "${OCL:-0}" \
    <<'PY' 2>/dev/null || echo -
import statistics, sys, time
import cv2, numpy as np
sigma, reps = float(sys.argv[1]), int(sys.argv[2])
w, h, ocl = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
img = np.random.default_rng(1).integers(0, 256, (h, w, 4), np.uint8)
cv2.ocl.setUseOpenCL(ocl)
if ocl:
    assert cv2.ocl.useOpenCL()
    img = cv2.UMat(img)
times = []
for i in range(reps + 2):
    t = time.perf_counter()
    out = cv2.GaussianBlur(img, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    if ocl:
        cv2.ocl.finish()
    times.append(time.perf_counter() - t)
print("%.2f" % (statistics.median(times[2:]) * 1e3))
PY
}

# ffmpeg -benchmark's rtime (s) of FF_FRAMES frames through filter $1
# (none: "null") from lavfi's testsrc2 as RGBA.
ffmpeg_seconds() {
  ffmpeg -hide_banner -nostats -benchmark -f lavfi \
    -i "testsrc2=size=${width}x$height:rate=30,format=rgba" \
    -frames:v "${FF_FRAMES:-20}" -vf "$1" -f null - 2>&1 \
    | sed -n 's/^bench: utime=.* rtime=\([0-9.]*\)s$/\1/p'
}

# FFmpeg's ms a frame through filter $1, or "-".
ffmpeg_ms() {
  command -v ffmpeg >/dev/null || { echo -; return; }
  local base with
  base=$(ffmpeg_seconds null)
  with=$(ffmpeg_seconds "$1")
  [ -n "$base" ] && [ -n "$with" ] || { echo -; return; }
  awk -v a="$base" -v b="$with" -v n="${FF_FRAMES:-20}" \
    'BEGIN { printf "%.2f", (b - a) / n * 1e3 }'
}

ratio() {
  case "$1$2" in *-*) echo - ;;
    *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' ;; esac
}

sliding=$(clfilter_ms "mode=sliding radius=7")
echo "device=${DEVICE:-auto} size=$size frames=$frames; sliding r=7: $sliding ms"
printf '%7s %11s %10s %9s %10s %10s %9s %9s %10s\n' sigma gaussian-ms \
  unsharp-ms unsh/gau gau/slide opencv-ms cv/gau ff-gblur ff-unsharp
for sigma in ${SIGMAS:-0.5 2 5 10 25 50 100}; do
  gau=$(clfilter_ms "mode=gaussian sigma=$sigma")
  uns=$(clfilter_ms "mode=unsharp sigma=$sigma amount=1")
  cv=$(opencv_ms "$sigma")
  # unsharp's matrix: odd, about 6 sigma wide, 3 to 13 (FFmpeg refuses
  # larger square matrices as "too big").
  msize=$(awk -v s="$sigma" 'BEGIN { m = int(3 * s) * 2 + 1;
    if (m < 3) m = 3; if (m > 13) m = 13; print m }')
  printf '%7s %11s %10s %9s %10s %10s %9s %9s %10s\n' "$sigma" "$gau" "$uns" \
    "$(ratio "$uns" "$gau")" "$(ratio "$gau" "$sliding")" "$cv" \
    "$(ratio "$cv" "$gau")" "$(ffmpeg_ms "gblur=sigma=$sigma")" \
    "$(ffmpeg_ms "unsharp=$msize:$msize:1:$msize:$msize:0")"
done
"$python" -c 'import cv2' 2>/dev/null \
  || echo "(OpenCV's python, cv2, is not installed: no OpenCV column)"
command -v ffmpeg >/dev/null \
  || echo "(ffmpeg is not installed: no FFmpeg columns; apt-get install ffmpeg)"
