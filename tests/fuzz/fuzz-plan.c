/* libFuzzer target over the engine's plane planning and filtering.
 *
 * Each input describes a frame format (1-8 planes of 1x1 to 40x40 pixels,
 * of 1-4 samples a pixel, 8-bit or in 16-bit words of any of four depths
 * and shifts in either byte order, or packed 4:2:2; any blur and laplace
 * masks; at most 8 components in all), padded strides, where
 * each source plane lies (host memory, or a device buffer at an odd
 * offset), up to three filter settings run one after the other on one plan,
 * and the pixel bytes.  Every output byte must equal the C reference's and
 * every padding byte of the destination must be untouched.  Some inputs
 * instead ask for something the engine must refuse (5 samples a pixel,
 * width 0, a sample beyond its pixel, 0 or 9 planes, radius or mode out of
 * range, a stride
 * shorter than a row, a plane beyond its device buffer): the refusal must be
 * CLF_ERROR_INVALID (a bad format or setting) or CLF_ERROR_FRAME (a frame
 * that does not fit its memory), without a crash.  Others describe one
 * plane the way an untrusted GstVideoMeta may (check_layout): any stride,
 * offset and memory size, wrapping values included; the engine must filter
 * it exactly when it fits and refuse it with CLF_ERROR_FRAME when it does
 * not, touching no byte outside the memory (host memory is allocated to
 * the size given, so ASan sees any stray access).  A mismatch aborts with
 * what differed.
 *
 * Input bytes, in order, each taken modulo its range (missing bytes read
 * as 0):
 *   invalid case (0-15 picks one of the nine, with a few bytes of its own
 *   after it; 16-47 a plane layout, see check_layout; 48-255: none);
 *   planes - 1;
 *   per plane: width - 1, height - 1, kind (fuzz_plane: bits 0-1 samples
 *     a pixel - 1, bit 2 16-bit words, bits 3-4 their depth and shift,
 *     bit 5 big-endian, bit 6 packed 4:2:2), blur mask, laplace mask,
 *     layout (bits 0-2 source row padding, 3-5 destination row padding,
 *     6 source plane in a device buffer);
 *   frames - 1; per frame: mode, border, radius class (decode_radius);
 *   then the source bytes (pixels and padding), repeated from the start of
 *   the input where it runs short.
 * tests/fuzz/make-corpus.py writes the seeds in tests/fuzz/corpus/ in this
 * layout.
 *
 * One engine serves every input: programs are built once per pixel layout
 * (and kept in $XDG_CACHE_HOME).  Radii are bounded so that one input
 * stays within a few million reads on a CPU device; the radius class
 * still reaches CLF_MAX_RADIUS on small frames.
 */
#include "reference.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 40
#define MAX_FRAMES 3
#define CANARY 0x5A
/* Reads of the naive box (its (2r+1)^2 per byte), and of the reference
 * and the other blurs (2r+1 per byte and pass), per input. */
#define BOX_READ_BUDGET 4.0e6
#define LINE_READ_BUDGET 4.0e6

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

typedef struct
{
  const uint8_t *data;
  size_t size, at;
} Input;

static uint8_t
take (Input * in)
{
  return in->at < in->size ? in->data[in->at++] : 0;
}

/* The code of `err` for fail(); UINT_MAX for no error. */
static unsigned
code_of (const GError * err)
{
  return err ? (unsigned) err->code : UINT_MAX;
}

static void
fail (const char *what, const ClfFrameFormat * format,
    const ClfParams * params, uint32_t plane, uint32_t y, size_t x,
    unsigned got, unsigned want)
{
  fprintf (stderr, "fuzz-plan: %s: %u planes", what, format->n_planes);
  for (uint32_t i = 0; i < format->n_components; i++) {
    const ClfComponent *c = &format->components[i];
    fprintf (stderr, " [plane %u %ux%u at %u every %u, %u bits << %u%s, "
        "role %d]", c->plane, c->width, c->height, c->offset, c->pstride,
        c->depth, c->shift, c->big_endian ? " BE" : "", (int) c->role);
  }
  if (params)
    fprintf (stderr, ", mode %s, border %s, radius %u",
        clf_mode_name (params->mode), clf_border_name (params->border),
        params->radius);
  fprintf (stderr, ": plane %u, row %u, byte %zu: got %u, want %u\n", plane,
      y, x, got, want);
  abort ();
}

