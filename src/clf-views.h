/* How the kernels see a frame format: its views, the components of a
 * plane that share a grid of pixels (clf-format.c).  On clf.h alone. */
#pragma once

#include "clf.h"

/* The components of one plane that share a grid of pixels (the same pixel
 * stride, container size, width and height): the kernels filter its pixels
 * of `units` containers.  Packed 4:2:2 has two in its one plane: luma
 * (pixels of 2 samples, the second being chroma) and chroma (pixels of 4,
 * two of them luma). */
typedef struct {
  uint32_t plane;
  uint32_t width;               /* pixels per row */
  uint32_t height;
  uint32_t sample_bytes;
  uint32_t units;               /* samples per pixel: pstride / sample_bytes */
  uint32_t blur_mask;           /* samples the blurs filter */
  uint32_t laplace_mask;        /* samples laplace sharpens */
  uint32_t depth, shift;        /* of the filtered samples */
  bool big_endian;
} ClfView;

typedef struct {
  uint32_t n;
  ClfView views[CLF_MAX_COMPONENTS];
} ClfViews;

/* The views of a checked format (clf_frame_format_check), in the order
 * they run within a plane: the widest (in bytes) first, so that a later
 * view of the same plane finds the samples it copies written already. */
void clf_frame_format_views (const ClfFrameFormat * format, ClfViews * views);

/* The view of `format`'s first component (luma) where it is its plane's
 * one component, in 8-bit samples, a sample a pixel; else NULL.  (What
 * a GPU's sliding blur can convert from in its own pass: clf-plan.c.) */
const ClfView *clf_views_lone_luma (const ClfFrameFormat * format,
    const ClfViews * views);

static inline size_t
clf_view_row_units (const ClfView * v)
{
  return (size_t) v->width * v->units;
}

/* The bytes of a view's row: what its kernels read and write of it. */
static inline size_t
clf_view_row_bytes (const ClfView * v)
{
  return clf_view_row_units (v) * v->sample_bytes;
}
