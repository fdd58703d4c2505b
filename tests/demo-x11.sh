#!/usr/bin/env bash
# The demo with a display: runs examples' clfilter-demo in a virtual X
# server (Xvfb), presses its keys with xdotool, takes a screenshot with
# GStreamer's ximagesrc, and checks that every key acted: the key lines, the
# clfilter-stats of later frames in the new mode, radius (or convolve's
# preset) and border, and the overlay's text on the screenshot.  Then it
# plays 30 frames with --frames 30 and checks that the demo ends by itself.
# Both runs must account for every frame that reached the filter: filtered
# and printed, or dropped as late.  The sink keeps the clock, so a busy
# machine drops more frames; nothing here counts on how many.  Last, a
# 10-bit clip plays in the window with no videoconvert in the pipeline.
# Usage: tests/demo-x11.sh BUILD_DIR [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$1" && pwd)
out=${2:-$build/tests/demo-x11}
mkdir -p "$out"

if [ -z "${CLF_IN_XVFB:-}" ]; then
  for tool in xvfb-run xdotool; do
    command -v "$tool" >/dev/null || {
      echo "demo-x11: $tool is missing (tests/install-deps.sh installs it)" >&2
      exit 1
    }
  done
  clip=$("$root/examples/make-clip.sh" "$build/tests/clip-360p-30s.mp4" 30 640x360)
  # -noreset: by default Xvfb resets when its last client leaves.  The demo
  # is its first client, and autovideosink's first try, xvimagesink, opens
  # the display, finds no XVideo and closes it: ximagesink then opened the
  # display during the reset and failed ("Could not open display"), 1 run
  # in 20 under load.
  # A runtime directory of the test's own (mode 0700, removed at the end):
  # the GL and Wayland libraries glimagesink loads look for one, and said
  # "error: XDG_RUNTIME_DIR is invalid" where none was set.
  runtime=$(mktemp -d -t clf-demo-x11-runtime.XXXXXX)
  chmod 700 "$runtime"
  trap 'rm -rf "$runtime"' EXIT
  CLF_IN_XVFB=1 CLF_CLIP="$clip" XDG_RUNTIME_DIR=$runtime xvfb-run -a \
    -s "-screen 0 1280x720x24 -noreset" "$0" "$build" "$out"
  exit 0
fi

. "$root/tests/demo-lib.sh"
log=$out/demo.log
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
"$build/examples/clfilter-demo" --mode sliding --radius 7 "$CLF_CLIP" \
  >"$log" 2>&1 &
demo=$!

wait_for() {                    # wait_for PATTERN: up to 60 s in the log
  for _ in $(seq 600); do
    grep -q -- "$1" "$log" && return 0
    kill -0 "$demo" 2>/dev/null || break
    sleep 0.1
  done
  fail "never saw '$1' in the demo's output:" "$log"
}

# Keys go to the window that has the input focus, or with none set, to the
# one under the pointer: pressed before the demo's window was mapped, a key
# went to the root window and was lost.  So wait for the window (the sinks
# select key input on it before mapping it) and give it the focus; the keys
# are then real key events (XTEST), as a user's are.  The window is the
# demo's process's (_NET_WM_PID) and titled as the demo, whichever sink
# autovideosink took: ximagesink or xvimagesink title theirs so, and the
# demo titles glimagesink's (the GL plugins installed, no XVideo: Xvfb).
visible_windows() {             # their titles, for a failure's message
  local w
  for w in $(xdotool search --onlyvisible --name '.' 2>/dev/null); do
    echo "'$(xdotool getwindowname "$w")' (process $(xdotool getwindowpid \
      "$w" 2>/dev/null || echo unknown))"
  done | paste -sd' '
}
window='' seen=''
for i in $(seq 600); do         # up to 60 s
  window=$(xdotool search --all --onlyvisible --pid "$demo" \
    --name '^clfilter-demo$' 2>/dev/null | head -n 1) || true
  [ -z "$window" ] || break
  kill -0 "$demo" 2>/dev/null || break
  [ $((i % 10)) -ne 0 ] || seen=$(visible_windows)
  sleep 0.1
