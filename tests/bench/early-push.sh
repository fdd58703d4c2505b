#!/usr/bin/env bash
# What pushing a frame on early buys a chain of clfilters: a frame written
# into the next clfilter's memory goes on as soon as its kernels are
# enqueued, its write promised on the memory (gst_cl_flight_pushes_early in
# gst/clfilter/gstclflight.c), rather than once the device is done with it.
# The same pipeline runs with the build as it is and with a build whose
# gst_cl_flight_pushes_early always answers no, side by side: each round
# runs both, in turn; the table gives each one's median.
#
# Usage: tests/bench/early-push.sh build [BUILD]     make BUILD-no-early
#        tests/bench/early-push.sh run [BUILD] [ROUNDS] [WIDTHxHEIGHT]
#   build   copies the committed tree (git archive HEAD), makes
#           gst_cl_flight_pushes_early return FALSE, and builds it (release)
#           next to BUILD; done where the build is made (the GPU machine
#           has no GStreamer headers: carry both build folders there).
#   run     videotestsrc num-buffers=300 pattern=black ! RGBA WxH (default
#           3840x2160) ! clfilter x N ! fakesink sync=false, N = $FILTERS
#           (default 3), mode $MODE (default laplace), device $DEVICE
#           (default auto), with BUILD (default ./build-gpu) and
#           BUILD-no-early.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
what=${1:-run}
build=$(realpath -m "${2:-$root/build-gpu}")
plain=$build-no-early

case "$what" in
  build)
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    git -C "$root" archive HEAD | tar -x -C "$src"
    flight=$src/gst/clfilter/gstclflight.c
    # The function's first statement becomes a return: the rest stays, so
    # the build is the same but for this answer.
    python3 - "$flight" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
new, n = re.subn(r'(gst_cl_flight_pushes_early \([^)]*\)\n\{\n)',
                 r'\1  if (TRUE)\n    return FALSE;\n', text)
if n != 1:
    sys.exit('early-push.sh: gst_cl_flight_pushes_early not found in ' + path)
open(path, 'w').write(new)
EOF
    rm -rf "$plain"
    meson setup "$plain" "$src" -Dbuildtype=release -Dwerror=false >/dev/null
    ninja -C "$plain" gst/libgstclfilter.so >/dev/null
    # The build tree points at the deleted sources only for rebuilds.
    echo "built $plain"
    exit 0 ;;
  run) ;;
  *) echo "usage: $0 build|run [BUILD] [ROUNDS] [WIDTHxHEIGHT]" >&2; exit 2 ;;
esac

rounds=${3:-5} size=${4:-3840x2160}
filters=${FILTERS:-3} mode=${MODE:-laplace} device=${DEVICE:-auto}
frames=300
[ -f "$build/gst/libgstclfilter.so" ] && [ -f "$plain/gst/libgstclfilter.so" ] \
  || { echo "need $build and $plain: run '$0 build' first" >&2; exit 1; }

chain=""
for ((i = 0; i < filters; i++)); do
  chain+=" ! clfilter mode=$mode device=$device"
done
pipeline="videotestsrc num-buffers=$frames pattern=black ! video/x-raw,format=RGBA,width=${size%x*},height=${size#*x}$chain ! fakesink sync=false"

# Seconds from PLAYING to EOS with the plugin of build $1, as gst-launch
# reports them; each build its own registry.
seconds() {
  GST_PLUGIN_PATH=$1/gst GST_REGISTRY=$1/early-push-registry.bin \
    gst-launch-1.0 $pipeline 2>&1 \
    | sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' \
    | awk '{ print $1 * 3600 + $2 * 60 + $3 }'
}

names=("pushed early (as built)" "pushed when done")
builds=("$build" "$plain")
declare -A runs
for ((r = 1; r <= rounds; r++)); do
  for i in 0 1; do
    s=$(seconds "${builds[$i]}")
    [ -n "$s" ] || { echo "the pipeline failed with ${builds[$i]}" >&2; exit 1; }
    runs[$i]+="$s "
  done
done

echo "$pipeline"
echo "$frames frames, median of $rounds rounds"
printf '%-26s %10s %10s\n' '' 'frames/s' 'ms/frame'
for i in 0 1; do
  median=$(tr ' ' '\n' <<<"${runs[$i]}" | grep . | sort -n \
           | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  awk -v n="${names[$i]}" -v s="$median" -v f="$frames" \
    'BEGIN { printf "%-26s %10.1f %10.2f\n", n, f / s, 1000 * s / f }'
done