static ClfEngine *
engine_get (void)
{
  static ClfEngine *engine;
  if (!engine) {
    GError *err = NULL;
    engine = clf_engine_new ("auto", &err);
    if (!engine) {
      fprintf (stderr, "fuzz-plan: no OpenCL device: %s\n", err->message);
      exit (1);
    }
  }
  return engine;
}

static uint64_t
frame_bytes (const ClfFrameFormat * format)
{
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < format->n_planes; i++)
    bytes += (uint64_t) clf_frame_format_row_bytes (format, i)
        * clf_frame_format_rows (format, i);
  return bytes;
}

/* The role of a sample with blur and laplace bits: a laplace bit alone
 * sharpens (and so blurs) too. */
static ClfComponentRole
role_of (uint8_t blur, uint8_t laplace, uint32_t c)
{
  return (laplace >> c & 1) ? CLF_COMPONENT_SHARPENED :
      (blur >> c & 1) ? CLF_COMPONENT_BLURRED : CLF_COMPONENT_COPIED;
}

/* Adds a plane of w x h pixels of the input's `kind` (see the header) to
 * `format`; false, adding nothing, where its components would pass
 * CLF_MAX_COMPONENTS. */
static bool
fuzz_plane (ClfFrameFormat * format, uint32_t w, uint32_t h, uint8_t kind,
    uint8_t blur, uint8_t laplace)
{
  static const uint32_t depths[4][2] = { {16, 0}, {10, 0}, {10, 6}, {12, 4} };
  bool wide = kind & 4, packed = kind & 64;
  uint32_t size = wide ? 2 : 1, units = packed ? 3 : 1 + (kind & 3u);
  if (format->n_components + units > CLF_MAX_COMPONENTS)
    return false;
  for (uint32_t c = 0; c < units; c++) {
    ClfComponent *k = &format->components[format->n_components++];
    /* *INDENT-OFF* */
    *k = (ClfComponent) {
    .plane = format->n_planes,.offset = c * size,.pstride = units * size,
          .width = w,.height = h,.depth = wide ? depths[kind >> 3 & 3][0] : 8,
          .shift = wide ? depths[kind >> 3 & 3][1] : 0,
          .big_endian = wide && (kind & 32),.role = role_of (blur, laplace,
          c)};
    /* *INDENT-ON* */
    if (packed) {
      /* YUY2: luma every 2 samples, U and V every 4 (at 1 and 3). */
      k->offset = (c == 0 ? 0 : c == 1 ? 1 : 3) * size;
      k->pstride = (c == 0 ? 2 : 4) * size;
      k->width = c == 0 ? w : (w + 1) / 2;
      k->role = c == 0 ? k->role : blur & 2 ? CLF_COMPONENT_BLURRED :
          CLF_COMPONENT_COPIED;
    }
  }
  format->n_planes++;
  return true;
}

/* Radius class: 0-127 small (0-7), 128-223 around the frame's size (0-47,
 * often larger than the plane), 224-254 large, 255 CLF_MAX_RADIUS; then
 * halved until the mode's work fits its budget. */
static uint32_t
decode_radius (uint8_t class, ClfMode mode, const ClfFrameFormat * format)
{
  uint32_t r = class < 128 ? class % 8u : class < 224 ? class % 48u :
      class < 255 ? 48u + (class - 224u) * 32u : CLF_MAX_RADIUS;
  double bytes = (double) frame_bytes (format);
  for (;;) {
    double side = 2.0 * r + 1;
    double reads = mode == CLF_MODE_BOX ? side * side * bytes :
        2 * side * bytes;
    if (r == 0 || reads <= (mode == CLF_MODE_BOX ? BOX_READ_BUDGET :
            LINE_READ_BUDGET))
      return r;
    r /= 2;
  }
}

