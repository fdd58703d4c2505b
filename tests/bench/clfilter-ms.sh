# Sourced by the benches (convolve.sh, gaussian.sh): clfilter_ms SETTINGS
# prints clfilter's median kernel time (ms) with element settings SETTINGS
# (words, no spaces within one), from clfilter-summary's median-kernel-ns
# over $frames frames of one $width x $height RGBA frame of snow repeated
# (imagefreeze), so that no source draws frames on the cores the kernels
# run on while they run, on device ${DEVICE:-auto}.
clfilter_ms() {
  # shellcheck disable=SC2086 # the settings are words
  gst-launch-1.0 -m videotestsrc num-buffers=1 pattern=snow \
    ! video/x-raw,format=RGBA,width="$width",height="$height" \
    ! imagefreeze num-buffers="$frames" \
    ! clfilter $1 device="${DEVICE:-auto}" stats-interval=0 ! fakesink 2>&1 \
    | sed -n 's/.*clfilter-summary.*median-kernel-ns=(guint64)\([0-9]*\).*/\1/p' \
    | awk '{ printf "%.3f", $1 / 1e6 }'
}
