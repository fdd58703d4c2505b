#!/usr/bin/env bash
# The CUDA path of a build made against GStreamer 1.26 (the Debian 13 root
# of tests/debian13.sh), run on an NVIDIA machine of another distribution
# with the root's own loader and libraries.
#
#   tests/gpu-debian13-cuda.sh prepare   (here, as root, with the root made)
#     Installs the root's nvcodec, isomp4 and the H.264 parser (plugins-bad
#     and -good) where missing, builds the project in the root's /build-gpu
#     (release, -Werror, CUDA memory required), packs with newer-runtime.sh
#     the root's loader, gst-launch-1.0, the plugins the runs load, the build
#     and check-cuda with every library they load into OUT, and makes an
#     H.264 clip there (this machine's x264enc).
#   tests/gpu-debian13-cuda.sh run       (there, from the carried project root)
#     a) the `cuda` check test (random NV12, I420 and P010 frames through
#        cudaupload ! clfilter ! cudadownload, each against the reference):
#        every case must run (a SKIP fails) and pass;
#     b) filesrc ! qtdemux ! h264parse ! nvh264dec ! CUDA memory ! clfilter
#        mode=laplace ! fakesink: every frame's clfilter-stats must say
#        copies 0, device-copies at most 2, and not passthrough.
#   The device tool's run: command `tests/gpu-debian13-cuda.sh run`,
#   carry [".gpu-newer"] (about 25 MiB; `run` registers the NVIDIA OpenCL
#   driver with the ICD loader itself, so .gpu need not travel).
#
# Environment: CLF_DEBIAN13_ROOT  the root (default /var/tmp/clf-debian13)
#              CLF_GPU_NEWER      OUT, relative to the project root
#                                 (default .gpu-newer, git-ignored)
#              CLF_NEWER_RUNTIME  newer-runtime.sh (default
#                                 ../shared/gpu/newer-runtime.sh)
#              CLF_DEBIAN13_JOBS  ninja's parallel jobs (default 2)
set -euo pipefail

project=$(cd "$(dirname "$0")/.." && pwd)
out=$project/${CLF_GPU_NEWER:-.gpu-newer}
say() { echo "gpu-debian13: $*"; }
die() { echo "gpu-debian13: $*" >&2; exit 1; }

# The clip: an odd size (padded planes in NVDEC's output), I420 encoded,
# NV12 decoded.
clip_width=1284 clip_height=722 clip_frames=90
# What the runs load besides clfilter (coretracers: the leaks tracer).
plugins="nvcodec coreelements isomp4 videoparsersbad app coretracers"

