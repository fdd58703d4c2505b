/* Engine tests, group oracle (test-engine oracle): the oracle against the
 * blur's definition. */
#include "engine-common.h"

/* The oracle against the blur's definition on small planes. */
void
test_oracle (void)
{
  for (size_t s = 0; s < 4; s++)
    for (size_t r = 0; r < 5; r++)
      for (ClfBorder b = CLF_BORDER_CLAMP; b <= CLF_BORDER_MIRROR; b++) {
        ClfFrameFormat f = one_plane (sizes[s].w, sizes[s].h, 4, 0xB, 0xB);
        ClfParams params = { CLF_MODE_SEPARABLE, radii[r], b };
        ClfHostFrame in, a, d;
        char what[160];
        describe (what, sizeof what, "oracle", &f, &params);
        test_frame_init (&in, &f, true);
        test_frame_init (&a, &f, false);
        test_frame_init (&d, &f, false);
        clf_ref_filter_frame (&params, &f, &in, &a);
        clf_ref_blur_by_definition (&params, &f, &in, &d);
        frames_equal (&f, &a, &d, what);
        test_frame_clear (&in);
        test_frame_clear (&a);
        test_frame_clear (&d);
      }
  /* Reflect-101 by hand, as DESIGN spells it. */
  CHECK (clf_ref_border (-1, 5, CLF_BORDER_MIRROR) == 1, "mirror -1");
  CHECK (clf_ref_border (-2, 5, CLF_BORDER_MIRROR) == 2, "mirror -2");
  CHECK (clf_ref_border (5, 5, CLF_BORDER_MIRROR) == 3, "mirror n");
  CHECK (clf_ref_border (9, 5, CLF_BORDER_MIRROR) == 1, "mirror twice");
  CHECK (clf_ref_border (-7, 1, CLF_BORDER_MIRROR) == 0, "mirror 1 wide");
  CHECK (clf_ref_border (-3, 5, CLF_BORDER_CLAMP) == 0, "clamp low");
  CHECK (clf_ref_border (8, 5, CLF_BORDER_CLAMP) == 4, "clamp high");
}
