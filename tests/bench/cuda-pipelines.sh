#!/usr/bin/env bash
# CUDA memory through clfilter, on an NVIDIA machine with GStreamer's
# nvcodec (issue 17):
#  1. exactness: H.264 decoded by nvh264dec in CUDA memory, filtered by
#     clfilter in CUDA memory and downloaded (cudadownload), against the
#     same frames downloaded first and filtered in system memory on the
#     CPU driver (PoCL, whose output the engine tests check against the C
#     reference); one clfilter and a chain of two; each frame's
#     clfilter-stats must say 2 device copies and 0 host copies;
#  2. speed: CHAINS decode chains in one pipeline, aggregate fps of
#     decode only, of clfilter mode=laplace in CUDA memory, and of
#     clfilter on the frames downloaded to system memory, ROUNDS rounds
#     alternating, medians (gst-launch's "Execution ended after").
# Usage: tests/bench/cuda-pipelines.sh BUILD_DIR OUT_DIR
#   CLIP=4K H.264 mp4 for speed (and its first EXACT_FRAMES for exactness),
#   ODD_CLIP=a small H.264 mp4 of an odd size; both are made with x264enc
#   where not given.  CHAINS (8), ROUNDS (3), EXACT_FRAMES (8).
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

make_clip() {   # make_clip PATH WIDTH HEIGHT FRAMES PATTERN
  gst-launch-1.0 -q videotestsrc num-buffers="$4" pattern="$5" \
    horizontal-speed=8 ! "video/x-raw,format=I420,width=$2,height=$3,framerate=30/1" \
    ! x264enc speed-preset=ultrafast bitrate=3000 key-int-max=60 \
    ! h264parse ! mp4mux ! filesink location="$1"
}
clip=${CLIP:-$out/clip-4k.mp4}
odd=${ODD_CLIP:-$out/clip-odd.mp4}
[ -e "$clip" ] || make_clip "$clip" 3840 2160 600 smpte
[ -e "$odd" ] || make_clip "$odd" 1284 722 30 ball

decode() {      # decode CLIP: the source up to decoded CUDA frames
  echo "filesrc location=$1 ! qtdemux ! h264parse ! nvh264dec"
}

# ---- 1. exactness ----
failures=0
check() {       # check NAME CLIP FILTERS
  local name=$1 clip=$2 filters=$3 cuda="$out/$1.cuda" ref="$out/$1.ref"
  local log="$out/$1.log" cpu_filters
  cpu_filters=$(echo "$filters" | sed 's/clfilter /clfilter device=cpu /g')
  # shellcheck disable=SC2086
  gst-launch-1.0 -m $(decode "$clip") ! identity eos-after="$exact_frames" \
    ! "video/x-raw(memory:CUDAMemory),format=NV12" ! $filters \
    ! cudadownload ! video/x-raw,format=NV12 ! filesink location="$cuda" \
    >"$log" 2>&1 || true
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $(decode "$clip") ! identity eos-after="$exact_frames" \
    ! cudadownload ! video/x-raw,format=NV12 ! $cpu_filters \
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

# ---- 2. speed ----
run_chains() {  # run_chains TAIL: fps of CHAINS chains ending in TAIL
  local pipeline="" i t
  for i in $(seq "$chains"); do
    pipeline+=" $(decode "$clip") ! $1 ! fakesink sync=false"
  done
  # shellcheck disable=SC2086
  gst-launch-1.0 $pipeline >"$out/chains.log" 2>&1 || true
  t=$(sed -n 's/^Execution ended after \([0-9:.]*\)$/\1/p' "$out/chains.log")
  if [ -z "$t" ] || grep -q '^ERROR' "$out/chains.log"; then
    grep '^ERROR' "$out/chains.log" | head -n 2 >&2
    echo failed
    return
  fi
  awk -v t="$t" -v n="$chains" -v f="$clip_frames" 'BEGIN {
    split(t, p, ":"); s = p[1] * 3600 + p[2] * 60 + p[3];
    printf "%.1f\n", n * f / s }'
}
# shellcheck disable=SC2046
clip_frames=$(gst-launch-1.0 -v $(decode "$clip") ! fakesink silent=false \
  2>/dev/null | grep -c 'last-message = chain' || true)
echo "speed: $chains chains of $(basename "$clip") ($clip_frames frames each)"
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
