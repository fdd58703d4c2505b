#!/usr/bin/env bash
# Frames per second of whole pipelines, measured side by side: clfilter
# against identity in its place, and clfilter's zero-copy path against its
# copying one (zero-copy=false).  Each round runs every pipeline once, in
# turn; the table gives each pipeline's median over the rounds.
#
# Usage: tests/bench/pipeline-fps.sh [decode|raw] [ROUNDS] [WIDTHxHEIGHT]
#   decode  filesrc <720p H.264 clip> ! decodebin ! X ! fakesink
#           (the clip of examples/make-clip.sh, 300 frames, made if missing)
#   raw     videotestsrc num-buffers=300 pattern=black ! video/x-raw,
#           format=RGBA,WxH ! X ! fakesink   (default 3840x2160; a black
#           source costs little, and the filters' cost does not depend on
#           the pixels)
# MODE (default laplace) and DEVICE (default auto) pick the filter.
# Needs a build in ./build (or $CLF_BUILD_DIR); run tests/run.sh first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
kind=${1:-decode} rounds=${2:-5} size=${3:-3840x2160}
mode=${MODE:-laplace} device=${DEVICE:-auto}
frames=300
export GST_PLUGIN_PATH="$build/gst"

case "$kind" in
  decode)
    source="filesrc location=$("$root/examples/make-clip.sh") ! decodebin" ;;
  raw)
    source="videotestsrc num-buffers=$frames pattern=black ! video/x-raw,format=RGBA,width=${size%x*},height=${size#*x}" ;;
  *) echo "usage: $0 [decode|raw] [ROUNDS] [WIDTHxHEIGHT]" >&2; exit 2 ;;
esac

names=(identity clfilter "clfilter zero-copy=false")
filters=(identity "clfilter mode=$mode device=$device"
         "clfilter mode=$mode device=$device zero-copy=false")

# Seconds from PLAYING to EOS, as gst-launch reports them.
seconds() {
  gst-launch-1.0 $source ! $1 ! fakesink sync=false 2>&1 \
    | sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' \
    | awk '{ print $1 * 3600 + $2 * 60 + $3 }'
}

declare -A runs
for ((r = 1; r <= rounds; r++)); do
  for i in "${!filters[@]}"; do
    runs[$i]+="$(seconds "${filters[$i]}") "
  done
done

echo "$kind: $source ! X ! fakesink sync=false"
echo "$frames frames, median of $rounds rounds, mode=$mode device=$device"
printf '%-28s %10s %10s\n' X 'frames/s' 'ms/frame'
for i in "${!filters[@]}"; do
  median=$(tr ' ' '\n' <<<"${runs[$i]}" | grep . | sort -n \
           | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  awk -v n="${names[$i]}" -v s="$median" -v f="$frames" \
    'BEGIN { printf "%-28s %10.1f %10.2f\n", n, f / s, 1000 * s / f }'
done