/* An invalid request (case 0-8) must be refused: a bad format or setting
 * as invalid, a frame that does not fit its memory as such. */
static void
check_refused (uint8_t which, ClfEngine * engine, Input * in)
{
  uint32_t width = 1 + take (in) % MAX_SIDE, height = 1 + take (in) % MAX_SIDE;
  ClfFrameFormat format = clf_ref_byte_plane (width, height, 1, 1, 1);
  ClfParams params = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  GError *err = NULL;
  ClfFrameStats stats;
  ClfPlan *plan = NULL;
  bool format_case = true;

  switch (which) {
    case 0:
      format = clf_ref_byte_plane (width, height, 5, 1, 1);
      break;
    case 1:
      format.components[0].width = 0;
      break;
    case 2:
      format.components[0].height = 0;
      break;
    case 3:
      format.components[0].offset = 1;  /* byte 1 of a 1-byte pixel */
      break;
    case 4:
      format.n_planes = take (in) & 1 ? CLF_MAX_PLANES + 1 : 0;
      break;
    default:
      format_case = false;
      break;
  }
  if (format_case) {
    if (clf_plan_new (engine, &format, &err)
        || !g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID))
      fail ("an invalid format was accepted", &format, NULL, 0, 0, 0,
          code_of (err), CLF_ERROR_INVALID);
    g_clear_error (&err);
    return;
  }

  plan = clf_plan_new (engine, &format, &err);
  if (!plan) {
    fprintf (stderr, "fuzz-plan: clf_plan_new: %s\n", err->message);
    abort ();
  }
  size_t row = width, stride = row;
  uint8_t *pixels = calloc (row * height, 1);
  uint8_t *out = calloc (row * height, 1);
  ClfHostFrame src = { {pixels}, {row}, {row * height} };
  ClfHostFrame dst = { {out}, {row}, {row * height} };
  cl_mem mem = NULL;

  switch (which) {
    case 5:
      params.radius = CLF_MAX_RADIUS + 1 + take (in);
      break;
    case 6:
      /* A mode past the last, convolve with no kernel (size 0), or a
       * Gaussian's sigma or unsharp's amount out of range. */
      switch (take (in) % 4) {
        case 0:
          params.mode = (ClfMode) (CLF_MODE_UNSHARP + 1 + take (in) % 8);
          break;
        case 1:
          params.mode = CLF_MODE_CONVOLVE;
          break;
        case 2:
          params.mode = CLF_MODE_GAUSSIAN;
          params.sigma = CLF_MAX_SIGMA + 1 + take (in);
          break;
        default:
          params.mode = CLF_MODE_UNSHARP;
          params.sigma = 1;
          params.amount = CLF_MAX_AMOUNT + 1 + take (in);
          break;
      }
      break;
    case 7:
      stride = row - 1 - take (in) % row;       /* shorter than a row */
      (take (in) & 1 ? &src : &dst)->stride[0] = stride;
      break;
    default:{
      /* A device plane that runs past the end of its buffer. */
      cl_int status;
      size_t buffer_size = row * height;
      mem = clCreateBuffer (clf_engine_context (engine), CL_MEM_READ_WRITE,
          buffer_size, NULL, &status);
      if (!mem) {
        fprintf (stderr, "fuzz-plan: clCreateBuffer: %s\n",
            clf_cl_status_name (status));
        abort ();
      }
      ClfFrame from = { {mem}, {1 + take (in) % buffer_size}, {NULL},
      {row}
      };
      /* *INDENT-OFF* */
      ClfFrame to = { {NULL}, {0}, {out}, {row}, {row * height} };
      /* *INDENT-ON* */
      if (clf_plan_process (plan, &params, &from, &to, &stats, &err)
          || !g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME))
        fail ("a plane beyond its device buffer was accepted", &format,
            &params, 0, 0, from.offset[0], code_of (err), CLF_ERROR_FRAME);
      break;
    }
  }
  ClfErrorCode want = which == 7 ? CLF_ERROR_FRAME : CLF_ERROR_INVALID;
  if (!mem && (clf_plan_process_host (plan, &params, &src, &dst, &stats,
              &err) || !g_error_matches (err, CLF_ERROR, want)))
    fail ("invalid parameters or a short stride were accepted", &format,
        &params, 0, 0, stride, code_of (err), want);
  g_clear_error (&err);
  if (mem)
    clReleaseMemObject (mem);
  free (pixels);
  free (out);
  clf_plan_free (plan);
}

