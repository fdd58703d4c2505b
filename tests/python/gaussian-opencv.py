#!/usr/bin/env python3
# mode=gaussian and mode=unsharp against OpenCV, which users already
# trust: cv2.GaussianBlur(ksize=(0, 0), sigma) on 8-bit frames under
# BORDER_REPLICATE (border=clamp) and BORDER_REFLECT_101 (border=mirror),
# on snow (random GRAY8 and RGBA) and on a frame of the demo clip decoded
# from H.264.  Up to sigma 8 clfilter takes OpenCV's own 8-bit taps: at
# most 1 apart (docs/gaussian.md); above, three boxes: PSNR >= 40 dB.
# unsharp, where the blurs agree, is checked against its definition on
# top of OpenCV's blur.  Exits 77 (meson: skipped), saying so, where cv2
# or numpy cannot be imported.
# Usage: gaussian-opencv.py ROOT BUILD   (meson's, with the gst-check
# tests' environment)
import math
import os
import subprocess
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

BORDERS = {"clamp": cv2.BORDER_REPLICATE, "mirror": cv2.BORDER_REFLECT_101}
TAPS = (0.5, 0.8, 1.0, 1.5, 2.0, 2.7, 3.0, 4.0, 4.01, 4.7, 6.0, 8.0)
BOXES = (8.01, 8.5, 9.3, 10.0, 13.0, 25.0, 50.0, 100.0)


def pull(pipe):
    sample = pipe.get_by_name("sink").emit("pull-sample")
    if sample is None:
        raise SystemExit("no frame came out (see the element's error)")
    buf = sample.get_buffer()
    caps = sample.get_caps().get_structure(0)
    return buf.extract_dup(0, buf.get_size()), caps


def unpad(data, h, row):
    """A frame from rows padded to 4 bytes, as GStreamer lays them out."""
    stride = (row + 3) // 4 * 4
    return np.frombuffer(data, np.uint8).reshape(h, stride)[:, :row]


def run_clfilter(frame, settings):
    h, w = frame.shape[:2]
    channels = 1 if frame.ndim == 2 else frame.shape[2]
    fmt = "GRAY8" if channels == 1 else "RGBA"
    pipe = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format={fmt},"
        f"width={w},height={h},framerate=1/1 ! clfilter {settings} ! "
        "appsink name=sink sync=false")
    pipe.set_state(Gst.State.PLAYING)
    row = w * channels
    stride = (row + 3) // 4 * 4
    padded = np.zeros((h, stride), np.uint8)
    padded[:, :row] = frame.reshape(h, row)
    src = pipe.get_by_name("src")
    src.emit("push-buffer", Gst.Buffer.new_wrapped(padded.tobytes()))
    src.emit("end-of-stream")
    data, _ = pull(pipe)
    pipe.set_state(Gst.State.NULL)
    return unpad(data, h, row).reshape(frame.shape)


def clip_frame(root, build):
    """Frame 15 of the demo clip (a zone plate and a clock, H.264 made at
    test time), decoded, as GRAY8."""
    clip = subprocess.run(
        [os.path.join(root, "examples", "make-clip.sh"),
         os.path.join(build, "tests", "clip-720p-1s.mp4"), "1"],
        check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    pipe = Gst.parse_launch(
        f"filesrc location={clip} ! decodebin ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! appsink name=sink sync=false")
    pipe.set_state(Gst.State.PLAYING)
    for _ in range(15):
        data, caps = pull(pipe)
    pipe.set_state(Gst.State.NULL)
    w, h = caps.get_value("width"), caps.get_value("height")
    return unpad(data, h, w).copy()


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b) ** 2)
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def unsharp_of(frame, blurred, amount, threshold):
    """docs/gaussian.md's unsharp on a given blur."""
    orig = frame.astype(np.int64)
    d = orig - blurred.astype(np.int64)
    q = int(math.floor(amount * 256 + 0.5)) * d
    step = np.where(q >= 0, (q + 128) // 256, -((-q + 128) // 256))
    out = np.where(np.abs(d) > threshold, np.clip(orig + step, 0, 255), orig)
    return out.astype(np.uint8)


def main():
    Gst.init(None)
    root, build = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(49)
    frames = {
        "snow GRAY8 161x97": rng.integers(0, 256, (97, 161), np.uint8),
        "snow RGBA 67x45": rng.integers(0, 256, (45, 67, 4), np.uint8),
        "clip frame GRAY8": clip_frame(root, build),
    }
    failures = 0
    for name, frame in frames.items():
        colours = frame if frame.ndim == 2 else frame[..., :3]
        for border, cv_border in BORDERS.items():
            for sigma in TAPS + BOXES:
                got = run_clfilter(frame, f"mode=gaussian sigma={sigma} "
                                   f"border={border}")
                if frame.ndim == 3:
                    if not np.array_equal(got[..., 3], frame[..., 3]):
                        print(f"{name} sigma={sigma}: alpha not copied")
                        failures += 1
                    got = got[..., :3]
                want = cv2.GaussianBlur(colours, (0, 0), sigma,
                                        borderType=cv_border)
                diff = np.abs(got.astype(int) - want)
                p = psnr(got, want)
                ok = diff.max() <= 1 if sigma in TAPS else p >= 40
                print(f"{name} {border} sigma={sigma}: max {diff.max()}, "
                      f"{np.count_nonzero(diff)} of {diff.size} differ, "
                      f"PSNR {p:.1f} dB{'' if ok else '  FAIL'}")
                failures += not ok
            for sigma, amount, threshold in ((1.0, 1.0, 0), (2.7, 0.5, 4),
                                             (4.0, 3.25, 0)):
                got = run_clfilter(frame, f"mode=unsharp sigma={sigma} "
                                   f"amount={amount} threshold={threshold} "
                                   f"border={border}")
                got = got if frame.ndim == 2 else got[..., :3]
                want = unsharp_of(colours, cv2.GaussianBlur(
                    colours, (0, 0), sigma, borderType=cv_border),
                    amount, threshold)
                diff = np.abs(got.astype(int) - want)
                ok = diff.max() <= 1
                print(f"{name} {border} unsharp sigma={sigma} "
                      f"amount={amount} threshold={threshold}: max "
                      f"{diff.max()}, {np.count_nonzero(diff)} differ"
                      f"{'' if ok else '  FAIL'}")
                failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
