#!/usr/bin/env bash
# Makes the project's default movie once: 10 s of 720p H.264 with fine
# detail everywhere (a moving zone plate) and a running clock, so blur and
# sharpening show.  Prints its path.  Needs GStreamer with x264enc.  FORMAT
# is what x264enc encodes: I420 (High), I420_10LE (High 10), Y42B...
# Usage: examples/make-clip.sh [PATH [SECONDS [WIDTHxHEIGHT [FORMAT]]]]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
movie=${1:-$root/examples/media/clip-720p.mp4}
seconds=${2:-10}
size=${3:-1280x720}
format=${4:-I420}
if [ ! -s "$movie" ]; then
  echo "Making a ${seconds} s ${size} ${format} H.264 clip (once): $movie" >&2
  mkdir -p "$(dirname "$movie")"
  # A part file of its own: the demo tests may make the same clip at once.
  part=$(mktemp "$movie.XXXXXX")
  trap 'rm -f "$part"' EXIT
  gst-launch-1.0 -q videotestsrc num-buffers=$((seconds * 30)) pattern=zone-plate \
      kx2=20 ky2=20 kt=1 \
    ! "video/x-raw,format=I420,width=${size%x*},height=${size#*x},framerate=30/1" \
    ! timeoverlay font-desc="Sans 48" ! videoconvert ! "video/x-raw,format=$format" \
    ! x264enc speed-preset=veryfast bitrate=8000 key-int-max=30 \
    ! mp4mux ! filesink location="$part" >&2
  chmod 644 "$part"             # mktemp made it 0600
  mv "$part" "$movie"
fi
echo "$movie"
