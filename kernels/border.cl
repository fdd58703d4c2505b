/* The border rules, shared by every program (the filters' and the
 * conversion's, which sharpens for mode=laplace): which sample a position
 * outside a line of samples reads. */

/* The first source of every program, so also where its diagnostics are
 * set: clang warns that a 16-int vector passes between functions
 * differently on x86 CPUs with and without AVX-512 (-Wpsabi); PoCL
 * compiles a whole program, our functions and its builtins, for the one
 * CPU it runs on, so no call here can meet the other convention (other
 * compilers may not know the warning). */
#ifdef __has_warning
#if __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#endif

#define BORDER_CLAMP 0
#define BORDER_MIRROR 1

/* A walk along a line of n samples, one position at a time, giving the
 * sample each position reads: clamp repeats the edge sample; mirror reflects
 * without repeating the edge (reflect-101), as often as needed, so any
 * radius works on any size.  For mirror, `m` counts positions modulo one
 * reflection period, so a step costs no division. */
typedef struct {
  int m;
  int n;
  int period;
  int border;
} Walk;

Walk walk_from(int i, int n, int border)
{
  Walk w;
  w.n = n;
  w.border = border;
  w.period = max(2 * (n - 1), 1);
  if (border == BORDER_CLAMP) {
    w.m = i;
  } else {
    w.m = i % w.period;
    if (w.m < 0)
      w.m += w.period;
  }
  return w;
}

int walk_index(Walk w)
{
  if (w.border == BORDER_CLAMP)
    return clamp(w.m, 0, w.n - 1);
  return w.m < w.n ? w.m : w.period - w.m;
}

Walk walk_next(Walk w)
{
  w.m++;
  if (w.border == BORDER_MIRROR && w.m == w.period)
    w.m = 0;
  return w;
}

/* The sample that position i (any integer) reads, for a single look-up. */
int border_index(int i, int n, int border)
{
  if ((uint) i < (uint) n)
    return i;
  return walk_index(walk_from(i, n, border));
}
