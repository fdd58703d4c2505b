#!/usr/bin/env bash
# What converting on the device costs and gains (docs/conversion.md), side
# by side in one run, ROUNDS rounds taking turns:
#  1. kernel time: the median kernel-ns of clfilter (laplace, sliding r=7)
#     on a frame of I420 snow, repeated, written as I420 against written
#     as BGRx;
#  2. whole pipelines: a decoded I420 frame repeated by imagefreeze (no
#     decoder sets the pace) into a BGRx fakesink, through `clfilter`
#     converting against `clfilter ! videoconvert`, frames per second
#     (wall time of PIPELINE_FRAMES frames, the pipeline's start left out
#     by timing a run of 1 frame too).
# Usage: tests/bench/convert.sh [WIDTHxHEIGHT...]   (default 1280x720
#   3840x2160) DEVICE (auto), FRAMES (60), ROUNDS (3), PIPELINE_FRAMES
#   (10 x FRAMES: enough that the start's noise is small).
# Needs a build in ./build (or $CLF_BUILD_DIR); run tests/run.sh first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
device=${DEVICE:-auto} frames=${FRAMES:-60} rounds=${ROUNDS:-3}
pframes=${PIPELINE_FRAMES:-$((10 * frames))}
sizes=("${@:-1280x720}")
[ $# -gt 0 ] || sizes=(1280x720 3840x2160)
warmup=5
export GST_PLUGIN_PATH="$build/gst"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() {
  sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}

kernel_ms() {  # MODE RADIUS SIZE OUT_FORMAT
  # One frame of snow, repeated: making snow takes a core, which would
  # slow the CPU drivers' kernels by turns.
  gst-launch-1.0 -m videotestsrc num-buffers=1 pattern=snow \
      ! "video/x-raw,format=I420,width=${3%x*},height=${3#*x}" \
      ! imagefreeze num-buffers="$frames" ! clfilter device="$device" mode="$1" radius="$2" \
      ! "video/x-raw,format=$4" ! fakesink 2>&1 \
    | grep -o 'kernel-ns=(guint64)[0-9]*' | cut -d')' -f2 \
    | tail -n +$((warmup + 1)) | awk '{ print $1 / 1e6 }' | median
}

seconds() {  # N FILTER...
  local n=$1
  shift
  local start end
  start=$(date +%s.%N)
  gst-launch-1.0 -q filesrc location="$tmp/frame.mkv" ! decodebin \
      ! imagefreeze num-buffers="$n" ! "$@" ! video/x-raw,format=BGRx \
      ! fakesink sync=false >/dev/null
  end=$(date +%s.%N)
  echo "$start $end" | awk '{ print $2 - $1 }'
}

fps() {  # FILTER...
  local t1 tn
  t1=$(seconds 1 "$@")
  tn=$(seconds "$pframes" "$@")
  echo "$t1 $tn" | awk -v n="$pframes" '{ print (n - 1) / ($2 - $1) }'
}

for size in "${sizes[@]}"; do
  w=${size%x*} h=${size#*x}
  # The frame: decoded from H.264 where x264enc is there (the GPU
  # machine's runtime has none: videotestsrc's frame, said below).
  encoder="x264enc speed-preset=ultrafast ! matroskamux"
  gst-inspect-1.0 x264enc >/dev/null 2>&1 || encoder="matroskamux"
  gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte \
      ! "video/x-raw,format=I420,width=$w,height=$h" ! $encoder \
      ! filesink location="$tmp/frame.mkv"
  : >"$tmp/times"
  for ((r = 1; r <= rounds; r++)); do
    for mode in "laplace 0" "sliding 7"; do
      set -- $mode
      echo "k $1 I420 $(kernel_ms "$1" "$2" "$size" I420)" >>"$tmp/times"
      echo "k $1 BGRx $(kernel_ms "$1" "$2" "$size" BGRx)" >>"$tmp/times"
    done
    echo "p converting $(fps clfilter device="$device" mode=laplace)" \
        >>"$tmp/times"
    echo "p videoconvert $(fps clfilter device="$device" mode=laplace \
        ! videoconvert)" >>"$tmp/times"
  done
  printf '%s, device=%s, %s frames (pipelines %s), medians of %s rounds, the frame %s\n' \
      "$size" "$device" "$frames" "$pframes" "$rounds" \
      "$([ "$encoder" = matroskamux ] && echo raw || echo decoded)"
  for mode in laplace sliding; do
    plain=$(awk -v m=$mode '$1 == "k" && $2 == m && $3 == "I420" { print $4 }' \
        "$tmp/times" | median)
    conv=$(awk -v m=$mode '$1 == "k" && $2 == m && $3 == "BGRx" { print $4 }' \
        "$tmp/times" | median)
    echo "$mode $plain $conv" | awk '{ printf "  kernel %-8s I420 %8.3f ms  BGRx %8.3f ms  conversion adds %5.1f %%\n", $1, $2, $3, 100 * ($3 / $2 - 1) }'
  done
  ours=$(awk '$2 == "converting" { print $3 }' "$tmp/times" | median)
  theirs=$(awk '$2 == "videoconvert" { print $3 }' "$tmp/times" | median)
  echo "$ours $theirs" | awk '{ printf "  pipeline laplace: clfilter converting %7.1f fps, clfilter ! videoconvert %7.1f fps: %.2fx\n", $1, $2, $1 / $2 }'
done
