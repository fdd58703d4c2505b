/* Helpers shared by the test and benchmark programs (util.h). */
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
clf_test_compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
clf_test_median (double *v, size_t n)
{
  qsort (v, n, sizeof *v, clf_test_compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void
clf_test_remove_tree (const char *path)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return;
  DIR *d = S_ISDIR (st.st_mode) ? opendir (path) : NULL;
  for (struct dirent * de; d && (de = readdir (d));) {
    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    char child[1024];
    snprintf (child, sizeof child, "%s/%s", path, de->d_name);
    clf_test_remove_tree (child);
  }
  if (d)
    closedir (d);
  remove (path);
}

double
clf_test_box_reads (const ClfFrameFormat * format, uint32_t radius)
{
  double side = 2.0 * radius + 1, reads = 0;
  for (uint32_t i = 0; i < format->n_components; i++)
    reads += side * side * format->components[i].width
        * format->components[i].height;
  return reads;
}

const char *const kernel_kind_names[N_KERNEL_KINDS] = {
  "small", "rank-1", "huge", "negative", "zero-sum", "huge rank-1",
  "sparse",
};

ClfKernel
random_kernel (uint32_t size, int kind, ClfTestRandomIn random_in)
{
  ClfKernel k = {.size = size };
  int32_t u[CLF_MAX_KERNEL_SIZE], v[CLF_MAX_KERNEL_SIZE];
  for (uint32_t i = 0; i < size; i++) {
    u[i] = (int32_t) (kind == KERNEL_HUGE_RANK1 ? random_in (-46340, 46340) :
        random_in (-6, 6));
    v[i] = (int32_t) (kind == KERNEL_HUGE_RANK1 ? random_in (-46340, 46340) :
        random_in (-6, 6));
  }
  int64_t sum = 0;
  for (uint32_t i = 0; i < size * size; i++) {
    int64_t c;
    switch (kind) {
      case KERNEL_RANK1:
      case KERNEL_HUGE_RANK1:
        c = (int64_t) u[i / size] * v[i % size];
        break;
      case KERNEL_HUGE:
        c = random_in (INT32_MIN, INT32_MAX);
        break;
      case KERNEL_NEGATIVE:
        c = random_in (-9, 2);
        break;
      case KERNEL_SPARSE:
        c = random_in (0, 3) == 0 ? random_in (-2000, 2000) : 0;
        break;
      default:
        c = random_in (-8, 8);
    }
    k.coeffs[i] = (int32_t) c;
    sum += c;
  }
  if (kind == KERNEL_ZERO_SUM) {
    k.coeffs[size * size / 2] -= (int32_t) sum;
    k.bias = (int32_t) random_in (0, 255);
  } else if (kind == KERNEL_HUGE) {
    k.divisor = (int32_t) random_in (INT32_MIN, INT32_MAX);
    k.bias = (int32_t) random_in (INT32_MIN, INT32_MAX)
        >> random_in (0, 31);
  } else if (kind == KERNEL_NEGATIVE && sum > 0) {
    k.coeffs[0] -= (int32_t) sum + 1;
  }
  return k;
}

bool
clf_test_first_difference (const ClfFrameFormat * format,
    const ClfHostFrame * got, const ClfHostFrame * want, uint8_t canary,
    ClfTestDifference * d)
{
  for (uint32_t i = 0; i < format->n_planes; i++) {
    size_t row = clf_frame_format_row_bytes (format, i);
    for (uint32_t y = 0; y < clf_frame_format_rows (format, i); y++)
      for (size_t x = 0; x < got->stride[i]; x++) {
        uint8_t g = got->data[i][y * got->stride[i] + x];
        uint8_t w = x < row ? want->data[i][y * want->stride[i] + x] : canary;
        if (g != w) {
          d->plane = i;
          d->y = y;
          d->x = x;
          d->got = g;
          d->want = w;
          d->padding = x >= row;
          return true;
        }
      }
  }
  return false;
}
