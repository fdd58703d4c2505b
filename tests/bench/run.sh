#!/usr/bin/env bash
# The project's whole benchmark:
#   1. clf-bench: median kernel time of every mode, radius, size and OpenCL
#      device (frames on the device) and frames/s from host memory -> engine.tsv
#   2. whole pipelines at 1280x720 RGBA from a raw file, clfilter side by side
#      with FFmpeg (CPU and OpenCL) and the read-only floor -> pipeline.tsv
#   3. OpenCV's cv2.blur and cv2.filter2D per call, CPU and OpenCL -> opencv.tsv
#   4. clf-floor: each device's copy and three-row floors at the charted
#      sizes -> floor.tsv; the kernels against them and OpenCV as ratios
#   5. cold-start.sh: one frame through a whole process, cold (every cache
#      empty) and warm, five formats and modes -> cold-start.tsv
#   6. results.md (also printed at the end) and kernel-vs-radius.png
#
# Usage: tests/bench/run.sh [OUT]        OUT defaults to build/bench-results
# Environment (all optional):
#   DEVICES SIZES RADII MODES FRAMES BUDGET_MS
#                   clf-bench's --devices --sizes ... (its defaults when unset)
#   ROUNDS=5        pipeline rounds; each runs every contender once, in turn,
#                   and the tables give each one's median
#   FRAMES_RAW=120  frames of the raw 1280x720 RGBA file (made once, in OUT);
#                   every pipeline also runs on its first FRAMES_SHORT=20
#                   frames, and the difference of the two times gives the
#                   time per frame without the start-up
#   DEVICE=auto     clfilter's device= in the pipelines
#   FFMPEG_OCL=P.D  FFmpeg's OpenCL device (default: DEVICE when it is P:D, else 0.0)
#   CV_REPS=30      calls timed per OpenCV case
#   CV_RADII=1,7,31 OpenCV's blur radii (its OpenCL blur on a CPU device
#                   takes seconds a call from r=31 at 3840x2160)
#   INSTALL=0       do not try to install missing peers
#   COLD_ROUNDS=3   cold-start.sh's rounds (its ROUNDS)
#   QUICK=1         everything tiny: a smoke test of about a minute
#   CLF_BUILD_DIR   the build (default ./build; built if it has no clf-bench)
# FFmpeg, OpenCV (python3-opencv for /usr/bin/python3, or $PYTHON) and
# gnuplot are optional peers: installed with apt-get when missing and
# possible, otherwise left out, and results.md says so.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench=$root/tests/bench
build=${CLF_BUILD_DIR:-$root/build}
out=${1:-$build/bench-results}
python=${PYTHON:-/usr/bin/python3}

# The command as given, with the settings that shape it, for results.md.
invocation() {
  local v line=""
  for v in QUICK DEVICES SIZES RADII MODES FRAMES BUDGET_MS ROUNDS FRAMES_RAW FRAMES_SHORT \
           DEVICE FFMPEG_OCL CV_REPS CV_RADII INSTALL CLF_BUILD_DIR PYTHON; do
    [ -z "${!v:-}" ] || line+="$v=$(printf '%q' "${!v}") "
  done
  echo "$line$0${*:+ $*}"
}
command_line=$(invocation "$@")
started=$(date '+%Y-%m-%d %H:%M:%S %Z')

cv_args=(--reps "${CV_REPS:-30}" --radii "${CV_RADII:-1,7,31}")
if [ "${QUICK:-0}" = 1 ]; then
  : "${SIZES:=640x360}" "${RADII:=1,7}" "${FRAMES:=5}" "${ROUNDS:=1}" "${FRAMES_RAW:=20}" "${FRAMES_SHORT:=5}" "${COLD_ROUNDS:=1}"
  cv_args=(--sizes 1280x720 --radii 7 --reps "${CV_REPS:-3}")
fi
rounds=${ROUNDS:-5} frames_raw=${FRAMES_RAW:-120} frames_short=${FRAMES_SHORT:-20}
device=${DEVICE:-auto}
if [[ $device =~ ^[0-9]+:[0-9]+$ ]]; then
  ffmpeg_ocl=${FFMPEG_OCL:-${device/:/.}}
