/* libFuzzer target over the engine's plane planning and filtering.
 *
 * Each input describes a frame format (1-4 planes of 1x1 to 40x40 pixels,
 * 1-4 bytes a pixel, any blur and laplace masks), padded strides, where
 * each source plane lies (host memory, or a device buffer at an odd
 * offset), up to three filter settings run one after the other on one plan,
 * and the pixel bytes.  Every output byte must equal the C reference's and
 * every padding byte of the destination must be untouched.  Some inputs
 * instead ask for something the engine must refuse (bpp 5, width 0, a mask
 * beyond the pixel, 0 or 5 planes, radius or mode out of range, a stride
 * shorter than a row, a plane beyond its device buffer): the refusal must be
 * CLF_ERROR_INVALID, without a crash.  A mismatch aborts with what differed.
 *
 * Input bytes, in order, each taken modulo its range (missing bytes read
 * as 0):
 *   invalid case (0-15 picks one of the nine, with a few bytes of its own
 *   after it; 16-255: none); planes - 1;
 *   per plane: width - 1, height - 1, bpp - 1, blur mask, laplace mask,
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

typedef struct {
  const uint8_t *data;
  size_t size, at;
} Input;

static uint8_t
take (Input * in)
{
  return in->at < in->size ? in->data[in->at++] : 0;
}

static void
fail (const char *what, const ClfFrameFormat * format,
    const ClfParams * params, uint32_t plane, uint32_t y, size_t x,
    unsigned got, unsigned want)
{
  fprintf (stderr, "fuzz-plan: %s: %u planes", what, format->n_planes);
  for (uint32_t i = 0; i < format->n_planes; i++) {
    const ClfPlaneFormat *p = &format->planes[i];
    fprintf (stderr, " [%ux%u bpp %u blur 0x%x laplace 0x%x]", p->width,
        p->height, p->bpp, p->blur_mask, p->laplace_mask);
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
    ClfError err = { 0 };
    engine = clf_engine_new ("auto", &err);
    if (!engine) {
      fprintf (stderr, "fuzz-plan: no OpenCL device: %s\n", err.message);
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
    bytes += (uint64_t) format->planes[i].width * format->planes[i].height
        * format->planes[i].bpp;
  return bytes;
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

/* An invalid request (case 0-8) must be refused as invalid. */
static void
check_refused (uint8_t which, ClfEngine * engine, Input * in)
{
  ClfFrameFormat format = { 1, {{1 + take (in) % MAX_SIDE,
              1 + take (in) % MAX_SIDE, 1, 1, 1}}
  };
  ClfParams params = { CLF_MODE_SLIDING, 1, CLF_BORDER_CLAMP };
  ClfError err = { 0 };
  ClfFrameStats stats;
  const ClfPlaneFormat *p = &format.planes[0];
  ClfPlan *plan = NULL;
  bool format_case = true;

  switch (which) {
    case 0:
      format.planes[0].bpp = 5;
      break;
    case 1:
      format.planes[0].width = 0;
      break;
    case 2:
      format.planes[0].height = 0;
      break;
    case 3:
      format.planes[0].blur_mask = 2;   /* byte 1 of a 1-byte pixel */
      break;
    case 4:
      format.n_planes = take (in) & 1 ? CLF_MAX_PLANES + 1 : 0;
      break;
    default:
      format_case = false;
      break;
  }
  if (format_case) {
    if (clf_plan_new (engine, &format, &err) || err.code != CLF_ERROR_INVALID)
      fail ("an invalid format was accepted", &format, NULL, 0, 0, 0,
          err.code, CLF_ERROR_INVALID);
    clf_error_clear (&err);
    return;
  }

  plan = clf_plan_new (engine, &format, &err);
  if (!plan) {
    fprintf (stderr, "fuzz-plan: clf_plan_new: %s\n", err.message);
    abort ();
  }
  size_t row = (size_t) p->width * p->bpp;
  size_t stride = row;
  uint8_t *pixels = calloc (row * p->height, 1);
  uint8_t *out = calloc (row * p->height, 1);
  ClfHostFrame src = { {pixels}, {row} }, dst = { {out}, {row} };
  cl_mem mem = NULL;

  switch (which) {
    case 5:
      params.radius = CLF_MAX_RADIUS + 1 + take (in);
      break;
    case 6:
      params.mode = (ClfMode) (CLF_MODE_LAPLACE + 1 + take (in) % 8);
      break;
    case 7:
      stride = row - 1 - take (in) % row;  /* shorter than a row */
      (take (in) & 1 ? &src : &dst)->stride[0] = stride;
      break;
    default:{
      /* A device plane that runs past the end of its buffer. */
      cl_int status;
      size_t buffer_size = row * p->height;
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
      ClfFrame to = { {NULL}, {0}, {out}, {row} };
      if (clf_plan_process (plan, &params, &from, &to, &stats, &err)
          || err.code != CLF_ERROR_INVALID)
        fail ("a plane beyond its device buffer was accepted", &format,
            &params, 0, 0, from.offset[0], err.code, CLF_ERROR_INVALID);
      break;
    }
  }
  if (!mem && (clf_plan_process_host (plan, &params, &src, &dst, &stats,
              &err) || err.code != CLF_ERROR_INVALID))
    fail ("invalid parameters or a short stride were accepted", &format,
        &params, 0, 0, stride, err.code, CLF_ERROR_INVALID);
  clf_error_clear (&err);
  if (mem)
    clReleaseMemObject (mem);
  free (pixels);
  free (out);
  clf_plan_free (plan);
}

