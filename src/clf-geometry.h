/* Geometry (clf-geometry.c): the sizes the kernels run at, from a view of
 * the frame, a layout's catalogue entry and the device's compute units.
 * On the catalogue and the views only. */
#pragma once

#include "clf-catalogue.h"
#include "clf-views.h"

static inline size_t
clf_ceil_div (size_t n, size_t d)
{
  return (n + d - 1) / d;
}

/* Whether a window of `radius` over view v's values can sum to 2^32 or
 * more: its blurs then take the program with 64-bit sums. */
bool clf_needs_wide_sums (const ClfView * v, uint32_t radius);

/* CPUs' strips of `rows` rows: the most rows a strip takes where each
 * compute unit takes as many strips as the blurs' (at most that many
 * strips in all). */
size_t clf_strip_rows (size_t rows, cl_uint compute_units);

/* CPUs' Gaussian rows passes (gaussian-taps.cl, gaussian-box-rows.cl): in
 * the sums buffer, after a uint of H per sample of view v (the offset, in
 * uints), each strip's scratch row of `pitch` uints, for a kernel that
 * spans at most `span` pixels (its taps, or its boxes' widths added
 * up). */
uint64_t clf_gauss_scratch_offset (const ClfView * v);
uint32_t clf_gauss_scratch_pitch (const ClfView * v, uint32_t span);

/* GPUs' boxes down columns (gaussian-box-starts.cl): the bytes of their
 * runs' states, at the same offset, for a kernel of at most `span`. */
uint64_t clf_gauss_states_bytes (const ClfView * v, uint32_t span);

/* Bytes of the sums buffer a blur of view v needs on a device with
 * `compute_units`, running the CPUs' kernels or not, where the Gaussian's
 * kernels span at most `gauss_span` pixels. */
uint64_t clf_view_sums_bytes (const ClfView * v, bool cpu_kernels,
    cl_uint compute_units, uint32_t gauss_span);

/* The multiplier and shift that divide window sums by the window's area in
 * the kernels (Mean in common.cl), for a radius and samples of
 * `sample_bytes` bytes and `depth` bits. */
void clf_mean_divider (uint32_t radius, uint32_t sample_bytes,
    uint32_t depth, cl_ulong * mul, cl_int * shift);

/* The global size of a pass over view p, and its `seg` argument; `group`
 * is the pass kernel's work-group size on GPUs, `layout` its program's. */
size_t clf_work_shape_size (cl_uint compute_units, const ClfLayout * layout,
    size_t group, const Pass * pass, const ClfView * p,
    const ClfParams * params, size_t global[2]);

/* The work-group size of a pass, or NULL for the driver's choice; rounds
 * `global` up to it. */
const size_t *clf_pass_local_size (bool cpu_kernels, size_t group,
    const Pass * pass, size_t global[2], size_t local[2]);
