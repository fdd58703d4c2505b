#!/usr/bin/env bash
# The movie demo.  Installs what is missing, builds, makes a 720p H.264 clip
# once if no movie is given, and plays it through
#   filesrc ! decodebin ! clfilter ! (window, or nothing when headless)
# printing every frame's OpenCL kernel time and a summary.
#
# Usage: examples/demo.sh [--mode box|separable|sliding|laplace] [--radius R]
#          [--border clamp|mirror] [--device D] [--frames N] [--headless] [MOVIE]
# Without a display (no DISPLAY/WAYLAND_DISPLAY) it runs headless.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLF_BUILD_DIR:-$root/build}

args=() movie=
while [ $# -gt 0 ]; do
  case "$1" in
    --mode|--radius|--border|--device|--frames) args+=("$1" "$2"); shift 2 ;;
    -*) args+=("$1"); shift ;;
    *) movie=$1; shift ;;
  esac
done

"$root/tests/install-deps.sh"
[ -f "$build/build.ninja" ] || meson setup "$build" "$root"
ninja -C "$build"
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

if [ -z "$movie" ]; then
  movie=$root/examples/media/clip-720p.mp4
  if [ ! -s "$movie" ]; then
    echo "Making a 10 s 720p H.264 clip (once): $movie"
    mkdir -p "$(dirname "$movie")"
    # A moving zone plate: fine detail everywhere, so blur and sharpening show.
    gst-launch-1.0 -q videotestsrc num-buffers=300 pattern=zone-plate \
        kx2=20 ky2=20 kt=1 \
      ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 \
      ! timeoverlay font-desc="Sans 48" \
      ! x264enc speed-preset=veryfast bitrate=8000 key-int-max=30 \
      ! mp4mux ! filesink location="$movie.part"
    mv "$movie.part" "$movie"
  fi
fi

exec "$build/examples/clfilter-demo" "${args[@]}" "$movie"
