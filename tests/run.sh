#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole
# test suite (engine tests, element tests, gst-inspect check) on the OpenCL
# devices of this machine (PoCL at least).
# Usage: tests/run.sh [meson test arguments, e.g. --suite element]
# The build goes to ./build, or to $CLF_BUILD_DIR.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}

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