static void
decode_format (Input * in, ClfFrameFormat * format, size_t src_pad[],
    size_t dst_pad[], bool on_device[])
{
  memset (format, 0, sizeof *format);
  format->n_planes = 1 + take (in) % CLF_MAX_PLANES;
  for (uint32_t i = 0; i < format->n_planes; i++) {
    ClfPlaneFormat *p = &format->planes[i];
    p->width = 1 + take (in) % MAX_SIDE;
    p->height = 1 + take (in) % MAX_SIDE;
    p->bpp = 1 + take (in) % 4;
    uint8_t all = (uint8_t) ((1u << p->bpp) - 1);
    p->blur_mask = take (in) & all;
    p->laplace_mask = take (in) & all;
    uint8_t layout = take (in);
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
    const ClfPlaneFormat *p = &format->planes[i];
    src->stride[i] = (size_t) p->width * p->bpp + src_pad[i];
    size_t bytes = src->stride[i] * p->height;
    src->data[i] = malloc (bytes);
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
    if (!on_device[i])
      continue;
    frame->offset[i] = offset;
    offset += host->stride[i] * format->planes[i].height + 5;
  }
  if (offset == 3)
    return NULL;
  size = offset;

  uint8_t *bytes = malloc (size);
  memset (bytes, CANARY, size);
  for (uint32_t i = 0; i < format->n_planes; i++)
    if (on_device[i])
      memcpy (bytes + frame->offset[i], host->data[i],
          host->stride[i] * format->planes[i].height);
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
  for (uint32_t i = 0; i < format->n_planes; i++) {
    const ClfPlaneFormat *p = &format->planes[i];
    size_t row = (size_t) p->width * p->bpp;
    for (uint32_t y = 0; y < p->height; y++)
      for (size_t x = 0; x < got->stride[i]; x++) {
        unsigned g = got->data[i][y * got->stride[i] + x];
        unsigned w = x < row ? want->data[i][y * want->stride[i] + x] :
            CANARY;
        if (g != w)
          fail (x < row ? "a byte differs from the reference" :
              "a padding byte of the destination changed", format, params,
              i, y, x, g, w);
      }
  }
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

  ClfError err = { 0 };
  ClfPlan *plan = clf_plan_new (engine, &format, &err);
  if (!plan) {
    fprintf (stderr, "fuzz-plan: clf_plan_new refused a valid format: %s\n",
        err.message);
    abort ();
  }

  ClfHostFrame src, want, got;
  ClfFrame from = { {NULL} }, to = { {NULL} };
  fill_source (&in, &format, src_pad, &src);
  cl_mem mem = upload_planes (engine, &format, on_device, &src, &from);
  memset (&want, 0, sizeof want);
  memset (&got, 0, sizeof got);
  for (uint32_t i = 0; i < format.n_planes; i++) {
    const ClfPlaneFormat *p = &format.planes[i];
    size_t row = (size_t) p->width * p->bpp;
    want.stride[i] = row;
    want.data[i] = malloc (row * p->height);
    got.stride[i] = to.stride[i] = row + dst_pad[i];
    got.data[i] = to.data[i] = malloc (got.stride[i] * p->height);
  }

  for (uint32_t f = 0; f < n_frames; f++) {
    ClfFrameStats stats;
    for (uint32_t i = 0; i < format.n_planes; i++)
      memset (got.data[i], CANARY, got.stride[i] * format.planes[i].height);
    bool ok = mem ? clf_plan_process (plan, &params[f], &from, &to, &stats,
        &err) : clf_plan_process_host (plan, &params[f], &src, &got, &stats,
        &err);
    if (!ok) {
      fprintf (stderr, "fuzz-plan: filtering failed: %s\n", err.message);
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
