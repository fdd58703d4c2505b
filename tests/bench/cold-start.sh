#!/usr/bin/env bash
# Cold and warm start: one frame through a whole gst-launch-1.0 process,
#   videotestsrc num-buffers=1 ! video/x-raw,format=F,width=W,height=H
#     ! clfilter ... ! fakesink
# for five cases (format, mode).  A round per case: a new empty
# XDG_CACHE_HOME (so clfilter's binary cache, PoCL's kernel cache and
# GStreamer's registry are all empty; NVIDIA's compute cache is put there
# too, CUDA_CACHE_PATH), the cold run, then the warm run in the same
# directory.  ROUNDS rounds; the table gives each case's median and every
# run, and what the runs printed on stderr (all of them: nothing is
# expected).  The first row is the process alone: identity in place of
# clfilter, cold and warm the same way (GStreamer's registry scan is in
# every cold run).
#
# Usage: tests/bench/cold-start.sh [OUT]   OUT defaults to build/bench-results
# Writes OUT/cold-start.tsv and OUT/cold-start.md (printed at the end).
# Environment (all optional):
#   CLF_BUILD_DIR  the build (default ./build)
#   ROUNDS=3       rounds per case
#   SIZE=1280x720  the frame
#   DEVICE=auto    clfilter's device=
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
out=${1:-$build/bench-results}
rounds=${ROUNDS:-3} size=${SIZE:-1280x720} device=${DEVICE:-auto}
width=${size%x*} height=${size#*x}

cases=(
  "I420|identity|the process alone (identity)"
  "I420|clfilter device=$device mode=laplace|I420 laplace"
  "I420|clfilter device=$device mode=sliding radius=7|I420 sliding r=7"
  "RGBA|clfilter device=$device mode=sliding radius=7|RGBA sliding r=7"
  "P010_10LE|clfilter device=$device mode=sliding radius=7|P010_10LE sliding r=7"
  "YUY2|clfilter device=$device mode=separable radius=3|YUY2 separable r=3"
)

# Seconds of one run of case $1 with the cache in $2; its stderr is added
# to $3.  Fails when the pipeline fails.
run_once() {
  local format=${1%%|*} rest=${1#*|} start end
  local filter=${rest%%|*}
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  env -u POCL_CACHE_DIR GST_PLUGIN_PATH="$build/gst" XDG_CACHE_HOME="$2" \
    CUDA_CACHE_PATH="$2/nv" \
    gst-launch-1.0 -q videotestsrc num-buffers=1 \
    ! "video/x-raw,format=$format,width=$width,height=$height" \
    ! $filter ! fakesink >/dev/null 2>>"$3" || return
  end=$(date +%s%N)
  awk -v ns="$((end - start))" 'BEGIN { printf "%.2f", ns / 1e9 }'
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# What the runs printed on stderr: "none", or its distinct lines joined.
stderr_summary() {
  if [ -s "$1" ]; then
    sort "$1" | uniq -c | awk '{ $1 = $1 "x"; print }' | paste -sd ';' | cut -c1-200
  else
    echo none
  fi
}

main() {
  local c r dir cold warm name errs status=0
  mkdir -p "$out"
  [ -f "$build/gst/libgstclfilter.so" ] || { echo "no plugin in $build/gst: build first" >&2; exit 1; }
  printf 'case\tcold-median-s\tcold-runs-s\twarm-median-s\twarm-runs-s\tstderr\n' >"$out/cold-start.tsv"
  for c in "${cases[@]}"; do
    name=${c##*|}
    cold="" warm="" errs=$(mktemp)
    for ((r = 1; r <= rounds; r++)); do
      dir=$(mktemp -d)
      if ! { cold+="$(run_once "$c" "$dir" "$errs") " && warm+="$(run_once "$c" "$dir" "$errs") "; }; then
        echo "$name: the pipeline failed (round $r)" >&2
        status=1
      fi
      rm -rf "$dir"
    done
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(median <<<"$cold")" "${cold% }" \
      "$(median <<<"$warm")" "${warm% }" "$(stderr_summary "$errs")" | tee -a "$out/cold-start.tsv" >&2
    rm -f "$errs"
  done
  {
    echo "# Cold and warm start, one ${width}x$height frame"
    echo
    echo "- Date: $(date '+%Y-%m-%d %H:%M:%S %Z'); build: $build ($(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown))"
    echo "- Command: \`ROUNDS=$rounds SIZE=$size DEVICE=$device $0\`"
    echo "- CPU: $(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "Whole \`gst-launch-1.0 -q videotestsrc num-buffers=1 ! video/x-raw,format=F,width=$width,height=$height ! clfilter ... ! fakesink\`"
    echo "processes. Cold: a new empty XDG_CACHE_HOME (clfilter's cache, PoCL's kernel cache, GStreamer's"
    echo "registry; CUDA_CACHE_PATH inside it); warm: the same again. Median of $rounds rounds, seconds."
    echo
    echo "| case | cold | cold runs | warm | warm runs | stderr |"
    echo "|---|---:|---|---:|---|---|"
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$out/cold-start.tsv"
  } >"$out/cold-start.md"
  cat "$out/cold-start.md"
  return "$status"
}

main
