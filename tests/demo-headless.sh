#!/usr/bin/env bash
# The demo without a window (examples' clfilter-demo --headless): the frame
# lines name the settings (laplace has no radius; convolve names its
# preset), the summary's real-time verdict agrees with its frame rate, and
# the PNG goes to the temporary directory, or where --png says, never into
# the current directory unasked, and its full path is printed.  And
# examples/demo.sh refuses an option given without its value.
# Usage: tests/demo-headless.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$1" && pwd)
demo=$build/examples/clfilter-demo
clip=$("$root/examples/make-clip.sh" "$build/tests/clip-360p-30s.mp4" 30 640x360)
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
. "$root/tests/demo-lib.sh"

work=$(cd "$(mktemp -d)" && pwd -P)       # as the demo's getcwd() sees it
trap 'rm -rf "$work"' EXIT
mkdir "$work/cwd" "$work/tmp"
cd "$work/cwd"

# examples/demo.sh: each option that takes a value, given none (the last
# argument, or another option next), is a usage error that names it (exit
# 2), before anything is installed or built (a build dir of its own, in
# case it went on).
for opt in --mode --preset --radius --border --device --frames --png; do
  for args in "$opt" "$opt --headless"; do
    status=0
    # shellcheck disable=SC2086  # $args: one or two words
    err=$(CLF_BUILD_DIR=$work/demo-sh-build timeout 60 \
      "$root/examples/demo.sh" $args 2>&1 >/dev/null) || status=$?
    [ "$status" -eq 2 ] && grep -q -- "^demo.sh: $opt needs a value$" <<<"$err" \
      || fail "examples/demo.sh $args: exit status $status, not 2 with \
'demo.sh: $opt needs a value'; it said: $err"
  done
done

log=$work/laplace.log
TMPDIR=$work/tmp timeout 120 "$demo" --headless --mode laplace --frames 10 \
  "$clip" >"$log" 2>&1 || fail "--headless --frames 10 failed" "$log"
check_frames "$log" 10 'laplace clamp'
check_account "$log" 10
check_verdict "$log"
png=$(sed -n 's/^picture of frame [0-9]* (original | filtered): //p' "$log")
[ "$png" = "$work/tmp/clfilter-demo-laplace.png" ] \
  || fail "the PNG is not \$TMPDIR/clfilter-demo-laplace.png with its full path" "$log"
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] \
  || fail "$png is not a PNG" "$log"
[ -z "$(ls -A)" ] || fail "the demo wrote into the current directory: $(ls -A)" "$log"

# --png: a relative path is the current directory's, printed in full; a blur
# names its radius.
log=$work/sliding.log
mkdir out
timeout 120 "$demo" --headless --mode sliding --radius 3 --frames 4 \
  --png out/side.png "$clip" >"$log" 2>&1 || fail "--png out/side.png failed" "$log"
check_frames "$log" 4 'sliding r=3 clamp'
check_account "$log" 4
grep -qx "picture of frame 2 (original | filtered): $work/cwd/out/side.png" "$log" \
  && [ -s out/side.png ] || fail "--png out/side.png: not written there, or not named in full" "$log"

# mode=convolve names its preset in place of a radius.
log=$work/convolve.log
TMPDIR=$work/tmp timeout 120 "$demo" --headless --mode convolve \
  --preset motion-blur --frames 4 "$clip" >"$log" 2>&1 \
  || fail "--mode convolve --preset motion-blur failed" "$log"
check_frames "$log" 4 'convolve motion-blur clamp'
check_account "$log" 4
# A 10-bit clip goes into clfilter as the decoder gives it (I420_10LE): no
# videoconvert in the pipeline.
clip10=$("$root/examples/make-clip.sh" "$build/tests/clip-360p-2s-10bit.mp4" 2 640x360 I420_10LE)
log=$work/10bit.log
TMPDIR=$work/tmp timeout 120 "$demo" --headless --frames 6 "$clip10" >"$log" 2>&1 \
  || fail "--headless on the 10-bit clip failed" "$log"
check_frames "$log" 6 'laplace clamp'
check_account "$log" 6
grep -qx '  formats: I420_10LE into the filter, I420_10LE out of it' "$log" \
  && ! grep -q '^pipeline: .*videoconvert' "$log" \
  || fail "the 10-bit clip did not go through clfilter as I420_10LE, or a videoconvert is in the pipeline" "$log"
echo "demo-headless: frame lines, verdict and PNG paths as they should be; the 10-bit clip as I420_10LE"