/* ---- one plane laid out as an untrusted video meta may say ------------ */

static uint64_t
take_u64 (Input * in)
{
  uint64_t value = 0;
  for (int i = 0; i < 8; i++)
    value = value << 8 | take (in);
  return value;
}

/* A stride: mostly ones that fit, then every kind that must not: short,
 * zero, a negative one as size_t, past 32 bits, one whose product with the
 * rows wraps 64 bits, or anything at all. */
static size_t
decode_stride (Input * in, size_t row, uint32_t height)
{
  uint8_t class = take (in), small = take (in);
  switch (class % 8) {
    case 0:
    case 1:
      return row + small % 8;
    case 2:
      return row - 1 - small % row;     /* 0 when the row is one byte */
    case 3:
      return (size_t) -(ptrdiff_t) (1 + small * row);
    case 4:
      return (size_t) (small & 1 ? UINT32_MAX : INT32_MAX) + small % 3;
    case 5:
      return SIZE_MAX / (height > 1 ? height - 1 : 1) + 1 + small;
    case 6:
      return (size_t) take_u64 (in);
    default:
      return row * (1 + small % 3);
  }
}

/* Whether `stride`, `offset` and `room` (the bytes of memory from offset 0
 * on) hold a plane of `height` rows of `row` bytes, computed without
 * wrapping, and strides and device offsets stay below the kernels'
 * 32-bit signed indices and, in a device buffer, on multiples of `align`
 * (the samples' words). */
static bool
layout_fits (size_t row, uint32_t height, size_t stride, size_t offset,
    size_t room, bool device, size_t align)
{
  uint64_t extent;
  if (stride < row || stride > INT32_MAX || offset > room)
    return false;
  if (device && (offset % align || stride % align))
    return false;
  if (__builtin_mul_overflow ((uint64_t) stride, (uint64_t) (height - 1),
          &extent) || __builtin_add_overflow (extent, row, &extent))
    return false;
  if (device && offset + extent > INT32_MAX)
    return false;
  return extent <= room - offset;
}

/* Every byte of `mem` (`size` bytes) outside the plane's rows is still the
 * canary, and (with `want`) the rows hold the reference's bytes. */
static void
check_plane_memory (const uint8_t * mem, size_t size, size_t offset,
    size_t stride, const ClfFrameFormat * format, const ClfParams * params,
    const uint8_t * want)
{
  size_t row = clf_frame_format_row_bytes (format, 0);
  uint32_t height = clf_frame_format_rows (format, 0);
  for (size_t b = 0; b < size; b++) {
    bool in_row = want && b >= offset && (b - offset) % stride < row
        && (b - offset) / stride < height;
    unsigned expect = in_row ? want[(b - offset) / stride * row
        + (b - offset) % stride] : CANARY;
    if (mem[b] != expect)
      fail (in_row ? "a byte differs from the reference" :
          "a byte outside the plane changed", format, params, 0,
          (uint32_t) ((b - offset) / stride), b, mem[b], expect);
  }
}

/* A device buffer of `size` bytes holding `bytes`. */
static cl_mem
device_buffer (ClfEngine * engine, const uint8_t * bytes, size_t size)
{
  cl_int status;
  cl_mem mem = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, (void *) bytes,
      &status);
  if (!mem) {
    fprintf (stderr, "fuzz-plan: clCreateBuffer (%zu bytes): %s\n", size,
        clf_cl_status_name (status));
    abort ();
  }
  return mem;
}

