#!/usr/bin/env bash
# Builds gst-clfilter with the default options and -Werror in a Debian 13
# (trixie) root and runs the tests there, to prove that the project builds
# and runs against that release's GStreamer (1.26), GLib, OpenCL headers and
# PoCL: every meson test of the build as the quick tier runs them
# (CLF_TEST_TIER=quick: the big matrices sampled, each case still checked
# byte for byte; CLF_STRESS_SECONDS=5), but three suites.  They run in the
# Debian 12 stage:
#   memcheck    valgrind: the same code, and under valgrind longer than all
#               the rest here;
#   engine-gpu  the engine groups again with the GPUs' kernels on PoCL, 9 of
#               the 27 minutes all the suites took here one at a time
#               (kernels-werror, sampled as the quick tier samples it,
#               still builds GPU programs of every family with -Werror on
#               this PoCL);
#   style       the formatting check (tests/indent.sh): the tree's format
#               does not depend on the release.
#
# The root is made once with `debootstrap --variant=minbase trixie` and kept
# outside the clone (CLF_DEBIAN13_ROOT, default /var/tmp/clf-debian13): a
# later run reuses it and costs only the build and the tests.  The mirror is
# the one this machine's apt already uses (its sources), read at run time.
# Packages come from tests/install-deps.sh --tests, run inside the root
# (everything the tests use: the clip's encoder and decoder, Xvfb and
# xdotool for the demo's window, PyGObject and OpenCV's Python for the
# Python tests).  The source tree is bind-mounted read-only; the build
# directory lives in the root and is made afresh on every run.  Needs root
# (sudo otherwise) for debootstrap, chroot and the mounts; installs
# debootstrap if missing.
#
# Usage: tests/debian13.sh [TEST...]
#   TEST: meson test names (default: all but the suites above)
# Environment: CLF_DEBIAN13_ROOT  where the root lives
#              CLF_DEBIAN13_JOBS  ninja's and meson test's parallel jobs
#                                 (default: the number of CPUs)
#              CLF_DEBIAN13_TIER  the tests' CLF_TEST_TIER (default quick)
#              CLF_TEST_SEED, CLF_STRESS_SECONDS  passed to the tests
#                                 (CLF_STRESS_SECONDS: 5 unless set)
set -euo pipefail

root=${CLF_DEBIAN13_ROOT:-/var/tmp/clf-debian13}
jobs=${CLF_DEBIAN13_JOBS:-$(nproc)}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(--no-suite memcheck --no-suite engine-gpu --no-suite style)
test_env=(CLF_TEST_TIER="${CLF_DEBIAN13_TIER:-quick}"
  CLF_STRESS_SECONDS="${CLF_STRESS_SECONDS:-5}")
[ -z "${CLF_TEST_SEED:-}" ] || test_env+=(CLF_TEST_SEED="$CLF_TEST_SEED")

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

say() { echo "debian13: $*"; }

# The Debian archive this machine's apt uses: the first URIs of a deb822
# stanza that is not the security archive, else the first such `deb` line
# of sources.list.
mirror() {
  local uri=""
  if compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null; then
    uri=$(awk '
      /^[ \t]*$/ { if (u != "" && s !~ /-security/ && t ~ /deb/) { print u; exit }
                   u = ""; s = ""; t = ""; next }
      /^URIs:/   { u = $2 }
      /^Suites:/ { s = $0 }
      /^Types:/  { t = $0 }
      END        { if (u != "" && s !~ /-security/ && t ~ /deb/) print u }
    ' /etc/apt/sources.list.d/*.sources | head -n 1)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $0 !~ /-security/ {
                 for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; exit }
               }' /etc/apt/sources.list)
  fi
  [ -n "$uri" ] || { echo "debian13: no Debian mirror in this machine's apt sources" >&2; return 1; }
  echo "$uri"
}

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    "${sudo[@]}" umount -l "${mounted[i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT

bind() {  # bind SOURCE TARGET [ro]
  "${sudo[@]}" mkdir -p "$2"
  "${sudo[@]}" mount --bind "$1" "$2"
  mounted+=("$2")
  if [ "${3:-}" = ro ]; then
    "${sudo[@]}" mount -o remount,bind,ro "$2"
  fi
}

in_root() {
  "${sudo[@]}" chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

start=$SECONDS

# The root, made in a scratch directory and moved into place only when
# debootstrap finished, so that an interrupted run leaves nothing to reuse.
if [ ! -f "$root/etc/clf-debian13-ready" ]; then
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1
  fi
  uri=$(mirror)
  say "making $root from $uri (debootstrap --variant=minbase trixie)"
  "${sudo[@]}" rm -rf "$root.partial"
  log=$(mktemp -t clf-debootstrap.XXXXXX)
  if ! "${sudo[@]}" debootstrap --variant=minbase trixie "$root.partial" "$uri" \
      >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    echo "debian13: debootstrap failed; its log's end is above" >&2
    exit 1
  fi
  rm -f "$log"
  "${sudo[@]}" rm -rf "$root"
  "${sudo[@]}" mv "$root.partial" "$root"
  "${sudo[@]}" touch "$root/etc/clf-debian13-ready"
  say "root made in $((SECONDS - start)) s"
fi

"${sudo[@]}" cp /etc/resolv.conf "$root/etc/resolv.conf"
bind /proc "$root/proc"
bind /sys "$root/sys"
bind /dev "$root/dev"
bind "$source_dir" "$root/src" ro

# Missing packages only: nothing to do on a warm root.
t=$SECONDS
in_root bash /src/tests/install-deps.sh --tests
say "packages checked in $((SECONDS - t)) s"
in_root sh -c 'pkg-config --modversion gstreamer-1.0 gstreamer-cuda-1.0 OpenCL 2>/dev/null' \
  | paste -sd' ' | sed 's/^/debian13: gstreamer, gstreamer-cuda, OpenCL: /' || true

t=$SECONDS
in_root rm -rf /build
in_root meson setup /build /src -Dwerror=true >/dev/null \
  || { in_root cat /build/meson-logs/meson-log.txt | tail -n 40 >&2; exit 1; }
in_root meson configure /build | awk '$1 == "cuda" || $1 == "werror" { o = o " " $1 "=" $2 }
  END { print "debian13: options" o }'
in_root grep -q 'CLF_HAVE_CUDA 1' /build/config.h \
  && say "CUDA memory built in" || say "CUDA memory not built in"
in_root ninja -C /build -j "$jobs" >/dev/null \
  || { in_root ninja -C /build -j 1 >&2; exit 1; }
say "built with the default options and -Werror in $((SECONDS - t)) s"

t=$SECONDS
in_root env "${test_env[@]}" meson test -C /build --print-errorlogs \
  --num-processes "$jobs" "${tests[@]}"
say "tests passed in $((SECONDS - t)) s; $((SECONDS - start)) s in all"