else
  ffmpeg_ocl=${FFMPEG_OCL:-0.0}
fi
width=1280 height=720
frame_bytes=$((width * height * 4))
notes=()    # what was left out, and why: listed in results.md

say() { printf '%s\n' "$*" >&2; }
note() { say "NOTE: $*"; notes+=("$*"); }

# ---- peers and build --------------------------------------------------

have_ffmpeg() { command -v ffmpeg >/dev/null; }
have_cv2() { [ -x "$python" ] && "$python" -c 'import cv2' 2>/dev/null; }
have_gnuplot() { command -v gnuplot >/dev/null; }

# apt-get, through sudo when not root; false when there is no way to run it.
apt_get() {
  local sudo=()
  command -v apt-get >/dev/null || return 1
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || return 1
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@"
}

# The peers are optional: a machine without a package registry goes on
# without them.
install_peers() {
  local missing=()
  have_ffmpeg || missing+=(ffmpeg)
  have_cv2 || missing+=(python3-opencv)
  have_gnuplot || missing+=(gnuplot-nox)
  if [ ${#missing[@]} -eq 0 ] || [ "${INSTALL:-1}" = 0 ]; then return 0; fi
  say "Installing the peers: ${missing[*]}"
  if ! { apt_get update -qq && apt_get install -y -qq --no-install-recommends "${missing[@]}"; } >&2
  then
    say "Could not install ${missing[*]}; going on without."
  fi
}

peer_status() {
  have_ffmpeg || note "FFmpeg absent: no FFmpeg rows in the pipeline table."
  have_cv2 || note "OpenCV (cv2 for $python) absent: no OpenCV table."
  have_gnuplot || note "gnuplot absent: kernel-vs-radius.png not made."
}

ensure_build() {
  [ -x "$build/tests/clf-bench" ] && [ -f "$build/gst/libgstclfilter.so" ] && return
  say "No clf-bench in $build: building."
  "$root/tests/install-deps.sh" || say "tests/install-deps.sh failed; building with what is here."
  [ -f "$build/build.ninja" ] || meson setup "$build" "$root"
  ninja -C "$build"
}

# ---- 1. engine ----------------------------------------------------------

run_engine() {
  local args=() opt var status=0
  for opt in devices:DEVICES sizes:SIZES radii:RADII modes:MODES frames:FRAMES \
             budget-ms:BUDGET_MS; do
    var=${opt#*:}
    [ -z "${!var:-}" ] || args+=("--${opt%:*}" "${!var}")
  done
  say "== 1. engine: clf-bench ${args[*]}"
  "$build/tests/clf-bench" "${args[@]}" 2>"$out/engine.log" \
    | tee "$out/engine.tsv" >&2 || status=$?
  cat "$out/engine.log" >&2
  case $status in
    0) ;;
    1) note "clf-bench found mismatching output (see the check summary)." ;;
    *) note "clf-bench failed (status $status): see engine.log." ;;
  esac
}

# ---- 2. pipelines -------------------------------------------------------

# Decodes pipeline source $1 into $2: FRAMES_RAW frames of RGBA.  ($1 is
# left unquoted: gst-launch takes the description word by word.)
write_raw() {
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $1 ! videoconvert \
    ! "video/x-raw,format=RGBA,width=$width,height=$height" \
    ! identity eos-after="$frames_raw" ! filesink location="$2.part" >&2 || return
  # identity lets a few frames more through; keep exactly FRAMES_RAW.
  truncate -s "$((frames_raw * frame_bytes))" "$2.part"
  mv "$2.part" "$2"
}

