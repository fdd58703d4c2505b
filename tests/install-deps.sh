#!/usr/bin/env bash
# Installs, on Debian 12 or newer (or Ubuntu), whatever building, testing and
# the demo need and is missing: compiler, Meson/Ninja, GStreamer with the
# plugins the tests and the demo use (x264 encoder, libav decoder), the
# development files of gst-plugins-bad's CUDA library (CUDA memory), OpenCL
# headers, the ICD loader and PoCL (OpenCL on the CPU), and a virtual X
# server with xdotool for the demo's window test; for the memory-safety
# tests, valgrind, and clang with its sanitizer and libFuzzer runtimes
# (libclang-rt-dev: libclang_rt.asan, .ubsan, .fuzzer) and llvm-symbolizer
# (llvm) for readable reports; PyGObject with GStreamer's introspection data
# for the Python tests (tests/python/), OpenCV's (python3-opencv) for
# mode=convolve's comparison with filter2D, and GNU indent for the
# formatting check (tests/indent.sh).  Runs apt-get
# through sudo when not root, and prints apt's output only if it fails.
# With --minimal, only what a default build and the element tests need;
# with --demo, what examples/demo.sh needs: that, the encoder and decoder
# of its clip and the video sinks; with --tests, what every test of the
# main build needs but valgrind (the memcheck suite), the sanitizer
# build's clang and indent (the style suite) (tests/debian13.sh installs
# that much in its Debian 13 root).
# Usage: tests/install-deps.sh [--minimal | --demo | --tests]
set -euo pipefail

minimal=(
  gcc libc6-dev pkg-config python3 meson ninja-build
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base libgstreamer-plugins-bad1.0-dev
  opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 pocl-opencl-icd
)

demo=(
  "${minimal[@]}"
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly
  gstreamer1.0-libav gstreamer1.0-x
)

full=(
  gcc libc6-dev pkg-config python3 meson ninja-build
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  gstreamer1.0-x
  libgstreamer-plugins-bad1.0-dev
  opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 pocl-opencl-icd clinfo
  xvfb xauth xdotool
  valgrind clang libclang-rt-dev llvm
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-opencv indent
)

tests=()
for p in "${full[@]}"; do
  case $p in valgrind|clang|libclang-rt-dev|llvm|indent) ;; *) tests+=("$p") ;; esac
done

case "${1:-}" in
  "") packages=("${full[@]}") ;;
  --minimal) packages=("${minimal[@]}") ;;
  --demo) packages=("${demo[@]}") ;;
  --tests) packages=("${tests[@]}") ;;
  *) echo "usage: $0 [--minimal | --demo | --tests]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
apt_install() {
  "${sudo[@]}" apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# apt's output, some five lines a package (and a fresh machine lacks
# hundreds), goes to a log that is shown only if installing fails; sudo
# asks for a password on the terminal.
echo "Installing: ${missing[*]}"
log=$(mktemp -t clf-install-deps.XXXXXX)
trap 'rm -f "$log"' EXIT
status=0
apt_install >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$log" >&2
  echo "install-deps: installing failed (exit status $status); apt's output is above" >&2
  exit "$status"
fi
echo "Installed."