/* One plane of `in`'s size and depth whose source or destination is laid
 * out by the input (decode_stride, an offset and the memory's size), in
 * host memory or a device buffer; the other side is a tight host plane.
 * Filtered exactly when the layout fits, refused as CLF_ERROR_FRAME with
 * its memory untouched when it does not. */
static void
check_layout (ClfEngine * engine, Input * in)
{
  ClfFrameFormat format = { 0 };
  uint32_t width = 1 + take (in) % MAX_SIDE, height = 1 + take (in) % MAX_SIDE;
  fuzz_plane (&format, width, height, take (in), 0xf, 0xf);
  uint8_t how = take (in);
  bool lie_in_dst = how & 1, on_device = how >> 1 & 1;
  ClfParams params = { (ClfMode) (how >> 2 & 3), take (in) % 8,
    (ClfBorder) (how >> 4 & 1)
  };
  size_t row = clf_frame_format_row_bytes (&format, 0), tight = row * height;
  size_t stride = decode_stride (in, row, height);
  uint8_t room_high = take (in), room_low = take (in);
  size_t room = 1 + (size_t) (room_high << 8 | room_low) % (2 * tight + 64);
  uint8_t offset_class = take (in);
  size_t offset = !on_device ? 0 : offset_class < 192 ? offset_class % room :
      offset_class < 255 ? INT32_MAX - offset_class : take_u64 (in);
  bool fits = layout_fits (row, height, stride, offset, room, on_device,
      clf_frame_format_sample_bytes (&format, 0));

  /* The plane's memory: the source's bytes from the input, or canaries. */
  uint8_t *memory = malloc (room), *honest = malloc (tight);
  uint8_t *want = malloc (tight);
  for (size_t b = 0; b < room; b++)
    memory[b] = lie_in_dst ? CANARY : take (in);
  for (size_t b = 0; b < tight; b++)
    honest[b] = lie_in_dst ? take (in) : CANARY;
  cl_mem mem = on_device ? device_buffer (engine, memory, room) : NULL;
  ClfFrame lying = { {mem}, {offset}, {on_device ? NULL : memory}, {stride},
  {on_device ? 0 : room}
  };
  ClfFrame plain = { {NULL}, {0}, {honest}, {row}, {tight} };

  GError *err = NULL;
  ClfFrameStats stats;
  ClfPlan *plan = clf_plan_new (engine, &format, &err);
  if (!plan) {
    fprintf (stderr, "fuzz-plan: clf_plan_new: %s\n", err->message);
    abort ();
  }
  bool ok = clf_plan_process (plan, &params, lie_in_dst ? &plain : &lying,
      lie_in_dst ? &lying : &plain, &stats, &err);
  if (ok != fits || (!ok && !g_error_matches (err, CLF_ERROR, CLF_ERROR_FRAME))) {
    fprintf (stderr, "fuzz-plan: a %s %s plane (%ux%u, %zu bytes a row, "
        "stride %zu, offset %zu, %zu bytes of memory) was %s: %s\n",
        on_device ? "device" : "host", lie_in_dst ? "destination" : "source",
        width, height, row, stride, offset, room,
        ok ? "accepted" : "refused", ok ? "it does not fit" : err->message);
    abort ();
  }
  g_clear_error (&err);

  if (mem && lie_in_dst && clEnqueueReadBuffer (clf_engine_queue (engine),
          mem, CL_TRUE, 0, room, memory, 0, NULL, NULL) != CL_SUCCESS)
    abort ();
  if (lie_in_dst) {
    /* *INDENT-OFF* */
    ClfHostFrame src = { {honest}, {row}, {tight} };
    ClfHostFrame ref = { {want}, {row}, {tight} };
    /* *INDENT-ON* */
    if (fits)
      clf_ref_filter_frame (&params, &format, &src, &ref);
    check_plane_memory (memory, room, offset, stride, &format, &params,
        fits ? want : NULL);
  } else if (fits) {
    /* *INDENT-OFF* */
    ClfHostFrame src = { {memory + offset}, {stride}, {room - offset} };
    ClfHostFrame ref = { {want}, {row}, {tight} };
    /* *INDENT-ON* */
    clf_ref_filter_frame (&params, &format, &src, &ref);
    for (size_t b = 0; b < tight; b++)
      if (honest[b] != want[b])
        fail ("a byte differs from the reference", &format, &params, 0,
            (uint32_t) (b / row), b % row, honest[b], want[b]);
  }

  if (mem)
    clReleaseMemObject (mem);
  clf_plan_free (plan);
  free (memory);
  free (honest);
  free (want);
}

