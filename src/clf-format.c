/* Frame formats: components as GstVideoFormatInfo describes them, checked
 * and grouped into the views the kernels filter. */
#include "clf-views.h"
#include "clf-check.h"

#include <string.h>

/* Bytes of a component's container. */
static uint32_t
container_bytes (const ClfComponent * c)
{
  return c->depth + c->shift <= 8 ? 1 : 2;
}

static bool
check_component (const ClfFrameFormat * format, uint32_t i, GError ** error)
{
  const ClfComponent *c = &format->components[i];
  if (c->plane >= format->n_planes || c->width < 1 || c->height < 1
      || c->depth < 1 || c->depth > 16 || c->shift > 16 - c->depth
      || (unsigned) c->role > CLF_COMPONENT_COPIED) {
    clf_set_error (error, CLF_ERROR_INVALID, "component %u (plane %u, %ux%u, "
        "%u bits shifted by %u, role %d) is not a valid component", i,
        c->plane, c->width, c->height, c->depth, c->shift, (int) c->role);
    return false;
  }
  uint32_t size = container_bytes (c);
  if (c->pstride < size || c->pstride % size || c->offset % size
      || c->offset >= c->pstride || c->pstride - c->offset < size
      || c->pstride / size > 4) {
    clf_set_error (error, CLF_ERROR_INVALID, "component %u: a %u-byte sample "
        "at byte %u of a %u-byte pixel is not a layout the kernels take "
        "(whole containers, at most 4 to a pixel)", i, size, c->offset,
        c->pstride);
    return false;
  }
  return true;
}

/* Whether the bytes of a and b (in one plane) meet, on any row: their
 * positions repeat every pstride bytes. */
static bool
components_overlap (const ClfComponent * a, const ClfComponent * b)
{
  for (uint32_t k = 0; k < a->pstride * b->pstride; k++) {
    bool in_a = (k + a->pstride - a->offset % a->pstride) % a->pstride
        < container_bytes (a);
    bool in_b = (k + b->pstride - b->offset % b->pstride) % b->pstride
        < container_bytes (b);
    if (in_a && in_b)
      return true;
  }
  return false;
}

static bool
same_grid (const ClfComponent * a, const ClfComponent * b)
{
  return a->plane == b->plane && a->pstride == b->pstride
      && a->width == b->width && a->height == b->height
      && container_bytes (a) == container_bytes (b);
}

/* Filtered components of one view are read the same way. */
static bool
same_values (const ClfComponent * a, const ClfComponent * b)
{
  return a->depth == b->depth && a->shift == b->shift
      && (container_bytes (a) == 1 || a->big_endian == b->big_endian);
}

static bool
check_pairs (const ClfFrameFormat * format, GError ** error)
{
  for (uint32_t i = 0; i < format->n_components; i++)
    for (uint32_t j = 0; j < i; j++) {
      const ClfComponent *a = &format->components[i];
      const ClfComponent *b = &format->components[j];
      if (a->plane != b->plane)
        continue;
      if (a->height != b->height || components_overlap (a, b)) {
        clf_set_error (error, CLF_ERROR_INVALID, "components %u and %u of "
            "plane %u %s", j, i, a->plane, a->height != b->height ?
            "have different numbers of rows" : "share bytes");
        return false;
      }
      if (same_grid (a, b) && a->role != CLF_COMPONENT_COPIED
          && b->role != CLF_COMPONENT_COPIED && !same_values (a, b)) {
        clf_set_error (error, CLF_ERROR_INVALID, "components %u and %u of "
            "plane %u share pixels but not their depth, shift or byte "
            "order", j, i, a->plane);
        return false;
      }
    }
  return true;
}

