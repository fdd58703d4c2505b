/* Fault injection for the tests, compiled in only with meson's
 * -Dtest-hooks=true (CLF_TEST_HOOKS in config.h); without it every hook is
 * a constant and costs nothing.
 *
 *   CLFILTER_TEST_FAIL_CALL=name:N   the Nth call (from 1, counted over the
 *                                    process) of OpenCL function `name`
 *                                    made by the engine is not made and
 *                                    fails with CL_OUT_OF_RESOURCES
 *   CLFILTER_TEST_BAD_SOURCE=text    `text` is compiled after the kernels'
 *                                    sources (and the binary cache is not
 *                                    used), so the build fails with a log
 */
#pragma once

#include "config.h"

#include <CL/cl.h>

#if CLF_TEST_HOOKS
/* CL_OUT_OF_RESOURCES when this call of `call` is the one to fail, else
 * CL_SUCCESS: the caller then makes the call. */
cl_int clf_test_fault (const char *call);
/* Starts counting calls again (after CLFILTER_TEST_FAIL_CALL changed). */
void clf_test_fault_reset (void);
/* CLFILTER_TEST_BAD_SOURCE, or NULL. */
const char *clf_test_bad_source (void);
#else
#define clf_test_fault(call) CL_SUCCESS
#define clf_test_fault_reset() ((void) 0)
#define clf_test_bad_source() ((const char *) NULL)
#endif
