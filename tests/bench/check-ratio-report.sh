#!/usr/bin/env bash
# ratio-report.awk on made-up output of clf-bench, clf-floor and
# opencv-bench.py: the ratios are the kernel's ms over the copy floor and
# OpenCV's ms over the kernel's; OpenCV's OpenCL rows count only where they
# ran on the kernel's device; the naive box is left out.
set -euo pipefail
awk_script=$(dirname "${BASH_SOURCE[0]}")/ratio-report.awk
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tab=$'\t'
cat >"$dir/engine.log" <<EOF2
device 0:0: Vendor CL / GPU One
device 1:0: Vendor CL / CPU Two
EOF2
cat >"$dir/engine.tsv" <<EOF2
device${tab}mode${tab}radius${tab}size${tab}kernel-median-ms${tab}kernel-min-ms${tab}frames${tab}host-fps${tab}check${tab}format
0:0${tab}box${tab}7${tab}1280x720${tab}0.5000${tab}0.4${tab}30${tab}1${tab}exact${tab}rgba
0:0${tab}sliding${tab}7${tab}1280x720${tab}0.0200${tab}0.01${tab}30${tab}1${tab}exact${tab}rgba
0:0${tab}laplace${tab}0${tab}1280x720${tab}0.0100${tab}0.01${tab}30${tab}1${tab}exact${tab}rgba
1:0${tab}sliding${tab}7${tab}1280x720${tab}0.4000${tab}0.3${tab}30${tab}1${tab}exact${tab}rgba
EOF2
cat >"$dir/floor.tsv" <<EOF2
Vendor CL / GPU One${tab}1280x720${tab}copy${tab}5.0${tab}4.0${tab}700
Vendor CL / GPU One${tab}1280x720${tab}three-row-stencil${tab}6.0${tab}5.0${tab}600
Vendor CL / CPU Two${tab}1280x720${tab}copy${tab}80.0${tab}70.0${tab}90
Vendor CL / CPU Two${tab}1280x720${tab}three-row-stencil${tab}300.0${tab}290.0${tab}20
EOF2
cat >"$dir/opencv.tsv" <<EOF2
backend${tab}device${tab}function${tab}size${tab}radius${tab}median-ms${tab}frames/s${tab}
cpu${tab}CPU, 2 threads${tab}blur${tab}1280x720${tab}7${tab}2.000${tab}500${tab}8-bit
cpu${tab}CPU, 2 threads${tab}filter2D sharpen${tab}1280x720${tab}-${tab}3.000${tab}333${tab}8-bit
opencl${tab}GPU One${tab}blur${tab}1280x720${tab}7${tab}0.100${tab}10000${tab}8-bit
opencl${tab}GPU One${tab}filter2D sharpen${tab}1280x720${tab}-${tab}0.050${tab}20000${tab}8-bit
EOF2
report=$(awk -f "$awk_script" "$dir/engine.log" "$dir/floor.tsv" \
  "$dir/opencv.tsv" "$dir/engine.tsv")
failed=0
expect() {
  if ! grep -qxF -- "$1" <<<"$report"; then
    echo "missing: $1"
    failed=1
  fi
}
expect "### Vendor CL / GPU One, 1280x720 RGBA"
expect "Copy floor 0.0050 ms (clEnqueueCopyBuffer of the frame), three-row stencil 0.0060 ms."
expect "| sliding r=7 | 0.0200 | 4.0 | 2.000 | 100.0 | 0.100 | 5.0 |"
expect "| laplace | 0.0100 | 2.0 | 3.000 | 300.0 | 0.050 | 5.0 |"
expect "### Vendor CL / CPU Two, 1280x720 RGBA"
expect "Copy floor 0.0800 ms (clEnqueueCopyBuffer of the frame), three-row stencil 0.3000 ms. OpenCV's OpenCL rows ran on another device: left out."
expect "| sliding r=7 | 0.4000 | 5.0 | 2.000 | 5.0 | - | - |"
if grep -q '^| box' <<<"$report"; then
  echo "the naive box is in the report"
  failed=1
fi
[ "$failed" = 0 ] || { printf 'report:\n%s\n' "$report"; exit 1; }
echo "ratio-report.awk: ok"
