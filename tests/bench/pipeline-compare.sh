#!/usr/bin/env bash
# Whole pipelines with a consumer that maps every frame (clf-pipeline),
# identity against clfilter alone and a chain of three, for two builds of
# the plugin in turn (e.g. before and after a change), ROUNDS times each,
# alternating: each invocation gives its medians and the ratio to the
# identity measured in it.
#
# Usage: tests/bench/pipeline-compare.sh NEW_BUILD [OLD_BUILD] [SIZE...]
#   NEW_BUILD  a build dir with tests/clf-pipeline and gst/ (its plugin)
#   OLD_BUILD  another build's dir (only its gst/ is used), or - for none
#   SIZE       default 3840x2160 1920x1080
# DEVICE (default auto), FRAMES (300), ROUNDS (2 invocations of each build
# per size, 3 rounds inside each), FLIGHT (frames-in-flight also tried for
# the new build; default 3, 1 leaves that out; the plain pipelines take
# the element's default, auto: 3 on a discrete GPU, 1 on a CPU driver), KEEP_CONTEXT (1: the
# pipelines share the first one's OpenCL engine, clf-pipeline --keep-context),
# QUEUE (1: a queue before X, identity's too, so the source has its own
# thread).
set -euo pipefail
new=${1:?usage: $0 NEW_BUILD [OLD_BUILD] [SIZE...]}
old=${2:--}
shift $(( $# >= 2 ? 2 : 1 ))
sizes=("${@:-3840x2160}")
[ $# -gt 0 ] || sizes=(3840x2160 1920x1080)
d="device=${DEVICE:-auto}" frames=${FRAMES:-300} flight=${FLIGHT:-3}
keep=()
[ "${KEEP_CONTEXT:-0}" = 1 ] && keep=(--keep-context)
q=
[ "${QUEUE:-0}" = 1 ] && q="queue ! "
L="clfilter $d mode=laplace" S="clfilter $d mode=sliding radius=7"
chain="$L ! $S ! $L"
new_filters=("${q}identity" "$q$L" "$q$S" "$q$chain")
if [ "$flight" != 1 ]; then
  f="frames-in-flight=$flight"
  new_filters+=("$q$L $f" "$q$S $f" "$q$L $f ! $S $f ! $L $f")
fi
for size in "${sizes[@]}"; do
  for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    echo "== new ($new), $size, invocation $r"
    GST_PLUGIN_PATH=$new/gst "$new/tests/clf-pipeline" --size "$size" \
      --frames "$frames" --rounds 3 "${keep[@]}" "${new_filters[@]}" \
      | grep -v '^videotestsrc\|frames, median\|^clfilters share'
    if [ "$old" != - ]; then
      echo "== old ($old), $size, invocation $r"
      GST_PLUGIN_PATH=$old/gst "$new/tests/clf-pipeline" --size "$size" \
        --frames "$frames" --rounds 3 "${keep[@]}" "${new_filters[@]:0:4}" \
        | grep -v '^videotestsrc\|frames, median\|^clfilters share'
    fi
  done
done