# The raw RGBA file, $raw: the project's clip decoded once (where the clip
# cannot be made or decoded, the same zone plate straight from videotestsrc).
# $raw_short holds its first FRAMES_SHORT frames.
make_raw() {
  local clip
  raw=$out/clip-${width}x${height}-rgba-$frames_raw.raw
  raw_short=$out/clip-${width}x${height}-rgba-$frames_short.raw
  if [ ! -s "$raw" ]; then
    say "Making $raw"
    { clip=$("$root/examples/make-clip.sh") && write_raw "filesrc location=$clip ! decodebin" "$raw"; } \
      || { note "the clip could not be made or decoded: the raw file is videotestsrc's zone plate."
           write_raw "videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1" "$raw"; }
  fi
  head -c "$((frames_short * frame_bytes))" "$raw" >"$raw_short"
}

# The same frames as planar GBRA, FFmpeg's own format for its filters:
# $gbrap and $gbrap_short.
to_gbrap() {
  ffmpeg -hide_banner -nostdin -loglevel error \
    -f rawvideo -pix_fmt rgba -s "${width}x$height" -i "$1" \
    -f rawvideo -pix_fmt gbrap -y "$2"
}
make_gbrap() {
  gbrap=${raw%.raw}-gbrap.raw gbrap_short=${raw_short%.raw}-gbrap.raw
  { [ -s "$gbrap" ] || to_gbrap "$raw" "$gbrap"; } && to_gbrap "$raw_short" "$gbrap_short"
}

names=() roles=() cmds=()
# contender NAME ROLE COMMAND: ROLE is floor, clfilter-blur, clfilter-sharpen,
# blur or sharpen (a peer is compared with the clfilter of its operation).
# COMMAND reads @RGBA@ or @GBRAP@: the long or the short file.
contender() { names+=("$1"); roles+=("$2"); cmds+=("$3"); }

sharpen="-1 -1 -1 -1 9 -1 -1 -1 -1"

add_gstreamer() {
  local parse="gst-launch-1.0 -q filesrc location=@RGBA@ ! rawvideoparse width=$width height=$height format=rgba framerate=30/1"
  local clf="clfilter device=$device border=mirror"
  contender "read only: GStreamer filesrc ! rawvideoparse ! fakesink" floor \
    "$parse ! fakesink sync=false"
  contender "clfilter sliding r=7" clfilter-blur \
    "$parse ! $clf mode=sliding radius=7 ! fakesink sync=false"
  contender "clfilter laplace" clfilter-sharpen \
    "$parse ! $clf mode=laplace ! fakesink sync=false"
}

# FFmpeg reading raw frames of pixel format $1 from file $2.
ff() { echo "ffmpeg -hide_banner -nostdin -loglevel error -f rawvideo -pix_fmt $1 -s ${width}x$height -framerate 30 -i $2"; }

add_ffmpeg() {
  local blur="avgblur=sizeX=7:sizeY=7:planes=7"
  local conv="convolution=0m='$sharpen':1m='$sharpen':2m='$sharpen':3m='0 0 0 0 1 0 0 0 0'"
  local ocl="-init_hw_device opencl=ocl:$ffmpeg_ocl -filter_hw_device ocl"
  contender "read only: FFmpeg rawvideo -f null" floor "$(ff rgba @RGBA@) -f null -"
  contender "FFmpeg avgblur, RGBA in and out (converts to gbrap and back)" blur \
    "$(ff rgba @RGBA@) -vf \"$blur,format=rgba\" -f null -"
  contender "FFmpeg avgblur, gbrap file (no conversion)" blur \
    "$(ff gbrap @GBRAP@) -vf \"$blur\" -f null -"
  contender "FFmpeg convolution, RGBA in and out (converts to gbrap and back)" sharpen \
    "$(ff rgba @RGBA@) -vf \"$conv,format=rgba\" -f null -"
  contender "FFmpeg convolution, gbrap file (no conversion)" sharpen \
    "$(ff gbrap @GBRAP@) -vf \"$conv\" -f null -"
  contender "read only: FFmpeg OpenCL hwupload,hwdownload" floor \
    "$(ff rgba @RGBA@) $ocl -vf \"hwupload,hwdownload,format=rgba\" -f null -"
  contender "FFmpeg OpenCL avgblur_opencl, RGBA" blur \
    "$(ff rgba @RGBA@) $ocl -vf \"hwupload,avgblur_opencl=sizeX=7:sizeY=7,hwdownload,format=rgba\" -f null -"
  contender "FFmpeg OpenCL convolution_opencl, RGBA" sharpen \
    "$(ff rgba @RGBA@) $ocl -vf \"hwupload,convolution_opencl=0m='$sharpen',hwdownload,format=rgba\" -f null -"
}

