#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-plan (tests/fuzz/corpus/), one file per
case, in the input layout fuzz-plan.c describes: the formats the element
uses (GRAY8, RGBA, ARGB, RGB, I420, NV12, and 16-bit, 10-bit, 12-bit
big-endian, P010-like and packed 4:2:2 layouts), every mode and both borders,
radii from 0 to CLF_MAX_RADIUS, source planes in device buffers, each
kind of invalid request, and planes laid out as a lying video meta may.  Pixel bytes are a fixed pseudo-random sequence,
so the files are the same at every run.

Usage: tests/fuzz/make-corpus.py [DIR]"""
import os
import random
import sys

BOX, SEPARABLE, SLIDING, LAPLACE = range(4)
CLAMP, MIRROR = range(2)
NO_INVALID = 255


# A plane's kind, above its samples a pixel - 1: 16-bit words, their
# depth and shift (0: 16 bits, 1: 10 low, 2: 10 high, 3: 12 shifted by 4),
# big-endian, packed 4:2:2 (luma every 2 samples, U and V every 4).
WIDE, BIG_ENDIAN, PACKED_422 = 4, 32, 64


def value_class(c):
    return c << 3


def plane(w, h, bpp, blur, laplace, src_pad=0, dst_pad=0, device=False,
          kind=0):
    layout = src_pad | dst_pad << 3 | (1 << 6 if device else 0)
    return [w - 1, h - 1, (bpp - 1) | kind, blur, laplace, layout]


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


LAYOUT = 16
FITS, SHORT, NEGATIVE, PAST_32_BITS, WRAPS, RAW = 0, 2, 3, 4, 5, 6


def layout(w, h, bpp, dst=False, device=False, mode=SLIDING, radius=1,
           stride=FITS, small=0, raw=0, room=None, offset=0, kind=0):
    """One plane laid out as an untrusted video meta may (check_layout)."""
    how = int(dst) | int(device) << 1 | mode << 2
    data = [LAYOUT, w - 1, h - 1, (bpp - 1) | kind, how, radius, stride,
            small]
    if stride == RAW:
        data += list(raw.to_bytes(8, "big"))
    word = 2 if kind & WIDE else 1
    room = w * bpp * word * h * 2 if room is None else room
    data += [(room - 1) >> 8, (room - 1) & 255, offset]
    rng = random.Random(sum(data))
    return bytes(data) + bytes(rng.randrange(256) for _ in range(room + 64))


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
    # Deeper samples and packed 4:2:2, as the element's 10-, 12- and 16-bit
    # and YUY2-like formats give them.
    yield "gray16", valid([plane(13, 11, 1, 1, 1, 1, 2, kind=WIDE)],
                          [frame(SLIDING, MIRROR, 150),
                           frame(LAPLACE, CLAMP, 0)], 13 * 11 * 2 + 40)
    yield "i420-10", valid([plane(13, 11, 1, 1, 1, 1, 2,
                                  kind=WIDE | value_class(1)),
                            plane(7, 6, 1, 1, 0, 3, 0,
                                  kind=WIDE | value_class(1)),
                            plane(7, 6, 1, 1, 0, 0, 3,
                                  kind=WIDE | value_class(1))],
                           [frame(SEPARABLE, CLAMP, 3),
                            frame(LAPLACE, MIRROR, 0)], 400)
    yield "p010-device", valid([plane(20, 10, 1, 1, 1, 4, 1, True,
                                      kind=WIDE | value_class(2)),
                                plane(10, 5, 2, 3, 0, 1, 4, True,
                                      kind=WIDE | value_class(2))],
                               [frame(SLIDING, CLAMP, 240)], 600)
    yield "rgba64-be", valid([plane(9, 7, 4, 0x7, 0x7, 2, 3,
                                    kind=WIDE | BIG_ENDIAN)],
                             [frame(BOX, MIRROR, 2), frame(LAPLACE, CLAMP, 0)],
                             9 * 7 * 8 + 40)
    yield "gray12-be-max-radius", valid(
        [plane(5, 3, 1, 1, 1, kind=WIDE | BIG_ENDIAN | value_class(3))],
        [frame(SLIDING, MIRROR, 255)], 40)
    yield "yuy2-odd", valid([plane(13, 5, 1, 3, 1, 1, 2,
                                   kind=PACKED_422)],
                            [frame(SEPARABLE, MIRROR, 4),
                             frame(LAPLACE, CLAMP, 0)], 14 * 5 * 2 + 20)
    yield "y210-device", valid([plane(9, 4, 1, 3, 1, 2, 1, True,
                                      kind=PACKED_422 | WIDE | value_class(2))],
                               [frame(SLIDING, CLAMP, 130)], 10 * 4 * 4 + 20)
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
    # Planes laid out as a lying GstVideoMeta may: ones that fit, and a
    # stride of 4096 in 256 bytes, an offset past the end, negative,
    # 32-bit and wrapping strides, in host memory and device buffers.
    yield "layout-fits", layout(13, 11, 1, stride=FITS, small=3)
    yield "layout-fits-device-dst", layout(9, 7, 4, dst=True, device=True,
                                           small=5, offset=17)
    yield "layout-stride-4096", layout(40, 4, 1, stride=RAW, raw=4096,
                                       room=256)
    yield "layout-offset-past", layout(40, 4, 1, device=True, room=256,
                                       offset=200)
    yield "layout-negative", layout(16, 4, 1, dst=True, stride=NEGATIVE,
                                    small=3)
    yield "layout-past-32-bits", layout(8, 8, 2, device=True,
                                        stride=PAST_32_BITS)
    yield "layout-wraps", layout(7, 5, 3, dst=True, stride=WRAPS, small=1)
    yield "layout-short", layout(13, 3, 4, stride=SHORT, small=2,
                                 mode=LAPLACE)
    # 16-bit words in a device buffer: on their alignment, and off it.
    yield "layout-wide-fits-device", layout(9, 5, 2, device=True, small=2,
                                            offset=18, kind=WIDE)
    yield "layout-wide-odd-offset", layout(9, 5, 1, device=True, offset=17,
                                           kind=WIDE | value_class(2))
    yield "layout-wide-odd-stride", layout(9, 5, 1, dst=True, device=True,
                                           small=3, kind=WIDE)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