static void
decode_format (Input * in, ClfFrameFormat * format, size_t src_pad[],
    size_t dst_pad[], bool on_device[])
{
  memset (format, 0, sizeof *format);
  uint32_t n_planes = 1 + take (in) % CLF_MAX_PLANES;
  for (uint32_t i = 0; i < n_planes; i++) {
    uint32_t width = 1 + take (in) % MAX_SIDE;
    uint32_t height = 1 + take (in) % MAX_SIDE;
    uint8_t kind = take (in), blur = take (in), laplace = take (in);
    uint8_t layout = take (in);
    if (!fuzz_plane (format, width, height, kind, blur, laplace))
      break;
    src_pad[i] = layout & 7;
    dst_pad[i] = layout >> 3 & 7;
    on_device[i] = layout >> 6 & 1;
  }
}

/* The source planes, each in its own allocation so that ASan sees reads
 * beyond them; pixels and row padding come from the input. */
static void
fill_source (Input * in, const ClfFrameFormat * format,
    const size_t src_pad[], ClfHostFrame * src)
{
  size_t from = 0;
  memset (src, 0, sizeof *src);
  for (uint32_t i = 0; i < format->n_planes; i++) {
    /* Whole words of padding, so that a plane in a device buffer fits
     * its samples' alignment. */
    src->stride[i] = clf_frame_format_row_bytes (format, i)
        + src_pad[i] * clf_frame_format_sample_bytes (format, i);
    size_t bytes = src->stride[i] * clf_frame_format_rows (format, i);
    src->data[i] = malloc (bytes);
    src->size[i] = bytes;
    for (size_t b = 0; b < bytes; b++) {
      if (in->at < in->size)
        src->data[i][b] = in->data[in->at++];
      else
        src->data[i][b] = in->size ? in->data[from++ % in->size] : 0;
    }
  }
}

static void
frame_free (ClfHostFrame * frame)
{
  for (uint32_t i = 0; i < CLF_MAX_PLANES; i++)
    free (frame->data[i]);
}

/* The source planes that the input puts in a device buffer: one buffer,
 * planes at odd offsets with gaps.  Returns NULL when none is. */
static cl_mem
upload_planes (ClfEngine * engine, const ClfFrameFormat * format,
    const bool on_device[], const ClfHostFrame * host, ClfFrame * frame)
{
  size_t offset = 3, size;
  for (uint32_t i = 0; i < format->n_planes; i++) {
    frame->data[i] = host->data[i];
    frame->stride[i] = host->stride[i];
    frame->size[i] = host->size[i];
    if (!on_device[i])
      continue;
    size_t align = clf_frame_format_sample_bytes (format, i);
    offset = (offset + align - 1) / align * align;
    frame->offset[i] = offset;
    offset += host->stride[i] * clf_frame_format_rows (format, i) + 5;
  }
  if (offset == 3)
    return NULL;
  size = offset;

  uint8_t *bytes = malloc (size);
  memset (bytes, CANARY, size);
  for (uint32_t i = 0; i < format->n_planes; i++)
    if (on_device[i])
      memcpy (bytes + frame->offset[i], host->data[i],
          host->stride[i] * clf_frame_format_rows (format, i));
  cl_int status;
  cl_mem mem = clCreateBuffer (clf_engine_context (engine),
      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size, bytes, &status);
  free (bytes);
  if (!mem) {
    fprintf (stderr, "fuzz-plan: clCreateBuffer (%zu bytes): %s\n", size,
        clf_cl_status_name (status));
    abort ();
  }
  for (uint32_t i = 0; i < format->n_planes; i++)
    if (on_device[i]) {
      frame->mem[i] = mem;
      frame->data[i] = NULL;
    }
  return mem;
}

