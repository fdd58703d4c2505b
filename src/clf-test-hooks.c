/* Fault injection for the tests (see clf-test-hooks.h); only built with
 * -Dtest-hooks=true. */
#include "clf-test-hooks.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong matching_calls;

cl_int
clf_test_fault (const char *call)
{
  const char *spec = getenv ("CLFILTER_TEST_FAIL_CALL");
  const char *colon = spec ? strrchr (spec, ':') : NULL;
  if (!colon || strlen (call) != (size_t) (colon - spec)
      || strncmp (spec, call, (size_t) (colon - spec)) != 0)
    return CL_SUCCESS;
  unsigned long nth = strtoul (colon + 1, NULL, 10);
  unsigned long count = atomic_fetch_add (&matching_calls, 1) + 1;
  return count == nth ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

void
clf_test_fault_reset (void)
{
  atomic_store (&matching_calls, 0);
}

const char *
clf_test_bad_source (void)
{
  return getenv ("CLFILTER_TEST_BAD_SOURCE");
}
