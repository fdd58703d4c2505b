#!/usr/bin/env bash
# Median kernel time per frame of each mode, measured with the element:
#   videotestsrc pattern=snow ! RGBA WxH ! clfilter ! fakesink
# reading kernel-ns from every clfilter-stats message (the first frames,
# which include program set-up and warm-up, are left out).
# Usage: tests/bench/element-kernel-times.sh [WIDTHxHEIGHT] [FRAMES] [DEVICE]
# Needs a build in ./build (or $CLF_BUILD_DIR); run tests/run.sh first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
size=${1:-1280x720} frames=${2:-60} device=${3:-auto}
warmup=5
export GST_PLUGIN_PATH="$build/gst"

median_ms() {
  grep -o 'kernel-ns=(guint64)[0-9]*' | cut -d')' -f2 | tail -n +$((warmup + 1)) \
    | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] / 1e6 }'
}

printf '%s RGBA, %s frames (median of the last %s), device=%s\n' \
  "$size" "$frames" "$((frames - warmup))" "$device"
printf '%-10s %6s %12s\n' mode radius 'kernel ms'
for run in "box 7" "separable 7" "sliding 7" "laplace 7" \
           "sliding 1" "sliding 31" "sliding 255"; do
  set -- $run
  ms=$(gst-launch-1.0 -m videotestsrc num-buffers="$frames" pattern=snow \
         ! "video/x-raw,format=RGBA,width=${size%x*},height=${size#*x}" \
         ! clfilter mode="$1" radius="$2" device="$device" ! fakesink 2>&1 \
       | median_ms)
  printf '%-10s %6s %12s\n' "$1" "$2" "$ms"
done
