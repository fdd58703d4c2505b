/* What the files of the errors suite (errors*.c, the meson test `errors`)
 * share: each file's tests added to the suite. */
#pragma once

#include <gst/check/gstcheck.h>

#include "framecheck.h"

/* The error already popped was the only one: the element does not post
 * the same error again when GstBaseTransform retries the caps. */
void expect_no_more_errors (GstBus * bus);

/* errors-stream.c: OpenCL calls failing while frames flow. */
void errors_stream_add_tests (TCase * tc);
