/* The oracle: every filter in plain loops, written to be obviously right
 * rather than fast, over a frame's components as ClfFrameFormat describes
 * them.  Every device must give exactly these bytes. */
#pragma once

#include "clf.h"

/* Filters every component of a frame; the bytes of every plane's rows
 * that no filtered component holds are copied. */
void clf_ref_filter_frame (const ClfParams * params,
    const ClfFrameFormat * format, const ClfHostFrame * src,
    const ClfHostFrame * dst);

/* The blur by its definition: all (2r+1)^2 samples of every window.  Slow;
 * used to check the oracle itself on small frames. */
void clf_ref_blur_by_definition (const ClfParams * params,
    const ClfFrameFormat * format, const ClfHostFrame * src,
    const ClfHostFrame * dst);

/* The sample that position i reads in a line of n under `border`. */
int clf_ref_border (int i, int n, ClfBorder border);

/* Adds a plane of w x h pixels of `bpp` 8-bit samples to `format`, each
 * sample a component: blurred where bit c of `blur` is set, sharpened too
 * where bit c of `laplace` is, else copied (alpha or padding).  A laplace
 * bit without its blur bit is a mistake of the caller: it aborts. */
void clf_ref_add_byte_plane (ClfFrameFormat * format, uint32_t w,
    uint32_t h, uint32_t bpp, uint8_t blur, uint8_t laplace);

/* A frame of one such plane. */
ClfFrameFormat clf_ref_byte_plane (uint32_t w, uint32_t h, uint32_t bpp,
    uint8_t blur, uint8_t laplace);

/* The value of component c's sample whose container starts at p, and
 * `value` written into that container, as ClfComponent says. */
uint32_t clf_ref_read_value (const ClfComponent * c, const uint8_t * p);
void clf_ref_write_value (const ClfComponent * c, uint8_t * p,
    uint32_t value);

/* Converts a frame of `in` into one of conversion->format, as
 * docs/conversion.md defines it (reference-convert.c). */
void clf_ref_convert_frame (const ClfFrameFormat * in,
    const ClfConversion * conversion, const ClfHostFrame * src,
    const ClfHostFrame * dst);
