#!/usr/bin/env bash
# The movie demo.  Installs what is missing, builds, makes a 720p H.264 clip
# once if no movie is given, and plays it through
#   filesrc ! decodebin ! clfilter ! (window, or nothing when headless)
# printing every frame's OpenCL kernel time and a summary.
#
# Usage: examples/demo.sh [--mode box|separable|sliding|laplace|convolve|
#          gaussian|unsharp] [--preset P] [--radius R] [--sigma S]
#          [--amount A] [--border clamp|mirror] [--device D]
#          [--frames N] [--headless] [--png PATH] [MOVIE]
# Without a display (no DISPLAY/WAYLAND_DISPLAY) it runs headless.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}

usage="usage: examples/demo.sh [--mode box|separable|sliding|laplace|convolve|
         gaussian|unsharp] [--preset P] [--radius R] [--sigma S] [--amount A]
         [--border clamp|mirror] [--device D]
         [--frames N] [--headless] [--png PATH] [MOVIE]"

# An option without its value (the last argument, or another option next)
# is a usage error, before anything is installed or built.
args=() movie=
while [ $# -gt 0 ]; do
  case "$1" in
    --mode|--preset|--radius|--sigma|--amount|--border|--device|--frames|--png)
      if [ $# -lt 2 ] || [[ $2 == --* ]]; then
        printf 'demo.sh: %s needs a value\n%s\n' "$1" "$usage" >&2
        exit 2
      fi
      args+=("$1" "$2"); shift 2 ;;
    -*) args+=("$1"); shift ;;
    *) movie=$1; shift ;;
  esac
done

"$root/tests/install-deps.sh" --demo
[ -f "$build/build.ninja" ] || meson setup "$build" "$root"
ninja -C "$build"
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

[ -n "$movie" ] || movie=$("$root/examples/make-clip.sh")

exec "$build/examples/clfilter-demo" "${args[@]}" "$movie"
