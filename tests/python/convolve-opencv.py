#!/usr/bin/env python3
# mode=convolve against OpenCV's cv2.filter2D, which users already trust:
# for 8-bit frames and divisor 1 the correlation S, clamped to 0..255, is
# exactly what filter2D gives (an integer kernel's sum is exact in its
# float arithmetic), under BORDER_REPLICATE (border=clamp) and
# BORDER_REFLECT_101 (border=mirror).  Random GRAY8 and RGBA frames, random
# kernels of several sizes.  Exits 77 (meson: skipped), saying so, where
# cv2 or numpy cannot be imported.
# Run by meson (suite element) with the gst-check tests' environment.
import sys

try:
    import cv2
    import numpy as np
except ImportError as e:
    print(f"SKIP: OpenCV's python (cv2) or numpy is not installed ({e}); "
          "on Debian: apt-get install python3-opencv")
    sys.exit(77)

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401

W, H = 61, 37
BORDERS = {"clamp": cv2.BORDER_REPLICATE, "mirror": cv2.BORDER_REFLECT_101}


def run_clfilter(frame, fmt, kernel, border):
    k = ",".join(str(int(c)) for c in kernel.flatten())
    pipe = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format={fmt},"
        f"width={W},height={H},framerate=1/1 ! "
        f"clfilter mode=convolve kernel=\"<{k}>\" divisor=1 bias=0 "
        f"border={border} ! appsink name=sink sync=false")
    pipe.set_state(Gst.State.PLAYING)
    # Rows as GStreamer lays them out for these caps: padded to 4 bytes.
    row = frame.reshape(H, -1).shape[1]
    stride = (row + 3) // 4 * 4
    padded = np.zeros((H, stride), np.uint8)
    padded[:, :row] = frame.reshape(H, row)
    src = pipe.get_by_name("src")
    src.emit("push-buffer", Gst.Buffer.new_wrapped(padded.tobytes()))
    src.emit("end-of-stream")
    sample = pipe.get_by_name("sink").emit("pull-sample")
    if sample is None:
        raise SystemExit(f"{fmt}: clfilter gave no frame (see its error)")
    buf = sample.get_buffer()
    data = buf.extract_dup(0, buf.get_size())
    pipe.set_state(Gst.State.NULL)
    got = np.frombuffer(data, np.uint8).reshape(H, stride)[:, :row]
    return got.reshape(frame.shape)


def main():
    Gst.init(None)
    rng = np.random.default_rng(37)
    failures = 0
    for fmt, channels in (("GRAY8", 1), ("RGBA", 4)):
        for size in (1, 3, 7, 15):
            for border, cv_border in BORDERS.items():
                shape = (H, W) if channels == 1 else (H, W, channels)
                frame = rng.integers(0, 256, shape, np.uint8)
                kernel = rng.integers(-4, 5, (size, size)).astype(np.float32)
                got = run_clfilter(frame, fmt, kernel, border)
                want = cv2.filter2D(frame, -1, kernel, borderType=cv_border)
                if channels == 4:
                    want[..., 3] = frame[..., 3]    # alpha is copied
                bad = np.count_nonzero(got != want)
                print(f"{fmt} {size}x{size} {border}: {bad} samples differ")
                failures += bad != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
