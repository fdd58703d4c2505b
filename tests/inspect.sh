#!/usr/bin/env bash
# gst-inspect-1.0 clfilter documents every property of DESIGN.md with a
# description, and the plugin it shows is the one just built.
# Usage (meson runs it): tests/inspect.sh BUILD_PLUGIN_DIR CUDA
#   CUDA: 1 when built with CUDA memory (meson option cuda), else 0: the
#   templates list video/x-raw(memory:CUDAMemory) then, and only then.
set -euo pipefail
out=$(gst-inspect-1.0 clfilter)
status=0
grep -q "Filename *$1/libgstclfilter.so" <<<"$out" \
  || { echo "gst-inspect did not load the plugin from $1"; status=1; }
for prop in mode radius border device device-name last-kernel-ns \
    mean-kernel-ns frames stats-interval zero-copy sigma amount threshold; do
  # "  name   : a description of at least 30 characters"
  grep -Eq "^  $prop +: .{30,}" <<<"$out" \
    || { echo "property $prop is missing or has no description"; status=1; }
done
# The long description names the timing surfaces.
for surface in clfilter-stats GstClFilterMeta GstCustomMeta clfilter-summary; do
  grep -Eq "^  Description +.*$surface" <<<"$out" \
    || { echo "the description does not mention $surface"; status=1; }
done
for value in box separable sliding laplace gaussian unsharp clamp mirror; do
  grep -Eq "\): $value +- .{10,}" <<<"$out" \
    || { echo "enum value $value is missing or undescribed"; status=1; }
done
# The pad templates list the deep and packed formats too.
for format in GRAY16_LE P010_10LE I420_10LE Y444_12LE RGBA64_LE YUY2 A420; do
  grep -Eq "format: .*\(string\)$format[,} ]" <<<"$out" \
    || { echo "the pad templates do not list $format"; status=1; }
done
cuda_caps=$(grep -c '(memory:CUDAMemory)' <<<"$out" || true)
if [ "${2:?usage: $0 BUILD_PLUGIN_DIR CUDA}" = 1 ]; then
  # Both templates, a few formats to a line.
  [ "$cuda_caps" -ge 2 ] && [ $((cuda_caps % 2)) -eq 0 ] \
    || { echo "built with CUDA, but $cuda_caps template lines list CUDA memory"; status=1; }
  grep -Eq "^  frames-in-flight +: .*CUDA" <<<"$out" \
    || { echo "frames-in-flight does not say what it does with CUDA memory"; status=1; }
else
  [ "$cuda_caps" -eq 0 ] \
    || { echo "built without CUDA, but the templates list CUDA memory"; status=1; }
fi
# One-line blurbs, and format lists in short structures.
longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' <<<"$out")
[ "$longest" -le 300 ] \
  || { echo "gst-inspect's longest line has $longest characters (at most 300)"; status=1; }
[ $status -eq 0 ] && echo "gst-inspect-1.0 clfilter documents every property and format"
exit $status
