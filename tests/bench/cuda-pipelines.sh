#!/usr/bin/env bash
# CUDA memory through clfilter, on an NVIDIA machine with GStreamer's
# nvcodec (issue 17):
#  1. exactness: H.264 decoded by nvh264dec in CUDA memory, filtered by
#     clfilter in CUDA memory and downloaded (cudadownload), against the
#     same frames downloaded first and filtered in system memory on the
#     CPU driver (PoCL, whose output the engine tests check against the C
#     reference); NV12 and P010, one clfilter and a chain of two; each frame's
#     clfilter-stats must say 2 device copies and 0 host copies;
#  2. speed: CHAINS decode chains in one pipeline, aggregate fps of
#     decode only, of clfilter mode=laplace in CUDA memory, and of
#     clfilter on the frames downloaded to system memory, ROUNDS rounds
#     alternating, medians of the steady state (fpsdisplaysink's
#     averages, summed over the chains).
# Usage: tests/bench/cuda-pipelines.sh BUILD_DIR OUT_DIR
#   CLIP=4K H.264 mp4 for speed (and its first EXACT_FRAMES for exactness),
#   ODD_CLIP=a small H.264 mp4 of an odd size, TEN_BIT_CLIP=the same in
#   HEVC Main 10 (P010 from nvh265dec); made with x264enc and x265enc where
#   not given.  CHAINS (8), ROUNDS (3), EXACT_FRAMES (8).
# Exits 77 (skipped) where nvh264dec is missing or has no CUDA device.
set -euo pipefail

build=$(cd "${1:?usage: $0 BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: $0 BUILD_DIR OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export GST_PLUGIN_PATH=$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
chains=${CHAINS:-8}
rounds=${ROUNDS:-3}
exact_frames=${EXACT_FRAMES:-8}

if ! gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  echo "SKIP: no nvh264dec (GStreamer's nvcodec with a CUDA device and NVDEC)"
  exit 77
fi

make_clip() {   # make_clip PATH WIDTH HEIGHT FRAMES PATTERN [10]
  local format=I420 encoder="x264enc speed-preset=ultrafast key-int-max=60"
  local parser=h264parse
  if [ "${6:-8}" = 10 ]; then
    format=I420_10LE encoder="x265enc speed-preset=ultrafast" parser=h265parse
  fi
  # shellcheck disable=SC2086
  gst-launch-1.0 -q videotestsrc num-buffers="$4" pattern="$5" \
    horizontal-speed=8 ! "video/x-raw,format=$format,width=$2,height=$3,framerate=30/1" \
    ! $encoder bitrate=3000 ! $parser ! mp4mux ! filesink location="$1"
}
clip=${CLIP:-$out/clip-4k.mp4}
odd=${ODD_CLIP:-$out/clip-odd.mp4}
ten=${TEN_BIT_CLIP:-$out/clip-odd-10bit.mp4}
[ -e "$clip" ] || make_clip "$clip" 3840 2160 600 smpte
[ -e "$odd" ] || make_clip "$odd" 1284 722 30 ball
[ -e "$ten" ] || make_clip "$ten" 1284 722 30 ball 10

decode() {      # decode CLIP: the source up to decoded CUDA frames (H.264,
                # or HEVC Main 10 for a clip named *10bit*)
  case $1 in
    *10bit*) echo "filesrc location=$1 ! qtdemux ! h265parse ! nvh265dec" ;;
    *) echo "filesrc location=$1 ! qtdemux ! h264parse ! nvh264dec" ;;
  esac
}

