#!/usr/bin/python3
"""OpenCV's box blur and 3x3 sharpen, timed per call, for comparison with
clfilter (cv2.blur and cv2.filter2D with BORDER_REFLECT_101 do the work of
clfilter's blur and laplace with border=mirror; OpenCV rounds its own way,
so the bytes are not compared).

Usage: opencv-bench.py [--sizes 1280x720,3840x2160] [--radii 7,31] [--reps N]
                       [--depth 8|16] [--channels 4|1] [--backends cpu,opencl]

One tab-separated line per case on stdout:
  backend  device  function  size  radius  median-ms  frames/s  depth
backend "cpu" runs on numpy arrays; "opencl" on cv2.UMat with
cv2.ocl.finish() after every call, so the time is the device's whole call.
Frames are 4-channel uint8 by default (OpenCV filters all four channels,
alpha too); --depth 16 makes them uint16, --channels 1 gray.
"""
import argparse
import os
import statistics
import sys
import time

# With a configuration string and no device type, OpenCV tries GPUs, then
# CPUs (like clfilter's device=auto); left unset it takes GPUs only, and on
# a machine with PoCL alone it would silently run the "OpenCL" cases on the CPU.
os.environ.setdefault("OPENCV_OPENCL_DEVICE", "::")
import cv2  # noqa: E402
import numpy as np  # noqa: E402

SHARPEN = np.array([[-1, -1, -1], [-1, 9, -1], [-1, -1, -1]], np.float32)
BORDER = cv2.BORDER_REFLECT_101


def median_ms(call, sync, reps):
    """Median wall time of one call, after two warm-up calls (kernel builds)."""
    times = []
    for i in range(reps + 2):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times[2:])


def cases(sizes, radii):
    """(function label, radius, call taking src and dst) for every case."""
    for size in sizes:
        for r in radii:
            k = 2 * r + 1
            yield size, "blur", r, lambda s, d, k=k: cv2.blur(
                s, (k, k), dst=d, borderType=BORDER)
        yield size, "filter2D sharpen", "-", lambda s, d: cv2.filter2D(
            s, -1, SHARPEN, dst=d, borderType=BORDER)


def backends(wanted):
    """(name, device, wrap a numpy frame, sync) for every backend usable."""
    if "cpu" in wanted:
        yield ("cpu", f"CPU, {cv2.getNumThreads()} threads",
               lambda a: a, lambda: None)
    if "opencl" not in wanted:
        return
    cv2.ocl.setUseOpenCL(True)
    if cv2.ocl.useOpenCL():
        yield ("opencl", cv2.ocl.Device.getDefault().name(),
               cv2.UMat, cv2.ocl.finish)
    else:
        print("opencv-bench: OpenCV has no OpenCL device; "
              "OpenCL cases skipped", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1280x720,3840x2160")
    parser.add_argument("--radii", default="7,31")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--depth", type=int, choices=(8, 16), default=8)
    parser.add_argument("--channels", type=int, choices=(1, 4), default=4)
    parser.add_argument("--backends", default="cpu,opencl")
    args = parser.parse_args()
    dtype = np.uint8 if args.depth == 8 else np.uint16
    sizes = [tuple(map(int, s.split("x"))) for s in args.sizes.split(",")]
    radii = [int(r) for r in args.radii.split(",")]

    rng = np.random.default_rng(1)
    print("backend\tdevice\tfunction\tsize\tradius\tmedian-ms\tframes/s")
    for name, device, wrap, sync in backends(args.backends.split(",")):
        for (w, h), label, r, filt in cases(sizes, radii):
            shape = (h, w, args.channels) if args.channels > 1 else (h, w)
            src = wrap(rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype))
            dst = wrap(np.empty(shape, dtype))
            ms = median_ms(lambda: filt(src, dst), sync, args.reps)
            print(f"{name}\t{device}\t{label}\t{w}x{h}\t{r}\t{ms:.3f}"
                  f"\t{1e3 / ms:.1f}\t{args.depth}-bit", flush=True)


if __name__ == "__main__":
    main()
