/* Engine tests, group matrix (test-engine matrix): the matrix:
 * every mode, border, radius and size of one byte a pixel. */
#include "engine-common.h"

/* The matrix: every mode x border x radius x size, one byte per
 * pixel. */
void
test_matrix (void)
{
  for (size_t s = 0; s < N_OF (sizes); s++)
    for (size_t r = 0; r < N_OF (radii); r++) {
      if (!sampled (s + r, N_OF (radii)))
        continue;
      ClfFrameFormat f = one_plane (sizes[s].w, sizes[s].h, 1, 1, 1);
      check_format_at_radius ("gray", &f, radii[r]);
    }
  /* The CPUs' sliding blur takes 8-bit means in float, as it is up to a
   * window of 127^2 and with a correction beyond (cpu_means in blur-strips-cpu.cl):
   * frames at the windows either side (test_means checks the arithmetic),
   * on rows that end in less than a run of 16 samples. */
  ClfFrameFormat rgba = one_plane (333, 97, 4, 0x7, 0x7);
  check_format_at_radius ("rgba", &rgba, 63);
  check_format_at_radius ("rgba", &rgba, 64);
}
