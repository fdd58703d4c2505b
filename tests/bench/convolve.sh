#!/usr/bin/env bash
# mode=convolve's kernel times on RGBA frames, 7x7 (the seed's motion
# blur, and a dense random kernel) and 15x15 (a random kernel), with
# OpenCV's cv2.filter2D on the same kernel in the same run where cv2 is
# importable (on the CPU, or with OCL=1 through its OpenCL T-API, on the
# device OPENCV_OPENCL_DEVICE names), FFmpeg's convolution filter (CPU, planar GBRAP frames) and
# convolution_opencl (its first OpenCL device) where ffmpeg is installed
# (both take kernels up to 7x7 only), and the device's copy floor
# (clf-floor).  Prints one line a case: what, clfilter's median kernel
# time (clfilter-summary's median-kernel-ns over FRAMES frames of one
# frame of snow, on the element's device), OpenCV's median call time and their ratio, and
# FFmpeg's time a frame: a run of FF_FRAMES frames with the filter less one
# without it (for convolution_opencl, both with hwupload and hwdownload),
# from ffmpeg -benchmark's rtime, so a whole filter's time, threads and
# (OpenCL) its program's build included.
#
# Usage: tests/bench/convolve.sh       (after ninja -C build)
# Environment: FRAMES=60, SIZE=1280x720, DEVICE=auto (clfilter's device=),
#   CV_REPS=30, OCL=0, FF_FRAMES=30, CLF_BUILD_DIR (default ./build), PYTHON
#   (default /usr/bin/python3).
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
# A dense kernel of K*K random integers in -8..8 (none zero).
dense() {
  awk -v n="$1" 'BEGIN { srand(n); for (i = 0; i < n * n; i++) { do v = int(rand() * 17) - 8; while (v == 0); printf "%s%d", i ? "," : "", v } }'
}
big=$(awk 'BEGIN { srand(15); for (i = 0; i < 225; i++) printf "%s%d", i ? "," : "", int(rand() * 17) - 8 }')

# clfilter's median kernel time (ms) for a kernel.
. "$root/tests/bench/clfilter-ms.sh"
convolve_ms() {
  clfilter_ms "mode=convolve kernel=<$1> divisor=0"
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

# ffmpeg -benchmark's rtime (s) of FF_FRAMES frames through filter $2
# (none: "null") from lavfi's testsrc2 in pixel format $1.
ffmpeg_seconds() {
  ffmpeg -hide_banner -nostats -benchmark ${3:+-init_hw_device opencl=ocl \
    -filter_hw_device ocl} -f lavfi \
    -i "testsrc2=size=${width}x$height:rate=30,format=$1" \
    -frames:v "${FF_FRAMES:-30}" -vf "$2" -f null - 2>&1 \
    | sed -n 's/^bench: utime=.* rtime=\([0-9.]*\)s$/\1/p'
}

# FFmpeg's ms a frame for a kernel (CPU, or OpenCL with $2 set), or "-"
# (no ffmpeg, a kernel over 7x7, or the filter failed).
ffmpeg_ms() {
  local n m rdiv base with
  n=$(tr ',' '\n' <<<"$1" | wc -l)
  command -v ffmpeg >/dev/null && [ "$n" -le 49 ] || { echo -; return; }
  m=$(tr ',' ' ' <<<"$1")
  rdiv=$(tr ',' '\n' <<<"$1" | awk '{ s += $1 } END { printf "%.10f", 1 / (s ? (s < 0 ? -s : s) : 1) }')
  local planes="0m='$m':1m='$m':2m='$m':0rdiv=$rdiv:1rdiv=$rdiv:2rdiv=$rdiv"
  if [ -n "${2:-}" ]; then
    base=$(ffmpeg_seconds rgba "hwupload,hwdownload,format=rgba" ocl)
    with=$(ffmpeg_seconds rgba \
      "hwupload,convolution_opencl=$planes,hwdownload,format=rgba" ocl)
  else
    base=$(ffmpeg_seconds gbrap null)
    with=$(ffmpeg_seconds gbrap "convolution=$planes")
  fi
  [ -n "$base" ] && [ -n "$with" ] || { echo -; return; }
  awk -v a="$base" -v b="$with" -v n="${FF_FRAMES:-30}" \
    'BEGIN { printf "%.2f", (b - a) / n * 1e3 }'
}

printf '%-28s %12s %12s %8s %12s %14s\n' case clfilter-ms opencv-ms ratio \
  ffmpeg-ms ffmpeg-ocl-ms
for name in "7x7 motion blur:$motion" "7x7 random dense:$(dense 7)" \
  "15x15 random:$big"; do
  what=${name%%:*} kernel=${name#*:}
  clf=$(convolve_ms "$kernel")
  cv=$(opencv_ms "$kernel")
  ratio=-
  [ "$cv" = - ] || ratio=$(awk -v a="$clf" -v b="$cv" 'BEGIN { printf "%.2f", b / a }')
  printf '%-28s %12s %12s %8s %12s %14s\n' "$what" "$clf" "$cv" "$ratio" \
    "$(ffmpeg_ms "$kernel")" "$(ffmpeg_ms "$kernel" ocl)"
done
"$python" -c 'import cv2' 2>/dev/null \
  || echo "(OpenCV's python, cv2, is not installed: no OpenCV column)"
command -v ffmpeg >/dev/null \
  || echo "(ffmpeg is not installed: no FFmpeg columns; apt-get install ffmpeg)"
echo "copy floor (clf-floor, the frame's copy on the device):"
XDG_CACHE_HOME=${XDG_CACHE_HOME:-$build/tests/xdg-cache} \
  "$build/tests/clf-floor" --device "${DEVICE:-auto}" --size "$size" \
  --reps 30 2>/dev/null \
  | awk -F'\t' '$3 == "copy" { printf "  %s: median %.4f ms, min %.4f ms\n", $2, $4 / 1000, $5 / 1000 }'
