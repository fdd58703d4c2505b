#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the
# tests (tests/README.md says what each tier runs and how long it takes).
#
# Usage: tests/run.sh [--full] [meson test arguments, e.g. --suite element]
#
# The quick tier (no --full): every test of the main build but valgrind's
# (the memcheck suite), with the big matrices sampled (CLF_TEST_TIER=quick;
# the sample turns with CLF_TEST_SEED, printed by each test) and a shorter
# stress storm (CLF_STRESS_SECONDS, 5 unless set).
#
# --full: every test of the main build, matrices whole, valgrind's too;
# then a build without CUDA memory (-Dcuda=disabled) runs its gst-inspect
# and error tests; then a clang build with AddressSanitizer and
# UndefinedBehaviorSanitizer runs the engine tests (with LeakSanitizer),
# the element tests (matrices sampled as in the quick tier) and the
# libFuzzer target for two minutes; then
# tests/debian13.sh builds and runs the tests (quick tier, but memcheck and
# engine-gpu) in a Debian 13 root.
# CLF_SANITIZE=0 leaves the sanitizer build out.
#
# The meson test arguments apply to the main build and the sanitizer
# build.  The build goes to ./build, or to $CLF_BUILD_DIR; the sanitizer
# build to ./build-sanitize, or to $CLF_SANITIZE_BUILD_DIR; the one without
# CUDA to ./build-nocuda, or to $CLF_NOCUDA_BUILD_DIR.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}
sanitize_build=${CLF_SANITIZE_BUILD_DIR:-$root/build-sanitize}

full=0
if [ "${1:-}" = --full ]; then
  full=1
  shift
fi

"$root/tests/install-deps.sh"
echo "OpenCL devices:"
clinfo -l || true

if [ -f "$build/build.ninja" ]; then
  meson configure "$build" -Dwerror=true
else
  meson setup "$build" "$root" -Dwerror=true
fi
ninja -C "$build"

if [ $full = 0 ]; then
  export CLF_TEST_TIER=quick
  export CLF_STRESS_SECONDS=${CLF_STRESS_SECONDS:-5}
  meson test -C "$build" --print-errorlogs --no-suite memcheck "$@"
  exit 0
fi

export CLF_TEST_TIER=full
meson test -C "$build" --print-errorlogs "$@"

# Without CUDA memory (meson option cuda, auto above): the plugin builds,
# its templates lack CUDA memory, and caps in it are refused cleanly.
nocuda_build=${CLF_NOCUDA_BUILD_DIR:-$root/build-nocuda}
nocuda_options=(-Dcuda=disabled -Dwerror=true)
if [ -f "$nocuda_build/build.ninja" ]; then
  meson configure "$nocuda_build" "${nocuda_options[@]}"
else
  meson setup "$nocuda_build" "$root" "${nocuda_options[@]}"
fi
ninja -C "$nocuda_build"
meson test -C "$nocuda_build" --print-errorlogs gst-inspect errors

if [ "${CLF_SANITIZE:-1}" != 0 ]; then
  sanitize_options=(-Db_sanitize=address,undefined -Db_lundef=false
    -Dwerror=true)
  if [ -f "$sanitize_build/build.ninja" ]; then
    meson configure "$sanitize_build" "${sanitize_options[@]}"
  else
    CC=clang meson setup "$sanitize_build" "$root" "${sanitize_options[@]}"
  fi
  ninja -C "$sanitize_build"
  # Every test of the build's default setup ('sanitize': UBSan fatal,
  # LeakSanitizer with the drivers' suppressions), but gst-inspect and
  # install: the system's gst-inspect-1.0 is not built with ASan and cannot
  # load the plugin built with it; and kernels-werror, which checks the
  # OpenCL C sources, which the sanitizers do not see (the main build's
  # run checks them, at 5 to 8 minutes).
  mapfile -t sanitize_tests < <(meson test -C "$sanitize_build" --list \
    --no-rebuild "$@" 2>/dev/null | sed -n 's|^[^ ]* / ||p' \
    | grep -vxE 'gst-inspect|install|kernels-werror')
  # The matrices sampled as in the quick tier (the main build ran them
  # whole): every format, mode and kernel still meets the sanitizers, and
  # the stage fits CI's time.  The programs are those the main build's
  # tests left: a copy of the engine's binary cache (same driver, sources
  # and options, so the same keys) and PoCL's compiled kernels
  # (POCL_CACHE_DIR).  The sanitizers watch our code, not PoCL's compiler;
  # the tests of cold starts make caches of their own and unset
  # POCL_CACHE_DIR, and engine-cache builds and stores in its own.  The
  # copy matters: a program the engine stores is built with a nonce, so
  # PoCL's cache alone would not hold a build from source.
  sanitize_cache=$sanitize_build/tests/xdg-cache
  rm -rf "$sanitize_cache/gst-clfilter"
  if [ -d "$build/tests/xdg-cache/gst-clfilter" ]; then
    mkdir -p "$sanitize_cache"
    cp -a "$build/tests/xdg-cache/gst-clfilter" "$sanitize_cache/"
  fi
  if [ ${#sanitize_tests[@]} -gt 0 ]; then
    POCL_CACHE_DIR="$build/tests/xdg-cache/pocl/kcache" CLF_TEST_TIER=quick \
      meson test -C "$sanitize_build" --print-errorlogs \
      "$@" "${sanitize_tests[@]}"
  fi
fi

# The default build with -Werror and the tests in Debian 13.
"$root/tests/debian13.sh"
