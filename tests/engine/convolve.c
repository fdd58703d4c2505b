/* Engine tests, group convolve (test-engine convolve): mode=convolve: every
 * kernel size, format, extreme and bound of the float sums. */
#include "engine-common.h"

/* ---- mode=convolve ------------------------------------------------------ */

/* One kernel over one random frame, both borders, against the reference;
 * the plan is the caller's (kernels change between frames of one plan). */
static void
check_convolve (ClfPlan * plan, const char *layout,
    const ClfFrameFormat * format, const ClfHostFrame * in,
    const ClfKernel * kernel, const char *kind)
{
  for (ClfBorder border = CLF_BORDER_CLAMP; border <= CLF_BORDER_MIRROR;
      border++) {
    ClfParams params = {.mode = CLF_MODE_CONVOLVE,.border = border,
      .kernel = *kernel
    };
    char what[200];
    snprintf (what, sizeof what, "%s %ux%u convolve %ux%u %s divisor=%d "
        "bias=%d border=%s%s", layout, format->components[0].width,
        format->components[0].height, kernel->size, kernel->size, kind,
        kernel->divisor, kernel->bias, clf_border_name (border),
        kernel->chroma == CLF_CHROMA_NEUTRAL ? " chroma=neutral" : "");
    check_against_reference (plan, &params, format, what, in);
  }
}

/* Every odd K from 1 to 15 and every kind of kernel on planes of odd
 * sizes (widths no multiple of 4 or 16, planes smaller than the kernel,
 * a frame of several work-groups), gray, RGB, RGBx, xRGB and pixels of 3
 * samples with the middle one copied; in the quick
 * tier a sixth of size x K x kind, each K and kind still on every size. */
static void
check_convolve_sizes (void)
{
  static const struct
  {
    uint32_t w, h;
  } conv_sizes[] = { {1, 1}, {7, 1}, {1, 7}, {13, 11}, {61, 37} };
  for (size_t s = 0; s < N_OF (conv_sizes); s++) {
    uint32_t w = conv_sizes[s].w, h = conv_sizes[s].h;
    const char *names[N_COLOUR_LAYOUTS];
    ClfFrameFormat layouts[N_COLOUR_LAYOUTS];
    colour_layouts (w, h, names, layouts);
    for (size_t l = 0; l < N_OF (layouts); l++) {
      ClfPlan *plan = plan_for (names[l], &layouts[l]);
      if (!plan)
        continue;
      ClfHostFrame in;
      test_frame_init (&in, &layouts[l], true);
      for (uint32_t size = 1; size <= CLF_MAX_KERNEL_SIZE; size += 2)
        for (int kind = 0; kind < N_KERNEL_KINDS; kind++)
          if (sampled (s + l + size / 2 + kind, N_KERNEL_KINDS)) {
            ClfKernel k = random_kernel (size, kind, random_in);
            check_convolve (plan, names[l], &layouts[l], &in, &k,
                kernel_kind_names[kind]);
          }
      test_frame_clear (&in);
      clf_plan_free (plan);
    }
  }
}

/* The deeper formats and the packed and planar families (16-bit either
 * byte order, 10 and 12 bits with a shift, packed 4:2:2, alpha in the
 * pixel and as a plane), each with a random K and kind (every family in
 * both tiers: its kernels are drawn anew each run), and with neutral
 * chroma. */
static void
check_convolve_formats (void)
{
  const char *names[16];
  ClfFrameFormat f[16];
  size_t n = format_families (37, 21, names, f);
  for (size_t i = 0; i < n; i++) {
    ClfPlan *plan = plan_for (names[i], &f[i]);
    if (!plan)
      continue;
    ClfHostFrame in;
    test_frame_init (&in, &f[i], true);
    for (int kind = 0; kind < N_KERNEL_KINDS; kind++)
      if (sampled (i + kind, 2)) {
        uint32_t size = 1 + 2 * (uint32_t) random_in (0, 7);
        ClfKernel k = random_kernel (size, kind, random_in);
        check_convolve (plan, names[i], &f[i], &in, &k,
            kernel_kind_names[kind]);
      }
    /* Neutral chroma (emboss's): chroma planes, chroma beside luma in a
     * pixel (packed 4:2:2 and 4:4:4), and formats with none. */
    ClfKernel k = random_kernel (3, KERNEL_SMALL, random_in);
    k.bias = (int32_t) random_in (-300, 70000);
    k.chroma = CLF_CHROMA_NEUTRAL;
    check_convolve (plan, names[i], &f[i], &in, &k, "small");
    test_frame_clear (&in);
    clf_plan_free (plan);
  }
}

