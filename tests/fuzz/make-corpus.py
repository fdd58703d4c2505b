#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-plan (tests/fuzz/corpus/), one file per
case, in the input layout fuzz-plan.c describes: the formats the element
uses (GRAY8, RGBA, ARGB, RGB, I420, NV12), every mode and both borders,
radii from 0 to CLF_MAX_RADIUS, source planes in device buffers, and each
kind of invalid request.  Pixel bytes are a fixed pseudo-random sequence,
so the files are the same at every run.

Usage: tests/fuzz/make-corpus.py [DIR]"""
import os
import random
import sys

BOX, SEPARABLE, SLIDING, LAPLACE = range(4)
CLAMP, MIRROR = range(2)
NO_INVALID = 255


def plane(w, h, bpp, blur, laplace, src_pad=0, dst_pad=0, device=False):
    layout = src_pad | dst_pad << 3 | (1 << 6 if device else 0)
    return [w - 1, h - 1, bpp - 1, blur, laplace, layout]


def frame(mode, border, radius_class):
    return [mode, border, radius_class]


def valid(planes, frames, pixels):
    data = [NO_INVALID, len(planes) - 1]
    for p in planes:
        data += p
    data.append(len(frames) - 1)
    for f in frames:
        data += f
    rng = random.Random(len(data) * 7919 + sum(data))
    return bytes(data) + bytes(rng.randrange(256) for _ in range(pixels))


def invalid(case, *extra):
    return bytes([case, 12, 9] + list(extra))


def seeds():
    # GRAY8 at the sizes of the engine matrix, every mode.
    for w, h in ((1, 1), (1, 7), (7, 1), (13, 11)):
        for mode in range(4):
            yield "gray-%dx%d-%d" % (w, h, mode), valid(
                [plane(w, h, 1, 1, 1, 3, 5)],
                [frame(mode, mode % 2, 2)], w * h + 3 * h)
    # Packed RGB: alpha first or last, 3-byte pixels.
    yield "rgba-sliding", valid([plane(31, 9, 4, 0x7, 0x7, 7, 1)],
                                [frame(SLIDING, MIRROR, 150)], 31 * 9 * 4)
    yield "argb-separable", valid([plane(17, 5, 4, 0xE, 0xE, 0, 6)],
                                  [frame(SEPARABLE, CLAMP, 5),
                                   frame(LAPLACE, MIRROR, 0)], 17 * 5 * 4)
    yield "rgb-box", valid([plane(7, 6, 3, 0x7, 0x7, 2, 2)],
                           [frame(BOX, MIRROR, 3)], 7 * 6 * 3)
    # Planar and semi-planar YUV, laplace on luma only.
    yield "i420", valid([plane(13, 11, 1, 1, 1, 1, 2),
                         plane(7, 6, 1, 1, 0, 3, 0),
                         plane(7, 6, 1, 1, 0, 0, 3)],
                        [frame(SLIDING, CLAMP, 2), frame(LAPLACE, CLAMP, 0),
                         frame(BOX, MIRROR, 1)], 200)
    yield "nv12-device", valid([plane(20, 10, 1, 1, 1, 4, 1, True),
                                plane(10, 5, 2, 3, 0, 1, 4, True)],
                               [frame(SEPARABLE, MIRROR, 140)], 300)
    yield "four-planes", valid([plane(9, 9, 1, 1, 1), plane(5, 5, 2, 2, 1),
                                plane(5, 5, 3, 5, 2, 0, 0, True),
                                plane(3, 3, 4, 9, 6)],
                               [frame(SLIDING, MIRROR, 4)], 250)
    # Radii far beyond the frame, up to CLF_MAX_RADIUS.
    yield "tiny-max-radius", valid([plane(2, 3, 1, 1, 1)],
                                   [frame(SLIDING, MIRROR, 255),
                                    frame(SEPARABLE, CLAMP, 255)], 6)
    yield "large-radius", valid([plane(40, 40, 1, 1, 1, 7, 7)],
                                [frame(SLIDING, CLAMP, 240)], 1600)
    # Every kind of refusal: bpp 5, width 0, height 0, a mask beyond the
    # pixel, 0 or 5 planes, radius and mode out of range, a short stride,
    # a plane beyond its device buffer.
    for case in range(9):
        yield "invalid-%d" % case, invalid(case, 1, 1)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
