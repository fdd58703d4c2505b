/* The oracle: every filter in plain loops, written to be obviously right
 * rather than fast.  Every device must give exactly these bytes. */
#pragma once

#include "clf.h"

/* Filters one plane; bytes outside the mode's mask are copied. */
void clf_ref_filter_plane (const ClfParams * params,
    const ClfPlaneFormat * plane, const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride);

/* Filters every plane of a frame. */
void clf_ref_filter_frame (const ClfParams * params,
    const ClfFrameFormat * format, const ClfHostFrame * src,
    const ClfHostFrame * dst);

/* The blur by its definition: all (2r+1)^2 samples of every window.  Slow;
 * used to check the oracle itself on small planes. */
void clf_ref_blur_by_definition (const ClfParams * params,
    const ClfPlaneFormat * plane, const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride);

/* The sample that position i reads in a line of n under `border`. */
int clf_ref_border (int i, int n, ClfBorder border);
