#include "reference.h"

#include <stdlib.h>

int
clf_ref_border (int i, int n, ClfBorder border)
{
  if (border == CLF_BORDER_CLAMP)
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  if (n == 1)
    return 0;
  /* Reflect about the edge samples until inside: -1 -> 1, n -> n-2. */
  while (i < 0 || i >= n)
    i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

static uint8_t
mask_for (const ClfParams * params, const ClfPlaneFormat * plane)
{
  return params->mode == CLF_MODE_LAPLACE ?
      plane->laplace_mask : plane->blur_mask;
}

static uint8_t
sample (const uint8_t * src, size_t stride, const ClfPlaneFormat * plane,
    int x, int y, int c, ClfBorder border)
{
  int bx = clf_ref_border (x, (int) plane->width, border);
  int by = clf_ref_border (y, (int) plane->height, border);
  return src[(size_t) by * stride + (size_t) bx * plane->bpp + c];
}

static uint8_t
mean (uint64_t sum, uint32_t radius)
{
  uint64_t n = (2 * (uint64_t) radius + 1) * (2 * (uint64_t) radius + 1);
  return (uint8_t) ((sum + n / 2) / n);
}

/* The window is a product of a row range and a column range, and the
 * border rule applies to each axis on its own, so S = the sum over the
 * window's rows of each row's horizontal window sum. */
static void
blur_plane (const ClfParams * params, const ClfPlaneFormat * plane,
    uint8_t mask, const uint8_t * src, size_t src_stride, uint8_t * dst,
    size_t dst_stride)
{
  const int w = (int) plane->width, h = (int) plane->height;
  const int r = (int) params->radius, bpp = (int) plane->bpp;
  uint64_t *row_sums = calloc ((size_t) w * h * bpp, sizeof *row_sums);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < bpp; c++)
        for (int dx = -r; dx <= r; dx++)
          row_sums[((size_t) y * w + x) * bpp + c] +=
              sample (src, src_stride, plane, x + dx, y, c, params->border);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < bpp; c++) {
        uint8_t *out = &dst[(size_t) y * dst_stride + (size_t) x * bpp + c];
        if (!(mask >> c & 1)) {
          *out = src[(size_t) y * src_stride + (size_t) x * bpp + c];
          continue;
        }
        uint64_t sum = 0;
        for (int dy = -r; dy <= r; dy++) {
          int by = clf_ref_border (y + dy, h, params->border);
          sum += row_sums[((size_t) by * w + x) * bpp + c];
        }
        *out = mean (sum, params->radius);
      }
  free (row_sums);
}

static void
laplace_plane (const ClfParams * params, const ClfPlaneFormat * plane,
    uint8_t mask, const uint8_t * src, size_t src_stride, uint8_t * dst,
    size_t dst_stride)
{
  for (int y = 0; y < (int) plane->height; y++)
    for (int x = 0; x < (int) plane->width; x++)
      for (int c = 0; c < (int) plane->bpp; c++) {
        int centre = sample (src, src_stride, plane, x, y, c, params->border);
        int value = centre;
        if (mask >> c & 1) {
          int ring = 0;
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
              if (dx || dy)
                ring += sample (src, src_stride, plane, x + dx, y + dy, c,
                    params->border);
          value = 9 * centre - ring;
          value = value < 0 ? 0 : value > 255 ? 255 : value;
        }
        dst[(size_t) y * dst_stride + (size_t) x * plane->bpp + c] =
            (uint8_t) value;
      }
}

void
clf_ref_filter_plane (const ClfParams * params, const ClfPlaneFormat * plane,
    const uint8_t * src, size_t src_stride, uint8_t * dst, size_t dst_stride)
{
  uint8_t mask = mask_for (params, plane);
  if (params->mode == CLF_MODE_LAPLACE)
    laplace_plane (params, plane, mask, src, src_stride, dst, dst_stride);
  else
    blur_plane (params, plane, mask, src, src_stride, dst, dst_stride);
}

void
clf_ref_filter_frame (const ClfParams * params, const ClfFrameFormat * format,
    const ClfHostFrame * src, const ClfHostFrame * dst)
{
  for (uint32_t i = 0; i < format->n_planes; i++)
    clf_ref_filter_plane (params, &format->planes[i], src->data[i],
        src->stride[i], dst->data[i], dst->stride[i]);
}

void
clf_ref_blur_by_definition (const ClfParams * params,
    const ClfPlaneFormat * plane, const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride)
{
  const int r = (int) params->radius;
  for (int y = 0; y < (int) plane->height; y++)
    for (int x = 0; x < (int) plane->width; x++)
      for (int c = 0; c < (int) plane->bpp; c++) {
        uint8_t *out = &dst[(size_t) y * dst_stride + (size_t) x * plane->bpp
            + c];
        if (!(plane->blur_mask >> c & 1)) {
          *out = src[(size_t) y * src_stride + (size_t) x * plane->bpp + c];
          continue;
        }
        uint64_t sum = 0;
        for (int dy = -r; dy <= r; dy++)
          for (int dx = -r; dx <= r; dx++)
            sum += sample (src, src_stride, plane, x + dx, y + dy, c,
                params->border);
        *out = mean (sum, params->radius);
      }
}
