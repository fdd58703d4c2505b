#!/usr/bin/env python3
"""Where OpenCV's cv2.blur and cv2.filter2D differ from clfilter's exact
integer arithmetic (docs/formats.md): out = (S + N/2) // N on the exact
window sum S of N = (2r+1)^2 values, and clamp(9c - ring, 0, max) for the
3x3 sharpen.  The exact results come from numpy's cumulative sums in
64-bit integers, on random uint8, uint16 and 10-bit-in-uint16 images:
60x90 for clamp (BORDER_REPLICATE), larger than the window for mirror
(BORDER_REFLECT_101).

Usage: opencv-exactness.py          (numpy and cv2 importable)
One line per case: data, radius, border, samples that differ / samples,
the largest difference, and an example."""
import cv2
import numpy as np

cv2.setNumThreads(1)
rng = np.random.default_rng(7)
BORDERS = {'clamp': cv2.BORDER_REPLICATE, 'mirror': cv2.BORDER_REFLECT_101}
RADII = [1, 2, 9, 31, 90, 91, 127, 128, 140, 255, 511, 1023]
SHARPEN = np.array([[-1, -1, -1], [-1, 9, -1], [-1, -1, -1]], np.float32)


def padded(a, r, border):
    return np.pad(a.astype(np.int64), r,
                  mode='edge' if border == 'clamp' else 'reflect')


def exact_blur(a, r, border):
    c = np.pad(padded(a, r, border).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    k = 2 * r + 1
    s = c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]
    return (s + k * k // 2) // (k * k), s


def exact_laplace(a, border, top):
    p = padded(a, 1, border)
    h, w = a.shape
    ring = sum(p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
               for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    return np.clip(9 * a.astype(np.int64) - ring, 0, top)


def compare(dtype, top, name):
    for r in RADII:
        for border in BORDERS:
            side = 2 * r + 3 if border == 'mirror' else 0
            shape = (max(side, 64), max(side, 64)) if side else (60, 90)
            a = rng.integers(0, top + 1, size=shape).astype(dtype)
            want, s = exact_blur(a, r, border)
            got = cv2.blur(a, (2 * r + 1, 2 * r + 1),
                           borderType=BORDERS[border]).astype(np.int64)
            differ = got != want
            example = ''
            if differ.any():
                i = tuple(np.argwhere(differ)[0])
                example = 'e.g. S=%d N=%d exact %d opencv %d' % (
                    s[i], (2 * r + 1) ** 2, want[i], got[i])
            print('%-7s r=%-4d %-6s %7d/%-7d max|d|=%d %s' % (
                name, r, border, differ.sum(), differ.size,
                abs(got - want).max(), example), flush=True)
    for border in BORDERS:
        a = rng.integers(0, top + 1, size=(61, 97)).astype(dtype)
        got = cv2.filter2D(a, -1, SHARPEN, borderType=BORDERS[border])
        want = exact_laplace(a, border, np.iinfo(dtype).max)
        print('%-7s laplace %-6s %d/%d differ' % (
            name, border, (got.astype(np.int64) != want).sum(), got.size))


print('OpenCV', cv2.__version__)
compare(np.uint8, 255, 'uint8')
compare(np.uint16, 65535, 'uint16')
compare(np.uint16, 1023, '10-bit')