# ---- 1. exactness ----
failures=0
check() {       # check NAME CLIP FILTERS [FORMAT]
  local name=$1 clip=$2 filters=$3 format=${4:-NV12}
  local cuda="$out/$1.cuda" ref="$out/$1.ref"
  local log="$out/$1.log" cpu_filters
  cpu_filters=${filters//clfilter /clfilter device=cpu }
  # shellcheck disable=SC2046,SC2086
  gst-launch-1.0 -m $(decode "$clip") ! identity eos-after="$exact_frames" \
    ! "video/x-raw(memory:CUDAMemory),format=$format" ! $filters \
    ! cudadownload ! "video/x-raw,format=$format" ! filesink location="$cuda" \
    >"$log" 2>&1 || true
  # shellcheck disable=SC2046,SC2086
  gst-launch-1.0 -q $(decode "$clip") ! identity eos-after="$exact_frames" \
    ! cudadownload ! "video/x-raw,format=$format" ! $cpu_filters \
    ! filesink location="$ref" >>"$log" 2>&1 || true
  local stats copies2 frames
  stats=$(grep -c 'clfilter-stats' "$log" || true)
  copies2=$(grep 'clfilter-stats' "$log" | grep -c 'device-copies=(uint)2' \
    | tr -d ' ' || true)
  frames=$(grep 'clfilter-stats' "$log" | grep -c ' copies=(uint)0' || true)
  if cmp -s "$cuda" "$ref" && [ -s "$cuda" ] && [ "$stats" -gt 0 ] \
      && [ "$copies2" = "$stats" ] && [ "$frames" = "$stats" ]; then
    echo "exact  $name: $(($(stat -c %s "$cuda"))) bytes, $stats frames with 2 device copies, 0 host copies"
  else
    echo "FAILED $name: cmp $(cmp "$cuda" "$ref" 2>&1 | head -c 200); $stats stats, $copies2 with 2 device copies, $frames with 0 host copies (log $log)"
    failures=$((failures + 1))
  fi
  rm -f "$cuda" "$ref"
}
for c in "$odd" "$clip"; do
  base=$(basename "$c" .mp4)
  check "$base-laplace" "$c" "clfilter mode=laplace"
  check "$base-sliding7" "$c" "clfilter mode=sliding radius=7"
  check "$base-separable3" "$c" "clfilter mode=separable radius=3 border=mirror"
  check "$base-chain" "$c" "clfilter mode=laplace ! clfilter mode=sliding radius=2"
done
# 10-bit: P010 from HEVC Main 10 (NVDEC has no 10-bit H.264)
base=$(basename "$ten" .mp4)
check "$base-laplace" "$ten" "clfilter mode=laplace" P010_10LE
check "$base-sliding7" "$ten" "clfilter mode=sliding radius=7" P010_10LE

# ---- 2. speed ----
# The aggregate fps of CHAINS chains ending in TAIL, in the steady state:
# each chain's fpsdisplaysink averages from its first frame on, so the
# start (CUDA and OpenCL contexts, clfilter's programs) is not counted.
run_chains() {  # run_chains TAIL
  local pipeline="" i
  for ((i = 1; i <= chains; i++)); do
    pipeline+=" $(decode "$clip") ! $1 ! fpsdisplaysink name=sink$i"
    pipeline+=" video-sink=fakesink text-overlay=false sync=false"
  done
  # shellcheck disable=SC2086
  gst-launch-1.0 -v $pipeline >"$out/chains.log" 2>&1 || true
  if grep -q '^ERROR' "$out/chains.log"; then
    grep '^ERROR' "$out/chains.log" | head -n 2 >&2
    echo failed
    return
  fi
  # The last average each sink gave, summed.
  sed -n 's/.*:\(sink[0-9]*\): last-message = rendered: .*average: \([0-9.]*\).*/\1 \2/p' \
    "$out/chains.log" | awk -v n="$chains" '{ avg[$1] = $2 }
    END { for (s in avg) { sum += avg[s]; k++ }
      if (k != n) print "failed"; else printf "%.1f\n", sum }'
}
echo "speed: $chains chains of $(basename "$clip")"
declare -A fps
names=(decode cuda system)
tails=("video/x-raw(memory:CUDAMemory)"
       "video/x-raw(memory:CUDAMemory) ! clfilter mode=laplace stats-interval=0"
       "video/x-raw ! clfilter mode=laplace stats-interval=0")
for r in $(seq "$rounds"); do
  for k in 0 1 2; do
    f=$(run_chains "${tails[$k]}")
    fps[${names[$k]}]+="$f "
    echo "round $r ${names[$k]}: $f fps"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
{
  echo "| chains | decode only (CUDA memory) | clfilter laplace, CUDA memory | clfilter laplace, system memory | CUDA / decode |"
  echo "|---|---|---|---|---|"
  d=$(echo "${fps[decode]}" | median); c=$(echo "${fps[cuda]}" | median)
  s=$(echo "${fps[system]}" | median)
  echo "| $chains | $d | $c | $s | $(awk -v c="$c" -v d="$d" 'BEGIN {printf "%.0f%%", 100 * c / d}') |"
} | tee "$out/cuda-pipelines.md"
[ "$failures" -eq 0 ] || { echo "$failures exactness checks FAILED"; exit 1; }
