#!/usr/bin/env bash
# The soak: 100,000 720p frames (or FRAMES) through clfilter while a storm
# thread changes its mode, radius and border (tests/soak/soak.c says what
# is checked).  Installs what is missing, builds the plugin and clf-soak,
# runs it and keeps a log.  Not part of tests/run.sh: it takes many minutes.
# Usage: tests/soak/run.sh [FRAMES] [clf-soak options: --format F
#        --device D --check-every K --warmup W --max-growth KIB]
# The build goes to ./build-soak, or to $CLF_BUILD_DIR; the log to
# $build/soak-DATE.log, or to $SOAK_LOG.  Exits with clf-soak's status.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CLF_BUILD_DIR:-$root/build-soak}
frames=100000
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
  frames=$1
  shift
fi

"$root/tests/install-deps.sh"
[ -f "$build/build.ninja" ] || meson setup "$build" "$root" -Dwerror=true
# Only what the soak runs, so that nothing else in the tree can stop it.
meson compile -C "$build" gstclfilter clf-soak clf-test-layer

# The plugin just built, in a registry and program cache of the build's own.
export GST_PLUGIN_PATH=$build/gst
export GST_REGISTRY_1_0=$build/soak-registry.bin
export XDG_CACHE_HOME=$build/xdg-cache
log=${SOAK_LOG:-$build/soak-$(date +%Y%m%d-%H%M%S).log}
{
  echo "tests/soak/run.sh $frames $*"
  echo "$(date -Is) on $(uname -n), $(nproc) cores"
  echo "commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" \
    diff --quiet HEAD -- gst src kernels || echo ' (gst, src or kernels changed)')"
} | tee "$log"
status=0
"$build/tests/clf-soak" --frames "$frames" "$@" 2>&1 | tee -a "$log" \
  || status=${PIPESTATUS[0]}
echo "log: $log"
exit "$status"