/* The extremes of the arithmetic: frames of the largest values (every
 * bit set) and of checkerboards of 0 and the largest, for 8-bit and
 * 16-bit samples, with divisors and biases at the ends of 32 bits
 * (INT_MIN, whose |d| is 2^31, among them) and coefficients at the ends
 * of 32 bits, where |S| reaches 65535 * 225 * 2^31. */
static void
check_convolve_extremes (void)
{
  const char *names[N_EXTREME_FORMATS];
  ClfFrameFormat formats[N_EXTREME_FORMATS];
  extreme_formats (names, formats);
  static const int32_t divisors[] = { 0, 1, -1, INT32_MIN, INT32_MAX, 3, -7 };
  static const int32_t biases[] = { 0, INT32_MIN, INT32_MAX, -255, 65535 };
  static const int32_t fills[] = { INT32_MAX, INT32_MIN, 1, -1 };
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfFrameFormat *format = &formats[l];
    ClfPlan *plan = plan_for (names[l], format);
    if (!plan)
      continue;
    for (int checker = 0; checker < 2; checker++) {
      ClfHostFrame in;
      extreme_frame_init (&in, format, checker);
      for (size_t d = 0; d < N_OF (divisors); d++)
        for (size_t b = 0; b < N_OF (biases); b++) {
          if (!sampled (d + b + checker, 3))
            continue;
          /* 15x15 of one coefficient (rank 1), and a 15x15 of all four
           * (not rank 1). */
          ClfKernel k = {.size = CLF_MAX_KERNEL_SIZE,.divisor = divisors[d],
            .bias = biases[b]
          };
          const bool mixed = (d + b) % 2;
          for (uint32_t i = 0; i < k.size * k.size; i++)
            k.coeffs[i] = fills[mixed ? i % N_OF (fills) : (d + l) %
                N_OF (fills)];
          check_convolve (plan, names[l], format, &in, &k,
              checker ? "extreme, checkerboard" : "extreme, maximum");
        }
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* The host's side: the divisor resolved, the division by a multiply and
 * a shift (every n < 2^31 the int sums can give, for divisors of every
 * size), and the rank-1 factors. */
static void
check_convolve_host (void)
{
  ClfKernel k = {.size = 3,.coeffs = {1, 2, 1, 2, 4, 2, 1, 2, 1} };
  CHECK (clf_convolve_divisor (&k) == 16, "divisor of the Gaussian");
  int32_t u[CLF_MAX_KERNEL_SIZE], v[CLF_MAX_KERNEL_SIZE];
  CHECK (clf_convolve_rank1 (&k, u, v) && u[0] * v[0] == 1
      && u[1] * v[1] == 4, "the Gaussian is rank 1");
  ClfKernel sharpen = {.size = 3,.coeffs = {0, -1, 0, -1, 5, -1, 0, -1, 0} };
  CHECK (!clf_convolve_rank1 (&sharpen, u, v), "sharpen is not rank 1");
  ClfKernel zero = {.size = 3,.coeffs = {1, -1, 0, 0, 0, 0, 0, 0, 0} };
  CHECK (clf_convolve_divisor (&zero) == 1, "a sum of 0 divides by 1");
  ClfKernel big = {.size = 15 };
  for (int i = 0; i < 225; i++)
    big.coeffs[i] = INT32_MAX;
  CHECK (clf_convolve_divisor (&big) == 225 * (int64_t) INT32_MAX,
      "a sum past 32 bits");
  ClfKernel minimum = {.size = 3,.coeffs = {INT32_MIN},.divisor = 0 };
  CHECK (clf_convolve_rank1 (&minimum, u, v), "a lone -2^31 is rank 1");
  ClfKernel even = {.size = 4 };
  GError *err = NULL;
  CHECK (!clf_kernel_check (&even, &err)
      && g_error_matches (err, CLF_ERROR, CLF_ERROR_INVALID),
      "an even kernel is refused");
  g_clear_error (&err);
  for (int round = 0; round < 200000; round++) {
    ClfKernel one = {.size = 1,.coeffs = {1} };
    one.divisor = (int32_t) (uint32_t) next_random () >> (next_random () % 32);
    if (round % 1000 == 0)
      one.divisor = round % 2000 ? INT32_MIN : 1;
    ClfConvolveSetup s;
    clf_convolve_setup (&one, 8, false, &s);
    if (s.wide)
      continue;
    uint64_t n = next_random () >> (33 + next_random () % 31);
    if (round % 3 == 0)         /* next to a multiple of |d| */
      n = (n / s.abs_divisor * s.abs_divisor + s.abs_divisor - 1
          + next_random () % 3) % (UINT64_C (1) << 31);
    if (n >= UINT64_C (1) << 31)
      continue;
    CHECK ((n * s.mul) >> s.shift == n / s.abs_divisor, "%" PRIu64 " / %"
        PRIu64 " by multiply and shift", n, (uint64_t) s.abs_divisor);
  }
}

/* Sums next to 2^24, where the GPUs' tiles turn from float sums (exact
 * to 2^24) to int ones: 8-bit values of 255 at most and coefficients
 * whose sum of magnitudes is 65793 (255 * 65793 = 2^24 - 1, float sums)
 * or 65795 (an odd sum past 2^24, int sums), on a frame of 255s where
 * every window reaches that sum (divisor 1, the bias taking the sum back
 * to 128) and on a random one; 16-bit values with 256 (float) and 257
 * (int). */
static void
check_convolve_float_bound (void)
{
  static const struct
  {
    const char *name;
    uint32_t bytes;
    int64_t abs_sum;
  } cases[] = {
    {"gray", 1, 65793}, {"gray", 1, 65795}, {"gray16", 2, 256},
    {"gray16", 2, 257},
  };
  const char *names[16];
  ClfFrameFormat families[16];
  format_families (37, 29, names, families);
  for (size_t c = 0; c < N_OF (cases); c++) {
    /* (The first family is 16-bit gray.) */
    ClfFrameFormat f = cases[c].bytes == 1 ? one_plane (37, 29, 1, 1, 1) :
        families[0];
    ClfPlan *plan = plan_for (cases[c].name, &f);
    if (!plan)
      continue;
    for (int full = 0; full < 2; full++) {
      ClfHostFrame in;
      test_frame_init (&in, &f, !full);
      if (full)
        memset (in.data[0], 0xff, in.size[0]);
      /* 5x5, signs mixed, |k| summing to abs_sum. */
      ClfKernel k = {.size = 5,.divisor = 0 };
      int64_t left = cases[c].abs_sum;
      for (uint32_t i = 0; i < 25; i++) {
        int32_t m = (int32_t) (i < 24 ? left / (25 - i) : left);
        left -= m;
        k.coeffs[i] = full || i % 3 ? m : -m;
      }
      if (full) {
        /* S itself, less its exact value, around 128: an error of one
         * shows. */
        const int64_t max = cases[c].bytes == 1 ? 255 : 65535;
        k.divisor = 1;
        k.bias = (int32_t) (128 - max * cases[c].abs_sum);
      }
      check_convolve (plan, cases[c].name, &f, &in, &k,
          full ? "float bound, maximum" : "float bound, random");
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* A 5x5 of positive coefficients summing to abs_sum, not rank 1 (the
 * GPUs take it in one pass): their signs flipped every third one where
 * `mixed`. */
static ClfKernel
kernel_of_sum (int64_t abs_sum, bool mixed)
{
  ClfKernel k = {.size = 5 };
  for (uint32_t i = 0; i < 25; i++)
    k.coeffs[i] = (int32_t) (abs_sum / 25);
  k.coeffs[0] += (int32_t) (abs_sum % 25) + 7;
  k.coeffs[1] -= 7;
  for (uint32_t i = 0; mixed && i < 25; i += 3)
    k.coeffs[i] = -k.coeffs[i];
  return k;
}

/* The largest sum of |k| (a kernel_of_sum) whose 8-bit sums and their
 * rounding stay within 2^24, for divisor d: the float tiles' bound. */
static int64_t
float_tile_sum (int32_t d)
{
  return ((INT64_C (1) << 24) - llabs (d) / 2) / 255;
}

/* The largest sum of |k| whose 8-bit sums the strips divide as truncated
 * float products, for divisor d. */
static int64_t
strip_float_sum (int32_t d)
{
  const int64_t abs_d = llabs (d);
  return ((INT64_C (1) << 24) - 2 - abs_d - 3 * (abs_d / 2)) / (3 * 255);
}

/* S = -+(2^24 - 1), divisor 1, biases of +-2^24 (float sums) and one past
 * (int sums): 1 and 2, or clamped to 0 (on a frame of 255s). */
static void
check_float_bias (ClfPlan * plan, const char *name,
    const ClfFrameFormat * f, const ClfHostFrame * in)
{
  for (int sign = -1; sign <= 1; sign += 2)
    for (int past = 0; past < 2; past++) {
      ClfKernel k = kernel_of_sum (65793, false);
      for (uint32_t i = 0; i < 25; i++)
        k.coeffs[i] *= -sign;
      k.divisor = 1;
      k.bias = (int32_t) (sign * ((INT64_C (1) << 24) + past));
      check_convolve (plan, name, f, in, &k, "float quotient, bias");
    }
}

/* Kernels whose 8-bit sums sit at a float bound (`bound`: the largest sum
 * of |k| for a divisor), on gray and RGBA: for each divisor, one of that
 * sum on a random frame, signs mixed; and on a frame of 255s (the largest
 * sums) ones of that sum less o, o = 0..3, where the estimate rounds up
 * or down, less their quotient by a bias: 128 where exact.  `also`, where
 * given, adds its own kernels on the frame of 255s. */
static void
check_sums_at_bound (const char *what, const int32_t * divisors,
    size_t n_divisors, int64_t (*bound) (int32_t),
    void (*also) (ClfPlan *, const char *, const ClfFrameFormat *,
        const ClfHostFrame *))
{
  struct
  {
    const char *name;
    ClfFrameFormat f;
  } formats[] = {
    {"gray", one_plane (37, 29, 1, 1, 1)},
    {"rgba", one_plane (43, 19, 4, 0x7, 0x7)},
  };
  char random_what[64], maximum_what[64];
  snprintf (random_what, sizeof random_what, "%s, random", what);
  snprintf (maximum_what, sizeof maximum_what, "%s, maximum", what);
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfFrameFormat *f = &formats[l].f;
    ClfPlan *plan = plan_for (formats[l].name, f);
    if (!plan)
      continue;
    for (int full = 0; full < 2; full++) {
      ClfHostFrame in;
      test_frame_init (&in, f, !full);
      if (full)
        memset (in.data[0], 0xff, in.size[0]);
      for (size_t d = 0; d < n_divisors; d++) {
        const int64_t abs_d = llabs (divisors[d]);
        const int64_t largest = bound (divisors[d]);
        if (!full) {
          ClfKernel k = kernel_of_sum (largest, true);
          k.divisor = divisors[d];
          check_convolve (plan, formats[l].name, f, &in, &k, random_what);
          continue;
        }
        for (int o = 0; o < 4 && o < largest; o++) {
          ClfKernel k = kernel_of_sum (largest - o, false);
          k.divisor = divisors[d];
          const int64_t q = (255 * (largest - o) + abs_d / 2) / abs_d;
          k.bias = (int32_t) (128 - (divisors[d] < 0 ? -q : q));
          check_convolve (plan, formats[l].name, f, &in, &k, maximum_what);
        }
      }
      if (full && also)
        also (plan, formats[l].name, f, &in);
      test_frame_clear (&in);
    }
    clf_plan_free (plan);
  }
}

/* The float tiles' quotients (out_value_float in convolve.cl) where
 * floats just hold them: |S| + floor(|d| / 2) up to 2^24 for divisors of
 * every size below 2^23, either sign, on a random frame and on one of
 * 255s (the largest sums, a bias taking them back to 128); and biases of -+2^24 taking sums of about +-2^24
 * into 0..255.  The host takes the float tiles there and not a step past
 * (ClfConvolveSetup.float_sums). */
static void
check_convolve_float_quotient (void)
{
  static const int32_t divisors[] = { 1, 2, 3, 4, 5, 7, 255, 65535, -3,
    (1 << 23) - 1, -((1 << 23) - 1)
  };
  const int64_t limit = INT64_C (1) << 24;
  ClfConvolveSetup s;
  for (size_t d = 0; d < N_OF (divisors); d++) {
    ClfKernel k = kernel_of_sum (float_tile_sum (divisors[d]), false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, false, &s);
    CHECK (s.float_sums, "float sums for divisor %d", divisors[d]);
    k = kernel_of_sum (float_tile_sum (divisors[d]) + 1, false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, false, &s);
    CHECK (!s.float_sums, "no float sums past 2^24, divisor %d", divisors[d]);
  }
  ClfKernel k = kernel_of_sum (9, false);
  k.divisor = 1 << 23;
  clf_convolve_setup (&k, 8, false, &s);
  CHECK (!s.float_sums, "no float sums for a divisor of 2^23");
  k.divisor = 0;
  k.bias = (int32_t) limit;
  clf_convolve_setup (&k, 8, false, &s);
  CHECK (s.float_sums, "float sums for a bias of 2^24");
  k.bias = -(int32_t) limit - 1;
  clf_convolve_setup (&k, 8, false, &s);
  CHECK (!s.float_sums, "no float sums for a bias past -2^24");

  check_sums_at_bound ("float quotient", divisors, N_OF (divisors),
      float_tile_sum, check_float_bias);
}

/* The CPUs' strips' quotients (out_values_float16 in convolve.cl): n c
 * truncated, c = 1 / |d| rounded up (the host's), exact where 3 n + |d| +
 * 1 < 2^24 (ClfConvolveSetup.float_quotients).  On the host, the
 * arithmetic at both ends of every quotient's run of n up to that bound,
 * for every divisor up to 4096 and random ones up to 2^23, and the bound
 * itself; on the device, frames of 255s whose sums sit at the bound
 * (a bias taking each quotient back to 128), and random frames. */
static void
check_convolve_strip_quotients (void)
{
  const uint64_t limit = UINT64_C (1) << 24;
  ClfConvolveSetup s;
  uint64_t wrong = 0;
  for (uint32_t round = 0; round < 4096 + 20000; round++) {
    const uint32_t d = round < 4096 ? round + 1 :
        4097 + (uint32_t) (next_random () % ((1u << 23) - 4097));
    ClfKernel one = {.size = 1,.coeffs = {1},.divisor = (int32_t) d };
    clf_convolve_setup (&one, 8, true, &s);
    float c;
    memcpy (&c, &s.coeffs[s.n_coeffs - 1], sizeof c);
    const uint64_t n_max = (limit - d - 2) / 3;
    for (uint64_t q = 0; q * d <= n_max; q++) {
      const float first = (float) (q * d), last = (float) MIN (q * d + d - 1,
          n_max);
      wrong += (uint64_t) (first * c) != q || (uint64_t) (last * c) != q;
    }
  }
  CHECK (wrong == 0, "%" G_GUINT64_FORMAT " truncated float quotients "
      "wrong", wrong);

  static const int32_t divisors[] = { 1, 2, 3, 7, 255, 10000, 65535, -3,
    (1 << 22) + 1, -((1 << 22) + 1)
  };
  for (size_t d = 0; d < N_OF (divisors); d++) {
    ClfKernel k = kernel_of_sum (strip_float_sum (divisors[d]), false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, true, &s);
    CHECK (s.float_quotients, "truncated quotients for divisor %d",
        divisors[d]);
    k = kernel_of_sum (strip_float_sum (divisors[d]) + 1, false);
    k.divisor = divisors[d];
    clf_convolve_setup (&k, 8, true, &s);
    CHECK (!s.float_quotients, "no truncated quotients a step past, "
        "divisor %d", divisors[d]);
  }

  check_sums_at_bound ("truncated quotient", divisors, N_OF (divisors),
      strip_float_sum, NULL);
}

/* A 720p RGBA frame, 7x7: many work-groups and strips. */
static void
check_convolve_720p (void)
{
  ClfFrameFormat f = one_plane (1280, 720, 4, 0x7, 0x7);
  ClfPlan *plan = plan_for ("rgba", &f);
  if (!plan)
    return;
  ClfHostFrame in;
  test_frame_init (&in, &f, true);
  ClfKernel k = random_kernel (7, sampled (0, 2) ? KERNEL_SMALL :
      KERNEL_RANK1, random_in);
  check_convolve (plan, "rgba", &f, &in, &k, "720p");
  test_frame_clear (&in);
  clf_plan_free (plan);
}

/* Frames in device buffers and in host memory, planes at odd offsets
 * with odd strides, where a pixel of 2 or 4 bytes lies unaligned (the
 * other cases stage frames, pixels aligned): a dense and a sparse kernel
 * on RGBA and on pixels of two samples. */
static void
check_convolve_frames (void)
{
  const struct
  {
    const char *name;
    ClfFrameFormat f;
  } layouts[] = {
    {"rgba", one_plane (37, 53, 4, 0x7, 0x7)},
    {"gray+alpha", one_plane (29, 61, 2, 0x1, 0x1)},
  };
  const struct
  {
    uint32_t size;
    int kind;
  } kernels[] = { {7, KERNEL_SMALL}, {15, KERNEL_SPARSE} };
  for (size_t l = 0; l < N_OF (layouts); l++)
    for (size_t i = 0; i < N_OF (kernels); i++) {
      ClfParams params = {.mode = CLF_MODE_CONVOLVE,
        .border = (ClfBorder) (i % 2),
        .kernel = random_kernel (kernels[i].size, kernels[i].kind, random_in)
      };
      check_frame_pairings (layouts[l].name, &layouts[l].f, &params);
    }
}

/* A device of 32 KiB of local memory, the least OpenCL grants, through
 * the test layer (tests/layer), whose launches it fails where their local
 * memory passes that, as the device would: RGBA's large kernels take the
 * float tiles that fit it, not the tall ones, and xRGB's (4 float lanes)
 * kernels the int tiles, not the float ones. */
static void
check_convolve_small_local_memory (void)
{
  struct
  {
    const char *name;
    ClfFrameFormat f;
  } formats[] = {
    {"rgba, 32 KiB of local memory", one_plane (61, 37, 4, 0x7, 0x7)},
    {"xrgb, 32 KiB of local memory", one_plane (45, 39, 4, 0xe, 0xe)},
  };
  setenv ("CLF_TEST_LOCAL_MEM", "32768", 1);
  for (size_t l = 0; l < N_OF (formats); l++) {
    ClfFrameFormat *f = &formats[l].f;
    ClfPlan *plan = plan_for (formats[l].name, f);
    if (!plan)
      continue;
    ClfHostFrame in;
    test_frame_init (&in, f, true);
    for (uint32_t size = 3; size <= CLF_MAX_KERNEL_SIZE; size += 6) {
      ClfKernel k = random_kernel (size, KERNEL_SMALL, random_in);
      check_convolve (plan, formats[l].name, f, &in, &k, "small");
    }
    test_frame_clear (&in);
    clf_plan_free (plan);
  }
  unsetenv ("CLF_TEST_LOCAL_MEM");
}

void
test_convolve (void)
{
  check_convolve_host ();
  check_convolve_sizes ();
  check_convolve_formats ();
  check_convolve_extremes ();
  check_convolve_float_bound ();
  check_convolve_float_quotient ();
  check_convolve_strip_quotients ();
  check_convolve_720p ();
  check_convolve_frames ();
  check_convolve_small_local_memory ();
}