# Wall nanoseconds of one run of contender $1 on the long (or, with $2 =
# short, the short) files; fails when the command fails.
wall_ns() {
  local start end cmd=${cmds[$1]}
  if [ "${2:-}" = short ]; then
    cmd=${cmd//@RGBA@/$raw_short} cmd=${cmd//@GBRAP@/${gbrap_short:-}}
  else
    cmd=${cmd//@RGBA@/$raw} cmd=${cmd//@GBRAP@/${gbrap:-}}
  fi
  start=$(date +%s%N)
  eval "$cmd" >/dev/null 2>"$out/pipeline-error.log" || return 1
  end=$(date +%s%N)
  echo $((end - start))
}

# Milliseconds per frame of contender $1, start-up left out: the long run
# less the short one, over the frames between them.
ms_per_frame() {
  local long short
  long=$(wall_ns "$1") && short=$(wall_ns "$1" short) || return 1
  awk -v l="$long" -v s="$short" -v n="$((frames - frames_short))" \
    'BEGIN { printf "%.4f", (l - s) / 1e6 / n }'
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

run_pipelines() {
  local frames i r t
  make_raw
  frames=$(( $(stat -c %s "$raw") / frame_bytes ))
  add_gstreamer
  if have_ffmpeg; then
    if make_gbrap; then add_ffmpeg; else note "FFmpeg could not write the gbrap file: no FFmpeg rows."; fi
  fi

  say "== 2. pipelines: $frames and $frames_short frames of ${width}x$height RGBA, a warm-up run, then $rounds rounds"
  local -a times=() live=()
  # The warm-up run fills the page cache and builds OpenCL programs; a
  # contender that fails there (no such filter, no device) is left out.
  for i in "${!cmds[@]}"; do
    if wall_ns "$i" short >/dev/null; then
      live+=("$i")
    else
      note "left out: ${names[$i]}: $(tail -n 1 "$out/pipeline-error.log")"
    fi
  done
  for ((r = 1; r <= rounds; r++)); do
    for i in "${live[@]}"; do
      t=$(ms_per_frame "$i") || { note "${names[$i]} failed in round $r"; continue; }
      times[i]+="$t "
      say "round $r: $t ms/frame  ${names[$i]}"
    done
  done

  {
    printf 'contender\trole\tmedian-ms-per-frame\tframes\tcommand\n'
    for i in "${live[@]}"; do
      printf '%s\t%s\t%s\t%s\t%s\n' "${names[$i]}" "${roles[$i]}" \
        "$(median <<<"${times[$i]:-}")" "$((frames - frames_short))" \
        "$(sed "s|@RGBA@|$raw|; s|@GBRAP@|${gbrap:-}|" <<<"${cmds[$i]}")"
    done
  } >"$out/pipeline.tsv"
}

# ---- 3. OpenCV ----------------------------------------------------------

run_opencv() {
  local line
  have_cv2 || return 0
  say "== 3. OpenCV: opencv-bench.py ${cv_args[*]}"
  if ! "$python" "$bench/opencv-bench.py" "${cv_args[@]}" 2>"$out/opencv.log" \
      | tee "$out/opencv.tsv" >&2; then
    note "opencv-bench.py failed: $(tail -n 1 "$out/opencv.log")"
  fi
  while read -r line; do note "$line"; done <"$out/opencv.log"
}

# ---- 4. floors -------------------------------------------------------------

# clf-floor on every device clf-bench ran, at the sizes charted (the
# sizes OpenCV measures too).
run_floor() {
  local dev size
  say "== 4. floors: clf-floor"
  for dev in $(awk -F'\t' 'NR > 1 { print $1 }' "$out/engine.tsv" | awk '!seen[$0]++'); do
    for size in $(chart_sizes); do
      "$build/tests/clf-floor" --device "$dev" --size "$size" >>"$out/floor.tsv" \
        2>>"$out/floor.log" || note "clf-floor failed on $dev at $size (see floor.log)."
    done
  done
}

# ---- 5. cold start ---------------------------------------------------------

run_cold_start() {
  say "== 5. cold start: cold-start.sh"
  ROUNDS=${COLD_ROUNDS:-3} DEVICE=$device CLF_BUILD_DIR=$build "$bench/cold-start.sh" "$out" \
    >/dev/null 2>"$out/cold-start.log" || note "cold-start.sh failed (see cold-start.log)."
}

md_cold_start() {
  echo
  echo "## 5. Cold and warm start"
  echo
  if [ -s "$out/cold-start.md" ]; then
    sed '1,/^$/d' "$out/cold-start.md"
  else
    echo "Not measured (cold-start.sh failed)."
  fi
}

# ---- 6. chart and report -------------------------------------------------

# Sizes to chart: 1280x720 and 3840x2160 where measured, else the first size.
chart_sizes() {
  local sizes
  sizes=$(awk -F'\t' 'NR > 1 && $2 != "laplace" && $5 != "-" { print $4 }' "$out/engine.tsv" | awk '!seen[$0]++')
  grep -xE '1280x720|3840x2160' <<<"$sizes" || head -n 1 <<<"$sizes"
}

make_chart() {
  local size files="" sizes="" modes
  have_gnuplot || return 0
  modes=$(awk -F'\t' 'NR > 1 && $2 != "laplace" { print $2 }' "$out/engine.tsv" | sort -u | wc -l)
  for size in $(chart_sizes); do
    awk -v chart="$size" -f "$bench/engine-report.awk" "$out/engine.log" "$out/engine.tsv" \
      >"$out/kernel-vs-radius-$size.dat"
    files+="$out/kernel-vs-radius-$size.dat " sizes+="$size "
  done
  if [ -z "$files" ]; then
    note "no blur timings in engine.tsv: kernel-vs-radius.png not made."
  elif ! gnuplot -e "files='$files'; sizes='$sizes'; modes=$modes; out='$out/kernel-vs-radius.png'" \
      "$bench/kernel-vs-radius.gp" 2>"$out/gnuplot.log"; then
    note "gnuplot failed (see gnuplot.log): kernel-vs-radius.png not made."
  fi
}

# A markdown table from tab-separated lines, the first being the header;
# columns holding numbers are aligned right.
md_table() {
  awk -F'\t' '
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (NR > 1 && $i ~ /^[0-9.]+$/) number[i] = 1 }
      if (NF > cols) cols = NF }
    END {
      for (r = 1; r <= NR; r++) {
        line = "|"
        for (i = 1; i <= cols; i++) line = line " " cell[r, i] " |"
        print line
        if (r > 1) continue
        line = "|"
        for (i = 1; i <= cols; i++) line = line (i in number ? "---:|" : "---|")
        print line
      }
    }'
}

# The first line of stdin, or "none found" (no head: its early exit would
# fail the pipeline under pipefail).
first_line() { local all; all=$(cat); all=${all%%$'\n'*}; echo "${all:-none found}"; }

# The device clfilter picks for DEVICE, from its first stats message.
clfilter_device_name() {
  { gst-launch-1.0 -m videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=64 \
      ! clfilter device="$device" ! fakesink 2>&1 || true; } \
    | sed -n 's/.*device=(string)\("[^"]*"\|[^,;]*\).*/\1/p' | tr -d '"\\' | first_line
}

ffmpeg_device_name() {
  { ffmpeg -hide_banner -nostdin -loglevel verbose -init_hw_device "opencl=ocl:$ffmpeg_ocl" \
      -f lavfi -i nullsrc=s=16x16 -frames:v 1 -f null - 2>&1 || true; } \
    | sed -n "s/.*\] $ffmpeg_ocl: //p" | first_line
}

md_ratios() {
  echo
  echo "## 4. Against the floor and OpenCV"
  echo
  echo "clfilter's median kernel ms (section 1) over the device's copy floor"
  echo "(\`clf-floor\`: clEnqueueCopyBuffer of the frame; its three-row stencil is"
  echo "the traffic of a 3x3 filter), and OpenCV's median ms for the same operation"
  echo "(section 3: \`blur\` for the blurs, \`filter2D\` for laplace) over clfilter's:"
  echo "above 1, clfilter is that many times faster. Raw data: floor.tsv."
  if [ ! -s "$out/floor.tsv" ]; then
    echo
    echo "Not measured (no clf-floor output)."
    return
  fi
  local cv=$out/opencv.tsv
  [ -s "$cv" ] || cv=/dev/null
  awk -f "$bench/ratio-report.awk" "$out/engine.log" "$out/floor.tsv" "$cv" \
    "$out/engine.tsv"
}

md_machine() {
  local cpu
  cpu=$(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  echo "# clfilter benchmark"
  echo
  echo "- Date: $started"
  echo "- Command: \`$command_line\`"
  echo "- CPU: ${cpu:-unknown}, $(nproc) cores available ($(grep -c '^processor' /proc/cpuinfo) in /proc/cpuinfo); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  if command -v nvidia-smi >/dev/null; then
    echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | paste -sd ';')"
  fi
  echo "- $(gst-launch-1.0 --version | sed -n 2p); clfilter device (DEVICE=$device): $(clfilter_device_name)"
  if have_ffmpeg; then
    echo "- FFmpeg $(ffmpeg -hide_banner -version | awk 'NR == 1 { print $3 }'); OpenCL device $ffmpeg_ocl: $(ffmpeg_device_name)"
  fi
  have_cv2 && echo "- OpenCV $("$python" -c 'import cv2; print(cv2.__version__)')"
  echo
  if command -v clinfo >/dev/null; then
    printf 'OpenCL devices (`clinfo -l`):\n\n```\n%s\n```\n' "$(clinfo -l 2>&1)"
  else
    printf 'OpenCL devices (clinfo absent; as clf-bench named them):\n\n```\n%s\n```\n' \
      "$(grep '^device ' "$out/engine.log" 2>/dev/null)"
  fi
  if [ ${#notes[@]} -gt 0 ]; then
    echo
    echo "Notes:"
    printf -- '- %s\n' "${notes[@]}"
  fi
}

md_engine() {
  echo
  echo "## 1. Kernels (clf-bench)"
  echo
  echo "Random RGBA frames, border=mirror. Kernel time: median device time of the"
  echo "filter's kernels per frame, the frame resident on the device. Host frames/s:"
  echo "upload, kernels and download of a frame in host memory. \"skipped\": a naive"
  echo "box estimated above the time budget. Raw data: engine.tsv."
  echo
  awk -f "$bench/engine-report.awk" "$out/engine.log" "$out/engine.tsv"
  echo
  if [ -s "$out/kernel-vs-radius.png" ]; then
    echo "![median kernel time against the blur radius](kernel-vs-radius.png)"
  else
    echo "(kernel-vs-radius.png not made.)"
  fi
}

md_pipeline() {
  local frames
  frames=$(awk -F'\t' 'NR == 2 { print $4 }' "$out/pipeline.tsv")
  echo
  echo "## 2. Whole pipelines, ${width}x$height RGBA from a raw file"
  echo
  echo "Time per frame: the wall time of a run over $frames_raw frames less that of"
  echo "a run over the first $frames_short, divided by the ${frames:-0} frames between (so start-up"
  echo "is left out); median of $rounds rounds (each round runs every contender once,"
  echo "in turn, after one warm-up run of each). \"clfilter is N x"
  echo "faster\" = the contender's ms/frame over clfilter's for the same operation"
  echo "(blur: sliding r=7; sharpen: laplace); below 1 means clfilter is slower."
  echo
  awk -F'\t' '
    NR == 1 { print "contender\tms/frame\tframes/s\tclfilter is N x faster"; next }
    { name[NR] = $1; role[NR] = $2; ms[NR] = $3; fps[NR] = 1e3 / $3
      if ($2 ~ /^clfilter-/) ref[substr($2, 10)] = ms[NR] }
    END { for (i = 2; i <= NR; i++)
            printf "%s\t%.2f\t%.1f\t%s\n", name[i], ms[i], fps[i],
              (role[i] in ref) ? sprintf("%.2f", ms[i] / ref[role[i]]) : "-" }
  ' "$out/pipeline.tsv" | md_table
  cat <<EOF

clfilter blurs with a (2r+1)^2 = 15x15 window, border=mirror (reflect-101),
colour channels only (alpha copied); laplace is 9*centre minus the 8
neighbours, clamped.
EOF
  grep -q '^FFmpeg' "$out/pipeline.tsv" && cat <<EOF

FFmpeg's avgblur sizeX/sizeY is the radius (its manual: "Set horizontal
radius size"; vf_avgblur.c sums 2*sizeX+1 samples), so sizeX=7:sizeY=7 is the
same 15x15 window, computed in float, the window cut at the frame's edges;
planes=7 filters G, B and R of gbrap and leaves alpha. convolution: 0m, 1m,
2m = "$sharpen" on G, B, R; 3m (alpha) = the identity
matrix "0 0 0 0 1 0 0 0 0", which FFmpeg copies without convolving. Both CPU
filters take planar formats only, so with RGBA FFmpeg inserts swscale's
conversion to gbrap; "format=rgba" at the end gives RGBA out like clfilter's.
The gbrap file holds the same frames planar: FFmpeg's best case. FFmpeg runs
with its default -threads and -filter_threads (all $(nproc) cores here). The
OpenCL filters take RGBA as it is (one 4-channel image, so alpha is filtered
too: the frames' alpha is 255 everywhere, which stays 255);
"hwupload,hwdownload" is their transfer floor.
EOF
  cat <<EOF

Commands (GST_PLUGIN_PATH=$build/gst):

\`\`\`
$(awk -F'\t' 'NR > 1 { print $1 ":\n  " $5 }' "$out/pipeline.tsv")
\`\`\`
EOF
}

md_opencv() {
  echo
  echo "## 3. OpenCV, per call"
  echo
  if [ ! -s "$out/opencv.tsv" ]; then
    echo "Not measured (OpenCV absent)."
    return
  fi
  echo "Median time of one call on a random 4-channel uint8 frame (OpenCV filters"
  echo "alpha too): \`cv2.blur(frame, (2r+1, 2r+1), dst, borderType=BORDER_REFLECT_101)\`"
  echo "and \`cv2.filter2D(frame, -1, sharpen 3x3, dst, borderType=BORDER_REFLECT_101)\`:"
  echo "the operations of clfilter's blur and laplace with border=mirror (OpenCV rounds in its own way: bytes not compared). opencl: on cv2.UMat, with cv2.ocl.finish()"
  echo "after every call. Compare with the kernel tables above (frames on the device)."
  echo
  md_table <"$out/opencv.tsv"
}

main() {
  mkdir -p "$out"
  # Results of an earlier run must not pass for this one's (the raw files stay).
  rm -f "$out"/{results.md,engine.tsv,engine.log,pipeline.tsv,pipeline-error.log} \
        "$out"/{opencv.tsv,opencv.log,floor.tsv,floor.log,gnuplot.log} "$out"/kernel-vs-radius* \
        "$out"/cold-start.{tsv,md,log}
  export GST_PLUGIN_PATH=$build/gst
  install_peers
  peer_status
  ensure_build
  run_engine
  run_pipelines
  run_opencv
  run_floor
  run_cold_start
  make_chart
  { md_machine; md_engine; md_pipeline; md_opencv; md_ratios; md_cold_start; } >"$out/results.md"
  say "== results: $out/results.md"
  cat "$out/results.md"
}

main