done
[ -n "$window" ] || fail "the demo's window never appeared: no visible \
window of process $demo titled clfilter-demo; visible windows: \
${seen:-none}" "$log"
xdotool windowfocus --sync "$window"
wait_for '^frame .* sliding r=7 clamp'
press() {                       # press KEY EXPECTED-LINE
  xdotool key "$1"
  wait_for "$2"
}
press 4 'key: mode laplace'
wait_for '^frame .* laplace clamp$'
press s 'key: side by side on'
press plus 'key: radius 8'
press b 'key: border mirror'
press 2 'key: mode separable'
wait_for '^frame .* separable r=8 mirror'
# The overlay shows: side by side, the pictures fill rows 180 to 539, and
# the rows above them are black but for the overlay's white text.  The
# rows below are black too, or the screenshot is not of that view.  Under
# load the sink and the compositor drop late frames, so the view on the
# screen may be older than the last frame line: take screenshots until it
# is this one, for up to 60 s.
overlay_shows() {
  gst-launch-1.0 -q ximagesrc num-buffers=1 ! videoconvert ! pngenc \
    ! filesink location="$out/screenshot.png" || return 1
  gst-launch-1.0 -q filesrc location="$out/screenshot.png" ! pngdec \
    ! videoconvert ! video/x-raw,format=GRAY8,width=1280,height=720 \
    ! filesink location="$out/screenshot.gray" || return 1
  od -An -v -tu1 -w1280 "$out/screenshot.gray" | awk '
    NR <= 175 { for (i = 1; i <= NF; i++) above += $i >= 200 }
    NR >= 545 { for (i = 1; i <= NF; i++) below += $i >= 200 }
    END {
      printf "%d rows; bright pixels above the pictures: %d (text: 500 or " \
        "more), below them: %d (none)\n", NR, above, below
      exit !(NR == 720 && above >= 500 && below == 0)
    }' >"$out/screenshot.txt"
}
shown=
for _ in $(seq 60); do
  overlay_shows && { shown=1; break; }
  kill -0 "$demo" 2>/dev/null || break
  sleep 1
done
[ -n "$shown" ] || fail "no overlay text on $out/screenshot.png: \
$(cat "$out/screenshot.txt" 2>/dev/null)" "$log"
# mode=convolve: 5, then p from convolve and from another mode (p switches
# to convolve), then p round the presets, past custom, to the first.
press 5 'key: mode convolve'
wait_for '^frame .* convolve sharpen mirror$'
press p 'key: preset gaussian-3x3'
wait_for '^frame .* convolve gaussian-3x3 mirror$'
press 3 'key: mode sliding'
wait_for '^frame .* sliding r=8 mirror$'
press p 'key: preset gaussian-5x5'
wait_for '^frame .* convolve gaussian-5x5 mirror$'
for preset in motion-blur emboss sobel-x sobel-y sharpen; do
  press p "key: preset $preset"
done
press q 'key: quit'
wait "$demo"
check_account "$log"

# --frames in the window: the demo ends by itself after those frames.
frames_log=$out/frames.log
timeout 60 "$build/examples/clfilter-demo" --frames 30 "$CLF_CLIP" \
  >"$frames_log" 2>&1 || fail "--frames 30 in a window: exit status $? \
(124: still running after 60 s)" "$frames_log"
check_settings "$frames_log" 'laplace clamp'
check_account "$frames_log" 30

# A 10-bit clip (High 10, decoded as I420_10LE) in the window of
# ximagesink (autovideosink's first choice here), which takes RGB only:
# no videoconvert anywhere, clfilter filters the decoder's I420_10LE.
clip10=$("$root/examples/make-clip.sh" "$build/tests/clip-360p-2s-10bit.mp4" 2 640x360 I420_10LE)
deep_log=$out/10bit.log
GST_PLUGIN_FEATURE_RANK=ximagesink:MAX \
  timeout 60 "$build/examples/clfilter-demo" --frames 20 "$clip10" \
  >"$deep_log" 2>&1 || fail "the 10-bit clip in a window: exit status $? \
(124: still running after 60 s)" "$deep_log"
grep -q '^pipeline: ' "$deep_log" && ! grep -q '^pipeline: .*videoconvert' \
  "$deep_log" || fail "the demo's pipeline is not there, or has a videoconvert" "$deep_log"
grep -qx '  formats: I420_10LE into the filter, I420_10LE out of it' "$deep_log" \
  || fail "the 10-bit clip did not go through clfilter as I420_10LE" "$deep_log"
check_account "$deep_log" 20
echo "demo-x11: every key acted, the overlay showed, every frame was accounted for, --frames ended the window, the 10-bit clip played through clfilter as I420_10LE; screenshot $out/screenshot.png"
