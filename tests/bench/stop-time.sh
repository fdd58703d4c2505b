#!/usr/bin/env bash
# How long a stop waits for a long mode=convolve frame: a pipeline of one
# frame of snow repeated (imagefreeze) through clfilter mode=convolve with
# a 15x15 kernel (225 random integers in -8..8, tests/bench/convolve.sh's),
# sent SIGINT some seconds in, and the seconds from the signal until
# gst-launch-1.0 has set the pipeline to NULL and exited.  The signal comes
# at DELAY seconds plus a step each run, so that it lands at different
# points of a frame.  Prints one line a size: the frame's median kernel
# time (clfilter-summary's median over the frames before the stop, from a
# run to EOS of FRAMES frames) and each run's stop time.
#
# Usage: tests/bench/stop-time.sh [WxH ...]   (after ninja -C build)
#   default sizes: 3840x2160 7680x4320
# Environment: FORMAT=RGBA64_LE, RUNS=5, DELAY (s; default 2 + 2 frames),
#   STEP (s; default a fifth of a frame), FRAMES=3, DEVICE=auto,
#   CLF_BUILD_DIR (default ./build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
export GST_PLUGIN_PATH=$build/gst GST_REGISTRY=$build/stop-time-registry.bin
format=${FORMAT:-RGBA64_LE}
runs=${RUNS:-5}
big=$(awk 'BEGIN { srand(15); for (i = 0; i < 225; i++) printf "%s%d", i ? "," : "", int(rand() * 17) - 8 }')
[ $# -gt 0 ] || set -- 3840x2160 7680x4320

pipeline() {
  echo videotestsrc num-buffers=1 pattern=snow \
    ! "video/x-raw,format=$format,width=$1,height=$2" \
    ! imagefreeze num-buffers="$3" \
    ! clfilter mode=convolve device="${DEVICE:-auto}" "kernel=<$big>" \
      divisor=0 stats-interval=0 ! fakesink sync=false
}

for size in "$@"; do
  width=${size%x*} height=${size#*x}
  # The frame's kernel time, from a run to EOS.
  # shellcheck disable=SC2046
  frame_s=$(gst-launch-1.0 -m $(pipeline "$width" "$height" "${FRAMES:-3}") 2>&1 \
    | sed -n 's/.*clfilter-summary.*median-kernel-ns=(guint64)\([0-9]*\).*/\1/p' \
    | awk '{ printf "%.2f", $1 / 1e9 }')
  delay=${DELAY:-$(awk -v f="$frame_s" 'BEGIN { printf "%.2f", 2 + 2 * f }')}
  step=${STEP:-$(awk -v f="$frame_s" 'BEGIN { printf "%.2f", f / 5 }')}
  stops=()
  for ((run = 0; run < runs; run++)); do
    # shellcheck disable=SC2046
    gst-launch-1.0 $(pipeline "$width" "$height" 1000000) >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v d="$delay" -v s="$step" -v r="$run" 'BEGIN { print d + r * s }')"
    start=$(date +%s.%N)
    kill -INT "$pid"
    wait "$pid" || true
    stops+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')")
  done
  echo "$format ${width}x$height 15x15: ${frame_s} s a frame; stop after SIGINT (s): ${stops[*]}"
done
