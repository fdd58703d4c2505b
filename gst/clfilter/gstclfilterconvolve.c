/* GStreamer
 * gst-clfilter: real-time OpenCL video filters.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */

/* mode=convolve's properties: `kernel` (a GstValueArray of K*K gint),
 * `divisor`, `bias`, and `preset`, which sets the three from a named
 * kernel.  A kernel of a size the engine cannot take is refused when set,
 * as GObject refuses a value out of range: a g_warning that says why, and
 * the property keeps its kernel; applications are told by a warning
 * message on the bus (once the element has one).  Setting any of them
 * while `mode` is another is said once a start, also as a warning. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfilter-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

/* This file's entries of the element's property table. */
static GParamSpec *properties[N_PROPS];

#define DEFAULT_PRESET GST_CL_FILTER_PRESET_SHARPEN

/* `mid_bias`: the bias is the mid value of the samples' depth (128 for
 * 8 bits, the `bias` property's value; 512 for 10 bits, 32768 for 16),
 * so that flat areas come out mid grey at any depth, and chroma is
 * neutral: the picture is grey. */
typedef struct
{
  guint size;
  gint divisor;
  gint bias;
  const gint *coeffs;
  gboolean mid_bias;
} Preset;

static const gint sharpen[] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
static const gint gaussian3[] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };

static const gint gaussian5[] = {
  1, 4, 6, 4, 1,
  4, 16, 24, 16, 4,
  6, 24, 36, 24, 6,
  4, 16, 24, 16, 4,
  1, 4, 6, 4, 1,
};

/* The 7x7 motion blur at 45 degrees of the classic OpenCL convolution
 * exercise: its coefficients x 10000, 42 given and 7 left 0; the divisor
 * is their sum, 7968. */
static const gint motion_blur[] = {
  0, 0, 0, 0, 0, 145, 0,
  0, 0, 0, 0, 376, 1283, 145,
  0, 0, 0, 376, 1283, 376, 0,
  0, 376, 1283, 376, 0, 0, 0,
  145, 1283, 376, 0, 0, 0, 0,
  0, 145, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0,
};

static const gint emboss[] = { -1, -1, 0, -1, 0, 1, 0, 1, 1 };
static const gint sobel_x[] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
static const gint sobel_y[] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };

/* Indexed by GstClFilterPreset; custom has none. */
static const Preset presets[] = {
  [GST_CL_FILTER_PRESET_SHARPEN] = {3, 1, 0, sharpen},
  [GST_CL_FILTER_PRESET_GAUSSIAN_3X3] = {3, 0, 0, gaussian3},
  [GST_CL_FILTER_PRESET_GAUSSIAN_5X5] = {5, 0, 0, gaussian5},
  [GST_CL_FILTER_PRESET_MOTION_BLUR] = {7, 0, 0, motion_blur},
  [GST_CL_FILTER_PRESET_EMBOSS] = {3, 1, 128, emboss, TRUE},
  [GST_CL_FILTER_PRESET_SOBEL_X] = {3, 1, 128, sobel_x, TRUE},
  [GST_CL_FILTER_PRESET_SOBEL_Y] = {3, 1, 128, sobel_y, TRUE},
};

GType
gst_cl_filter_preset_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_FILTER_PRESET_CUSTOM, "The kernel, divisor and bias as set",
        "custom"},
    {GST_CL_FILTER_PRESET_SHARPEN, "3x3 sharpen: 5 in the centre, -1 "
          "beside", "sharpen"},
    {GST_CL_FILTER_PRESET_GAUSSIAN_3X3, "3x3 Gaussian blur (1 2 1)^2 / 16",
        "gaussian-3x3"},
    {GST_CL_FILTER_PRESET_GAUSSIAN_5X5, "5x5 Gaussian blur (1 4 6 4 1)^2 / "
          "256", "gaussian-5x5"},
    {GST_CL_FILTER_PRESET_MOTION_BLUR, "7x7 motion blur at 45 degrees",
        "motion-blur"},
    {GST_CL_FILTER_PRESET_EMBOSS, "3x3 emboss of luma, bias mid grey (128 "
          "at 8 bits, 2^(depth-1) above), chroma neutral", "emboss"},
    {GST_CL_FILTER_PRESET_SOBEL_X, "Sobel x: vertical edges of luma, bias "
          "mid grey, chroma neutral", "sobel-x"},
    {GST_CL_FILTER_PRESET_SOBEL_Y, "Sobel y: horizontal edges of luma, bias "
          "mid grey, chroma neutral", "sobel-y"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClFilterPreset",
            values));
  return type;
}

