#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole
# test suite (engine tests, engine tests under valgrind memcheck, element
# tests with GStreamer's leaks tracer, gst-inspect check) on the OpenCL
# devices of this machine (PoCL at least).  Then it builds again with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer, and runs the engine tests
# (with LeakSanitizer) and the element tests there, and the libFuzzer target
# for two minutes.
# Between the two, a build without CUDA memory (-Dcuda=disabled) runs its
# gst-inspect and error tests.
# Usage: tests/run.sh [meson test arguments, e.g. --suite element]
# The arguments apply to the two full builds.  The build goes to ./build, or to
# $CLF_BUILD_DIR; the sanitizer build to ./build-sanitize, or to
# $CLF_SANITIZE_BUILD_DIR; the one without CUDA to ./build-nocuda, or to
# $CLF_NOCUDA_BUILD_DIR.  CLF_SANITIZE=0 skips the sanitizer build (for
# quick local runs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
sanitize_build=${CLF_SANITIZE_BUILD_DIR:-$root/build-sanitize}

"$root/tests/install-deps.sh"
echo "OpenCL devices:"
clinfo -l || true

if [ -f "$build/build.ninja" ]; then
  meson configure "$build" -Dwerror=true -Dtest-hooks=true
else
  meson setup "$build" "$root" -Dwerror=true -Dtest-hooks=true
fi
ninja -C "$build"
meson test -C "$build" --print-errorlogs "$@"

# Without CUDA memory (meson option cuda, auto above): the plugin builds,
# its templates lack CUDA memory, and caps in it are refused cleanly.
nocuda_build=${CLF_NOCUDA_BUILD_DIR:-$root/build-nocuda}
nocuda_options=(-Dcuda=disabled -Dwerror=true -Dtest-hooks=true)
if [ -f "$nocuda_build/build.ninja" ]; then
  meson configure "$nocuda_build" "${nocuda_options[@]}"
else
  meson setup "$nocuda_build" "$root" "${nocuda_options[@]}"
fi
ninja -C "$nocuda_build"
meson test -C "$nocuda_build" --print-errorlogs gst-inspect errors

[ "${CLF_SANITIZE:-1}" = 0 ] && exit 0

sanitize_options=(-Db_sanitize=address,undefined -Db_lundef=false
  -Dwerror=true -Dtest-hooks=true)
if [ -f "$sanitize_build/build.ninja" ]; then
  meson configure "$sanitize_build" "${sanitize_options[@]}"
else
  CC=clang meson setup "$sanitize_build" "$root" "${sanitize_options[@]}"
fi
ninja -C "$sanitize_build"
# Every test of the build's default setup ('sanitize': UBSan fatal,
# LeakSanitizer with the drivers' suppressions), but gst-inspect and
# install: the system's gst-inspect-1.0 is not built with ASan and cannot
# load the plugin built with it.
mapfile -t sanitize_tests < <(meson test -C "$sanitize_build" --list \
  --no-rebuild "$@" 2>/dev/null | sed -n 's|^[^ ]* / ||p' \
  | grep -vxE 'gst-inspect|install')
[ ${#sanitize_tests[@]} -eq 0 ] && exit 0
meson test -C "$sanitize_build" --print-errorlogs "$@" "${sanitize_tests[@]}"