static void
compare (const ClfFrameFormat * format, const ClfParams * params,
    const ClfHostFrame * got, const ClfHostFrame * want)
{
  ClfTestDifference d;

  if (clf_test_first_difference (format, got, want, CANARY, &d))
    fail (d.padding ? "a padding byte of the destination changed" :
        "a byte differs from the reference", format, params, d.plane, d.y,
        d.x, d.got, d.want);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  ClfEngine *engine = engine_get ();
  Input in = { data, size, 0 };
  uint8_t invalid = take (&in);
  if (invalid < 16) {
    check_refused (invalid % 9, engine, &in);
    return 0;
  }
  if (invalid < 48) {
    check_layout (engine, &in);
    return 0;
  }

  ClfFrameFormat format;
  size_t src_pad[CLF_MAX_PLANES], dst_pad[CLF_MAX_PLANES];
  bool on_device[CLF_MAX_PLANES];
  decode_format (&in, &format, src_pad, dst_pad, on_device);

  ClfParams params[MAX_FRAMES];
  uint32_t n_frames = 1 + take (&in) % MAX_FRAMES;
  for (uint32_t f = 0; f < n_frames; f++) {
    params[f].mode = (ClfMode) (take (&in) % 4);
    params[f].border = (ClfBorder) (take (&in) % 2);
    params[f].radius = decode_radius (take (&in), params[f].mode, &format);
  }

  GError *err = NULL;
  ClfPlan *plan = clf_plan_new (engine, &format, &err);
  if (!plan) {
    fprintf (stderr, "fuzz-plan: clf_plan_new refused a valid format: %s\n",
        err->message);
    abort ();
  }

  ClfHostFrame src, want, got;
  /* *INDENT-OFF* */
  ClfFrame from = { {NULL} }, to = { {NULL} };
  /* *INDENT-ON* */
  fill_source (&in, &format, src_pad, &src);
  cl_mem mem = upload_planes (engine, &format, on_device, &src, &from);
  memset (&want, 0, sizeof want);
  memset (&got, 0, sizeof got);
  for (uint32_t i = 0; i < format.n_planes; i++) {
    size_t row = clf_frame_format_row_bytes (&format, i);
    uint32_t rows = clf_frame_format_rows (&format, i);
    want.stride[i] = row;
    want.data[i] = malloc (row * rows);
    got.stride[i] = to.stride[i] = row + dst_pad[i];
    got.size[i] = to.size[i] = got.stride[i] * rows;
    got.data[i] = to.data[i] = malloc (got.size[i]);
  }

  for (uint32_t f = 0; f < n_frames; f++) {
    ClfFrameStats stats;
    for (uint32_t i = 0; i < format.n_planes; i++)
      memset (got.data[i], CANARY, got.stride[i]
          * clf_frame_format_rows (&format, i));
    bool ok = mem ? clf_plan_process (plan, &params[f], &from, &to, &stats,
        &err) : clf_plan_process_host (plan, &params[f], &src, &got, &stats,
        &err);
    if (!ok) {
      fprintf (stderr, "fuzz-plan: filtering failed: %s\n", err->message);
      abort ();
    }
    clf_ref_filter_frame (&params[f], &format, &src, &want);
    compare (&format, &params[f], &got, &want);
  }

  if (mem)
    clReleaseMemObject (mem);
  frame_free (&src);
  frame_free (&want);
  frame_free (&got);
  clf_plan_free (plan);
  return 0;
}