static void
kernel_from_preset (ClfKernel * kernel, GstClFilterPreset preset)
{
  const Preset *p = &presets[preset];

  memset (kernel, 0, sizeof *kernel);
  kernel->size = p->size;
  kernel->divisor = p->divisor;
  kernel->bias = p->bias;
  for (guint i = 0; i < p->size * p->size; i++)
    kernel->coeffs[i] = p->coeffs[i];
}

void
gst_cl_filter_convolve_install (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE;

  /* Not controllable: no control binding takes an array. */
  properties[PROP_KERNEL] = gst_param_spec_array ("kernel", "Kernel",
      "mode=convolve: K*K integer coefficients in rows, K odd, 1 to 15, "
      "e.g. \"<0,-1,0,-1,5,-1,0,-1,0>\"; correlated as OpenCV's filter2D. "
      "Another size is refused with a warning (on stderr and the bus); not "
      "controllable",
      g_param_spec_int ("coefficient", "Coefficient", "A coefficient",
          G_MININT, G_MAXINT, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
      flags & ~GST_PARAM_CONTROLLABLE);
  properties[PROP_DIVISOR] = g_param_spec_int ("divisor", "Divisor",
      "mode=convolve: the sum is divided by this, rounded half away from "
      "zero; 0 = the sum of the coefficients (1 where that is 0)",
      G_MININT, G_MAXINT, presets[DEFAULT_PRESET].divisor, flags);
  properties[PROP_BIAS] = g_param_spec_int ("bias", "Bias",
      "mode=convolve: added after the division, then the value is clamped "
      "to the component's range; in the component's own units (mid grey: "
      "128 at 8 bits, 512 at 10, 32768 at 16)", G_MININT, G_MAXINT,
      presets[DEFAULT_PRESET].bias, flags);
  properties[PROP_PRESET] = g_param_spec_enum ("preset", "Preset",
      "mode=convolve: sets kernel, divisor and bias to a named kernel "
      "(emboss and sobel: a grey picture, chroma neutral); custom once any "
      "of them is set on its own, and then chroma is filtered as luma.  "
      "Any of these four set while mode is another posts a warning at the "
      "first frame", GST_TYPE_CL_FILTER_PRESET, DEFAULT_PRESET, flags);
  for (guint i = PROP_KERNEL; i <= PROP_PRESET; i++)
    g_object_class_install_property (gobject_class, i, properties[i]);
}

gboolean
gst_cl_filter_convolve_owns (guint prop_id)
{
  return prop_id >= PROP_KERNEL && prop_id <= PROP_PRESET;
}

void
gst_cl_filter_convolve_init (GstClFilter * self)
{
  self->preset = DEFAULT_PRESET;
  kernel_from_preset (&self->kernel, DEFAULT_PRESET);
}

/* The K of a kernel of n values, or 0 where n is no K*K with K odd up to
 * CLF_MAX_KERNEL_SIZE. */
static guint
kernel_side (guint n)
{
  for (guint k = 1; k <= CLF_MAX_KERNEL_SIZE; k += 2)
    if (k * k == n)
      return k;
  return 0;
}

/* The kernel of a GstValueArray of gint, or FALSE with `why` set. */
static gboolean
kernel_from_array (const GValue * value, ClfKernel * kernel, gchar ** why)
{
  guint n = gst_value_array_get_size (value);
  guint side = kernel_side (n);

  if (!side) {
    *why = g_strdup_printf ("%u values: a kernel is K*K values with K odd, "
        "1 to %d (1, 9, 25, ..., 225)", n, CLF_MAX_KERNEL_SIZE);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    const GValue *c = gst_value_array_get_value (value, i);
    GType type = c ? G_VALUE_TYPE (c) : G_TYPE_INVALID;
    if (type != G_TYPE_INT) {
      *why = g_strdup_printf ("value %u is a %s, not an integer (gint)", i,
          type ? g_type_name (type) : "nothing");
      return FALSE;
    }
    kernel->coeffs[i] = g_value_get_int (c);
  }
  for (guint i = n; i < G_N_ELEMENTS (kernel->coeffs); i++)
    kernel->coeffs[i] = 0;
  kernel->size = side;
  return TRUE;
}

static void
notify_kernel (GstClFilter * self, gboolean preset_set)
{
  if (preset_set) {
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KERNEL]);
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DIVISOR]);
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BIAS]);
  } else {
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRESET]);
  }
}