bool
clf_frame_format_check (const ClfFrameFormat * format, GError ** error)
{
  if (format->n_planes < 1 || format->n_planes > CLF_MAX_PLANES
      || format->n_components < 1
      || format->n_components > CLF_MAX_COMPONENTS) {
    clf_set_error (error, CLF_ERROR_INVALID, "a frame has 1 to %d planes and "
        "1 to %d components, not %u and %u", CLF_MAX_PLANES,
        CLF_MAX_COMPONENTS, format->n_planes, format->n_components);
    return false;
  }
  for (uint32_t i = 0; i < format->n_components; i++)
    if (!check_component (format, i, error))
      return false;
  for (uint32_t p = 0; p < format->n_planes; p++)
    if (!clf_frame_format_row_bytes (format, p)) {
      clf_set_error (error, CLF_ERROR_INVALID, "plane %u holds no component",
          p);
      return false;
    }
  if (!check_pairs (format, error))
    return false;

  /* The laplace kernels copy the samples they do not sharpen from the
   * source: one view of a plane may sharpen. */
  ClfViews views;
  clf_frame_format_views (format, &views);
  for (uint32_t i = 0; i < views.n; i++)
    for (uint32_t j = 0; j < i; j++)
      if (views.views[i].plane == views.views[j].plane
          && views.views[i].laplace_mask && views.views[j].laplace_mask) {
        clf_set_error (error, CLF_ERROR_INVALID, "plane %u has sharpened "
            "components of two pixel layouts", views.views[i].plane);
        return false;
      }
  return true;
}

size_t
clf_frame_format_row_bytes (const ClfFrameFormat * format, uint32_t plane)
{
  size_t row = 0;
  for (uint32_t i = 0; i < format->n_components; i++) {
    const ClfComponent *c = &format->components[i];
    size_t bytes = (size_t) c->width * c->pstride;
    if (c->plane == plane && bytes > row)
      row = bytes;
  }
  return row;
}

uint32_t
clf_frame_format_rows (const ClfFrameFormat * format, uint32_t plane)
{
  for (uint32_t i = 0; i < format->n_components; i++)
    if (format->components[i].plane == plane)
      return format->components[i].height;
  return 0;
}

uint32_t
clf_frame_format_sample_bytes (const ClfFrameFormat * format, uint32_t plane)
{
  uint32_t bytes = 1;
  for (uint32_t i = 0; i < format->n_components; i++)
    if (format->components[i].plane == plane
        && container_bytes (&format->components[i]) > bytes)
      bytes = container_bytes (&format->components[i]);
  return bytes;
}

static ClfView *
view_for (ClfViews * views, const ClfComponent * c)
{
  uint32_t size = container_bytes (c);
  for (uint32_t i = 0; i < views->n; i++) {
    ClfView *v = &views->views[i];
    if (v->plane == c->plane && v->units * v->sample_bytes == c->pstride
        && v->width == c->width && v->height == c->height
        && v->sample_bytes == size)
      return v;
  }
  ClfView *v = &views->views[views->n++];
  /* *INDENT-OFF* */
  *v = (ClfView) {
  .plane = c->plane,.width = c->width,.height = c->height,
        .sample_bytes = size,.units = c->pstride / size,.depth = 8};
  /* *INDENT-ON* */
  return v;
}

void
clf_frame_format_views (const ClfFrameFormat * format, ClfViews * views)
{
  memset (views, 0, sizeof *views);
  for (uint32_t i = 0; i < format->n_components; i++) {
    const ClfComponent *c = &format->components[i];
    ClfView *v = view_for (views, c);
    uint32_t bit = 1u << (c->offset / v->sample_bytes);
    if (c->role == CLF_COMPONENT_COPIED)
      continue;
    v->blur_mask |= bit;
    if (c->role == CLF_COMPONENT_SHARPENED)
      v->laplace_mask |= bit;
    v->depth = c->depth;
    v->shift = c->shift;
    v->big_endian = v->sample_bytes == 2 && c->big_endian;
  }
  /* By plane, the widest first (a stable insertion sort). */
  for (uint32_t i = 1; i < views->n; i++) {
    ClfView v = views->views[i];
    uint32_t j = i;
    for (; j > 0 && (views->views[j - 1].plane > v.plane
            || (views->views[j - 1].plane == v.plane
                && clf_view_row_bytes (&views->views[j - 1])
                < clf_view_row_bytes (&v))); j--)
      views->views[j] = views->views[j - 1];
    views->views[j] = v;
  }
}

const ClfView *
clf_views_lone_luma (const ClfFrameFormat * format, const ClfViews * views)
{
  const uint32_t plane = format->components[0].plane;
  for (uint32_t c = 1; c < format->n_components; c++)
    if (format->components[c].plane == plane)
      return NULL;
  for (uint32_t i = 0; i < views->n; i++) {
    const ClfView *v = &views->views[i];
    if (v->plane == plane)
      return v->units == 1 && v->sample_bytes == 1 ? v : NULL;
  }
  return NULL;
}