prepare() {
  local root=${CLF_DEBIAN13_ROOT:-/var/tmp/clf-debian13}
  local packer=${CLF_NEWER_RUNTIME:-$project/../shared/gpu/newer-runtime.sh}
  local jobs=${CLF_DEBIAN13_JOBS:-2} build=/build-gpu
  [ "$(id -u)" -eq 0 ] || die "prepare needs root (chroot, mounts)"
  [ -f "$root/etc/clf-debian13-ready" ] \
    || die "no Debian 13 root at $root: make it with tests/debian13.sh"
  [ -x "$packer" ] || die "no newer-runtime.sh at $packer (CLF_NEWER_RUNTIME)"
  gst-inspect-1.0 x264enc >/dev/null 2>&1 \
    || die "no x264enc here for the clip (gstreamer1.0-plugins-ugly)"

  local m
  mounted=()
  cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
      umount -l "${mounted[i]}" 2>/dev/null || true
    done
  }
  trap cleanup EXIT
  bind() {  # bind SOURCE TARGET [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounted+=("$2")
    [ "${3:-}" != ro ] || mount -o remount,bind,ro "$2"
  }
  in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
  }
  for m in proc sys dev; do bind "/$m" "$root/$m"; done
  bind "$project" "$root/src" ro

  local need=() p
  for p in gstreamer1.0-plugins-bad gstreamer1.0-plugins-good; do
    # shellcheck disable=SC2016
    in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
      | grep -q 'install ok installed' || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]} in the root"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends ${need[*]}" >/dev/null
  fi

  if [ ! -f "$root$build/build.ninja" ]; then
    in_root meson setup "$build" /src -Dbuildtype=release -Dwerror=true \
      >/dev/null || { tail -n 40 "$root$build/meson-logs/meson-log.txt" >&2; exit 1; }
  fi
  in_root grep -q 'CLF_HAVE_CUDA 1' "$build/config.h" \
    || die "the root's build has no CUDA memory (gstreamer-cuda-1.0 not found?)"
  in_root ninja -C "$build" -j "$jobs" >/dev/null \
    || { in_root ninja -C "$build" -j 1 >&2; exit 1; }
  say "built in the root's $build: GStreamer $(in_root pkg-config --modversion \
    gstreamer-1.0), CUDA memory built in"

  # shellcheck disable=SC2086
  "$packer" "$root" "$build" "$out" $plugins >/dev/null
  # The plugin's private libraries (its run path names the build's
  # folders), check-cuda, and the libraries it loads that the pack lacks
  # (gst-check's).
  cp -L "$root$build"/src/lib*.so "$root$build"/gst/cl/libgstcl-*.so "$out/lib/"
  cp "$root$build/tests/check-cuda" "$out/bin/"
  in_root ldd "$build/tests/check-cuda" \
    | awk '/=>/ && $3 ~ /^\// { print $3 }' | while read -r lib; do
      case $lib in "$build"/*) continue ;; esac
      [ -e "$out/lib/$(basename "$lib")" ] || cp -L "$root$lib" "$out/lib/"
    done

  mkdir -p "$out/media"
  gst-launch-1.0 -q videotestsrc num-buffers=$clip_frames pattern=ball \
    horizontal-speed=8 ! "video/x-raw,format=I420,width=$clip_width,height=$clip_height,framerate=30/1" \
    ! x264enc speed-preset=ultrafast key-int-max=30 bitrate=3000 \
    ! h264parse ! mp4mux ! filesink location="$out/media/clip.mp4"

  local size
  size=$(du -sm "$out" | cut -f1)
  [ "$size" -lt 60 ] || die "$out is $size MiB: the device tool carries 64 MiB"
  say "packed $out ($size MiB); there: tests/gpu-debian13-cuda.sh run, carry [\"${out#"$project"/}\"]"
}

run_there() {
  if [ ! -x "$out/run" ] || [ ! -x "$out/bin/check-cuda" ] || [ ! -s "$out/media/clip.mp4" ]; then
    die "no packed runtime in $out: run \`$0 prepare\` on the build machine and carry it"
  fi
  local nv d failed=0
  tmp=$(mktemp -d -t clf-gpu-debian13.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT

  # Only the NVIDIA OpenCL driver: the machine's other ICDs were built
  # against its own libraries, not the root's.
  nv=""
  for d in /usr/lib/x86_64-linux-gnu /usr/lib /usr/local/nvidia/lib64; do
    [ -e "$d/libnvidia-opencl.so.1" ] && { nv=$d/libnvidia-opencl.so.1; break; }
  done
  [ -n "$nv" ] || die "no libnvidia-opencl.so.1: not an NVIDIA machine?"
  mkdir -p "$tmp/icd"
  echo "$nv" >"$tmp/icd/nvidia.icd"

  # The gst-check environment of tests/meson.build, by hand: our registry,
  # no plugin scanner process (the root's loader is called directly), no
  # system plugins but the packed ones.
  unset LD_LIBRARY_PATH GST_PLUGIN_SCANNER GST_PLUGIN_PATH_1_0 \
    GST_PLUGIN_SYSTEM_PATH_1_0 GST_REGISTRY_1_0 GST_CHECKS GST_CHECKS_IGNORE
  export OCL_ICD_VENDORS=$tmp/icd GST_REGISTRY=$tmp/registry.bin \
    GST_REGISTRY_FORK=no GST_PLUGIN_PATH=$out/own \
    XDG_CACHE_HOME=$tmp/cache CK_DEFAULT_TIMEOUT=300

  say "a) the cuda check test (GStreamer $("$out/run" gst-inspect-1.0 --version \
    | sed -n 's/^GStreamer //p'))"
  if GST_DEBUG='clfilter:3,*:1' GST_TRACERS=leaks "$out/run" check-cuda \
      >"$tmp/check.log" 2>&1; then
    if grep -q '^SKIP' "$tmp/check.log"; then
      grep '^SKIP' "$tmp/check.log" | head -n 3
      echo "FAILED a): skipped, so nothing ran in CUDA memory"
      failed=1
    else
      grep -E '^[0-9]+%: Checks' "$tmp/check.log"
      echo "passed a)"
    fi
  else
    tail -n 40 "$tmp/check.log"
    echo "FAILED a)"
    failed=1
  fi

  say "b) nvh264dec ! clfilter mode=laplace ! fakesink in CUDA memory, $clip_frames frames"
  "$out/run" gst-launch-1.0 -m filesrc location="$out/media/clip.mp4" \
    ! qtdemux ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' \
    ! clfilter mode=laplace stats-interval=1 ! fakesink >"$tmp/launch.log" 2>&1 \
    || { tail -n 30 "$tmp/launch.log"; echo "FAILED b): the pipeline failed"; failed=1; }
  # One line per frame: its device copies, host copies and passthrough.
  grep 'clfilter-stats' "$tmp/launch.log" | sed -n \
    's/.*passthrough=(boolean)\([a-z]*\).* copies=(uint)\([0-9]*\), device-copies=(uint)\([0-9]*\).*/\3 \2 \1/p' \
    >"$tmp/frames"
  local frames bad device
  frames=$(wc -l <"$tmp/frames")
  bad=$(awk '$1 > 2 || $2 != 0 || $3 != "false"' "$tmp/frames" | wc -l)
  device=$(grep -m1 -o 'clfilter-stats.*device=(string)[^,]*' "$tmp/launch.log" \
    | sed 's/.*device=(string)//; s/\\//g; s/"//g' || true)
  say "device $device; device copies per frame: $(cut -d' ' -f1 "$tmp/frames" \
    | sort | uniq -c | awk '{ printf "%s%s x %s", s, $1, $2; s = ", " }')"
  if [ "$frames" -eq "$clip_frames" ] && [ "$bad" -eq 0 ]; then
    echo "passed b): $frames frames, each with device-copies <= 2 and copies 0"
  else
    grep -m3 'clfilter-stats' "$tmp/launch.log" || true
    echo "FAILED b): $frames of $clip_frames frames reported, $bad with device-copies > 2, copies != 0 or passthrough"
    failed=1
  fi
  [ "$failed" -eq 0 ] || exit 1
  say "all passed"
}

case ${1:-} in
  prepare) prepare ;;
  run) run_there ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