void
gst_cl_filter_convolve_set_property (GstClFilter * self,
    GstClFilterProp prop, const GValue * value)
{
  ClfKernel kernel;
  gchar *why = NULL;
  gboolean was_custom;

  GST_OBJECT_LOCK (self);
  kernel = self->kernel;
  was_custom = self->preset == GST_CL_FILTER_PRESET_CUSTOM;
  self->convolve_set = TRUE;
  switch (prop) {
    case PROP_KERNEL:
      if (!kernel_from_array (value, &kernel, &why))
        break;
      self->kernel.size = kernel.size;
      memcpy (self->kernel.coeffs, kernel.coeffs, sizeof kernel.coeffs);
      self->preset = GST_CL_FILTER_PRESET_CUSTOM;
      break;
    case PROP_DIVISOR:
      self->kernel.divisor = g_value_get_int (value);
      self->preset = GST_CL_FILTER_PRESET_CUSTOM;
      break;
    case PROP_BIAS:
      self->kernel.bias = g_value_get_int (value);
      self->preset = GST_CL_FILTER_PRESET_CUSTOM;
      break;
    case PROP_PRESET:
      self->preset = g_value_get_enum (value);
      if (self->preset != GST_CL_FILTER_PRESET_CUSTOM)
        kernel_from_preset (&self->kernel, self->preset);
      break;
    default:
      g_assert_not_reached ();
  }
  GST_OBJECT_UNLOCK (self);

  if (why) {
    gchar *text = g_strdup_printf ("kernel refused: %s; it stays %ux%u",
        why, kernel.size, kernel.size);

    /* As GObject refuses a value out of range. */
    g_warning ("%s: %s", GST_OBJECT_NAME (self), text);
    GST_OBJECT_LOCK (self);
    g_free (self->refused_kernel);
    self->refused_kernel = text;
    GST_OBJECT_UNLOCK (self);
    g_free (why);
    gst_cl_filter_convolve_post_pending (self);
  } else if (prop == PROP_PRESET) {
    if (g_value_get_enum (value) != GST_CL_FILTER_PRESET_CUSTOM)
      notify_kernel (self, TRUE);
  } else if (!was_custom) {
    notify_kernel (self, FALSE);
  }
}

void
gst_cl_filter_convolve_kernel_for_depth (GstClFilter * self, guint depth,
    ClfKernel * kernel)
{
  *kernel = self->kernel;
  if (self->preset != GST_CL_FILTER_PRESET_CUSTOM
      && presets[self->preset].mid_bias) {
    kernel->chroma = CLF_CHROMA_NEUTRAL;
    if (depth > 0)
      kernel->bias = 1 << (depth - 1);
  }
}

void
gst_cl_filter_convolve_post_pending (GstClFilter * self)
{
  GstBus *bus = gst_element_get_bus (GST_ELEMENT (self));
  gchar *text;

  if (!bus)
    return;
  gst_object_unref (bus);
  GST_OBJECT_LOCK (self);
  text = g_steal_pointer (&self->refused_kernel);
  GST_OBJECT_UNLOCK (self);
  if (text)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s", text),
        ("the kernel property takes K*K integers with K odd, 1 to %d, in "
            "rows", CLF_MAX_KERNEL_SIZE));
  g_free (text);
}

void
gst_cl_filter_convolve_check_used (GstClFilter * self, ClfMode mode)
{
  gboolean say;

  GST_OBJECT_LOCK (self);
  say = self->convolve_set && mode != CLF_MODE_CONVOLVE
      && !self->convolve_unused_said;
  self->convolve_unused_said |= say;
  GST_OBJECT_UNLOCK (self);
  if (say)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("kernel, divisor, bias and preset apply to mode=convolve only; "
            "mode is %s, so they do nothing: set mode=convolve to use them",
            clf_mode_name (mode)), (NULL));
}

void
gst_cl_filter_convolve_get_property (GstClFilter * self,
    GstClFilterProp prop, GValue * value)
{
  GST_OBJECT_LOCK (self);
  switch (prop) {
    case PROP_KERNEL:
      for (guint i = 0; i < self->kernel.size * self->kernel.size; i++) {
        GValue c = G_VALUE_INIT;
        g_value_init (&c, G_TYPE_INT);
        g_value_set_int (&c, self->kernel.coeffs[i]);
        gst_value_array_append_and_take_value (value, &c);
      }
      break;
    case PROP_DIVISOR:
      g_value_set_int (value, self->kernel.divisor);
      break;
    case PROP_BIAS:
      g_value_set_int (value, self->kernel.bias);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, self->preset);
      break;
    default:
      g_assert_not_reached ();
  }
  GST_OBJECT_UNLOCK (self);
}
