/* The kernel catalogue (clf-catalogue.c): which kernels exist, the pixel
 * layouts a program is built for, which kernels and sources a program
 * holds and which passes a mode runs.  On clf.h alone: everything above it
 * (the cache, the engine, the plans) asks it, it asks none of them. */
#pragma once

#include "clf.h"

/* How the kernels see the pixels of a plane: a program is built for each
 * layout (kernels/common.cl lists its -D options). */
typedef struct {
  uint32_t sample_bytes;        /* a sample's container: 1 or 2 */
  uint32_t units;               /* samples per pixel, 1..4 (BPP) */
  uint32_t mask;                /* bit c: sample c is filtered */
  uint32_t depth;               /* of the filtered samples' values */
  uint32_t shift;
  bool swap;                    /* containers in the other byte order than
                                 * the device's */
  bool wide_sums;               /* 64-bit window sums: 16-bit layouts at
                                 * the radii whose sums pass 2^32 */
} ClfLayout;

bool clf_layout_equal (const ClfLayout * a, const ClfLayout * b);

/* The geometry of the GPUs' one-pass sliding blur (sliding_tiles in
 * kernels/blur-tiles-gpu.cl; separable_tiles takes the same tiles),
 * given to the kernels as -D options: a work-group's work-items, each
 * keeping the column sums of a run of whole pixels of up to 16 samples
 * (8 KiB of local memory for a row of them); and the largest radius it
 * takes.
 * It sums each pixel's window along the row from the column sums in local
 * memory, 2r + 1 reads a run.  Up to that radius, tiles of this many
 * work-items beat the two passes on the GPUs measured; larger tiles lost
 * (measurements: docs/performance/tuning.md). */
#define CLF_TILE_GROUP 128
#define CLF_TILES_MAX_RADIUS 15

static inline uint32_t
clf_tile_run_pixels (const ClfLayout * layout)
{
  return layout->units == 3 ? 5 : 16 / layout->units;
}

/* Whether a layout's tiles keep packed 16-bit sums, two to a word: 8-bit
 * values filling their bytes (the packed kernels add bytes as they are),
 * four a pixel (RGBA and its kin); the kernels' PACKED_TILES.
 * Only these have the separable blur in tiles (separable_tiles): the
 * other layouts' general tiles lost to the two passes (measurements:
 * docs/performance/tuning.md). */
static inline bool
clf_packed_tiles (const ClfLayout * layout)
{
  return layout->sample_bytes == 1 && layout->depth == 8
      && layout->units == 4;
}

/* The GPUs' sliding blur in two passes with 16-bit column sums
 * (narrow_column_sums, narrow_row_means in
 * kernels/blur-sliding-gpu.cl), for 8-bit samples up to the radius whose
 * column sums of 2r + 1 values fit 16 bits.  narrow_row_means keeps a chunk of a row's column sums in
 * CLF_NARROW_BYTES of local memory; with their pads, the chunk's means
 * (half as many bytes) and the scan of a work-group, within the 32 KiB
 * that OpenCL 1.2 devices have at least (blur-sliding-gpu.cl checks
 * it).  A row of 3840 RGBA pixels is two chunks at every radius they take, one of 1920
 * pixels takes one. */
#define CLF_NARROW_MAX_RADIUS 127
#define CLF_NARROW_BYTES 18176

static inline bool
clf_narrow_sums (const ClfLayout * layout)
{
  return layout->sample_bytes == 1;
}

/* The pixels of a chunk narrow_row_means keeps, r either side included. */
static inline uint32_t
clf_narrow_pixels (const ClfLayout * layout)
{
  return CLF_NARROW_BYTES / (2 * layout->units);
}

/* mode=convolve's tiles on GPUs (kernels/convolve.cl): work-groups of
 * CLF_CONV_GROUP x CLF_CONV_GROUP work-items, one a pixel, each group's
 * tile and its halo of up to CLF_MAX_KERNEL_SIZE / 2 pixels staged in
 * local memory. */
#define CLF_CONV_GROUP 16
/* The float tiles' work-groups are CLF_CONV_FLOAT_GROUP_X x
 * CLF_CONV_FLOAT_GROUP_Y work-items, each of CLF_CONV_FLOAT_ROWS pixels of
 * a column; the tall ones' (kernels of CLF_CONV_TALL_MIN_SIZE and more)
 * CLF_CONV_FLOAT_GROUP_X x CLF_CONV_TALL_GROUP_Y, each of
 * CLF_CONV_TALL_ROWS pixels; each where the device's local memory holds
 * its tile. */
#define CLF_CONV_FLOAT_GROUP_X 32
#define CLF_CONV_FLOAT_GROUP_Y 8
#define CLF_CONV_FLOAT_ROWS 4
#define CLF_CONV_TALL_GROUP_Y 4
#define CLF_CONV_TALL_ROWS 8
#define CLF_CONV_TALL_MIN_SIZE 9

/* The pixels of a float tile for a block `rows` high: the block and the
 * halo of the largest kernel. */
#define CLF_CONV_FLOAT_TILE_PIXELS(rows) \
  ((size_t) (CLF_CONV_FLOAT_GROUP_X + CLF_MAX_KERNEL_SIZE - 1) \
      * ((rows) + CLF_MAX_KERNEL_SIZE - 1))

/* Its local memory: a float for each of the kernels' float lanes (those
 * up to the layout's last filtered sample) a pixel, in planes, or as FVs
 * (the tall tiles: a float3 takes 16 bytes). */
static inline size_t
clf_conv_float_tile_bytes (const ClfLayout * layout, uint32_t rows,
    bool planes)
{
  size_t lanes = layout->mask >= 8 ? 4 : layout->mask >= 4 ? 3 :
      layout->mask >= 2 ? 2 : 1;
  return CLF_CONV_FLOAT_TILE_PIXELS (rows) * sizeof (float)
      * (lanes == 3 && !planes ? 4 : lanes);
}
/* The CPUs' strips find a tap's row and column as where / CLF_CONV_TAP_ROW
 * and where % CLF_CONV_TAP_ROW (above any K). */
#define CLF_CONV_TAP_ROW 256

/* The samples of a row that a work-item of the Gaussian's runs
 * (kernels/gaussian.cl's GAUSS_RUN) holds: a vector's worth on CPUs, 4
 * on GPUs, whose neighbouring work-items then read neighbouring words. */
static inline uint32_t
clf_gauss_run (bool cpu_kernels)
{
  return cpu_kernels ? 16 : 4;
}

/* The output rows the taps' column pass sums at once (GAUSS_TAP_BLOCK):
 * every row of H loaded goes into all of them, so a larger block loads
 * less.  CPUs then make block + 2R multiply-adds an output (fewer where
 * 2R >= block), GPUs 2R + 1 from a window of the block's rows in
 * registers, which 16 rows outgrow. */
#define CLF_GAUSS_TAP_BLOCK 8

/* The most taps of the Gaussian (kernels/gaussian-taps.cl sizes its
 * tables by it, GAUSS_MAX_TAPS). */
#define CLF_GAUSS_MAX_TAPS 49

/* GPUs' taps along rows (kernels/gaussian-taps.cl): a work-group of
 * CLF_GAUSS_TAP_GROUP a stretch of a row, each work-item
 * CLF_GAUSS_TAP_PIXELS pixels side by side. */
#define CLF_GAUSS_TAP_GROUP 64
#define CLF_GAUSS_TAP_PIXELS 8

/* GPUs' boxes along rows (kernels/gaussian-box-rows.cl): a work-group of
 * CLF_GAUSS_ROW_GROUP a row, each work-item CLF_GAUSS_ROW_STEPS positions
 * of a chunk (odd: see the kernel). */
#define CLF_GAUSS_ROW_GROUP 128
#define CLF_GAUSS_ROW_STEPS 9

/* CPUs' boxes down columns (kernels/gaussian-box-columns.cl): the runs a
 * work-item takes side by side, row by row. */
#define CLF_GAUSS_COLUMN_LINES 16

/* GPUs' boxes down columns from a scan's states
 * (kernels/gaussian-box-starts.cl): the rows of a run, and the radius
 * above which they take them (docs/performance/gaussian.md). */
#define CLF_GAUSS_STATE_RUN 64
#define CLF_GAUSS_STATES_MIN_RADIUS 384

/* Every kernel: its id indexes clf_kernel_names. */
typedef enum {
  K_BOX,
  K_ROWS_DIRECT,
  K_COLS_DIRECT,
  K_COLUMN_SUMS,
  K_ROW_MEANS_SCAN,
  K_LAPLACE_WORDS,
  K_LAPLACE_STRIPS,
  K_SEPARABLE_STRIPS,
  K_SLIDING_STRIPS,
  K_SLIDING_TILES,
  K_SEPARABLE_TILES,
  K_NARROW_COLUMN_SUMS,
  K_NARROW_ROW_MEANS,
  K_CONVOLVE_TILES,
  K_CONVOLVE_TILES_WIDE,
  K_CONVOLVE_RANK1_TILES,
  K_CONVOLVE_RANK1_TILES_WIDE,
  K_CONVOLVE_STRIPS,
  K_CONVOLVE_STRIPS_WIDE,
  K_CONVOLVE_TILES_FLOAT,
  K_CONVOLVE_TILES_FLOAT_TALL,
  K_CONVOLVE_STRIPS_FLOAT,
  K_CONVERT_PIXELS,
  K_GAUSS_TAP_ROWS,
  K_GAUSS_TAP_COLUMNS,
  K_GAUSS_BOX_ROWS,
  K_GAUSS_BOX_ROWS_WIDE,
  K_GAUSS_BOX_COLUMNS,
  K_GAUSS_BOX_COLUMNS_WIDE,
  K_GAUSS_BOX_STARTS,
  K_GAUSS_BOX_SCAN,
  N_KERNELS
} KernelId;

/* Every kernel, by name. */
#define CLF_N_KERNELS 31
extern const char *const clf_kernel_names[CLF_N_KERNELS];
/* Whether the layout takes kernel k (clf_kernel_names): the tiles'
 * separable blur and the narrow sums only some layouts do. */
bool clf_layout_has_kernel (const ClfLayout * layout, unsigned k);

/* What one work-item of a pass covers. */
typedef enum {
  ONE_PIXEL,
  COLUMN_SEGMENT,               /* `units` samples of `seg` consecutive rows */
  ROW_GROUP,                    /* a row per work-group (the kernel's size) */
  ROW_RUN,                      /* `units` samples of `rows` rows */
  ROW_CHUNKS,                   /* a work-group per chunk of `seg` pixels */
  STRIP,                        /* `seg` whole rows, alone in a work-group */
  TILE,                         /* a work-group per tile of `seg` rows */
} WorkShape;

typedef struct {
  KernelId kernel;
  WorkShape shape;
  unsigned units;               /* of a row, for COLUMN_SEGMENT and ROW_RUN */
  unsigned rows;                /* for ROW_RUN */
} Pass;

/* A mode's passes, and whether they keep sums in `sums`: row sums
 * between two passes, or a strip's column sums. */
typedef struct {
  unsigned n;
  Pass pass[2];
  bool uses_sums;
} ModePasses;

/* How kernels/convert.cl sees one colour component of the frame it reads
 * or writes (a ClfComponent, by pixel rather than by row): bytes == 0 for
 * a component the format lacks (alpha). */
typedef struct {
  uint8_t plane;
  uint8_t offset;
  uint8_t pstride;
  uint8_t xsub, ysub;           /* log2 of its subsampling */
  uint8_t depth, shift;
  uint8_t bytes;                /* its container, 1 or 2; 0: absent */
  bool swap;                    /* in the other byte order than the device's */
} ClfConvertSample;

/* The pixels of a conversion program: the components of its input and
 * output in colour order (clf.h: ClfConversion); for each output plane,
 * the bytes of a pixel that no component holds (bit b: byte b), which it
 * fills with 0xff (the x of BGRx), and its pixels' bytes; its arithmetic
 * (`wide`: the 16-bit one of inputs deeper than 8 bits) and how it brings
 * chroma to every pixel. */
typedef struct {
  ClfConvertDirection direction;
  ClfConvertSample in[4];
  ClfConvertSample out[4];
  uint8_t out_pad[4];
  uint8_t out_pstride[4];
  bool wide;
  ClfChromaUp chroma_up;
  bool h_cosited, v_cosited;
  bool runs;                    /* bytes in, bytes out in one plane: a
                                 * work-item converts a run of
                                 * CLF_CONVERT_RUN pixels */
  uint8_t sharpen;              /* bit c: input colour c sharpened as
                                 * mode=laplace does, in the same pass */
} ClfConvertLayout;

/* The work-items of a conversion's work-group: a run of a row; and the
 * pixels of a work-item's run, with `runs` (kernels/convert.cl's 16), or
 * without (GPUs: a work-item of one pixel left them launching work-items
 * rather than storing). */
#define CLF_CONVERT_GROUP 64
#define CLF_CONVERT_RUN 16
#define CLF_CONVERT_QUAD 4

/* The pixels of a row a work-item of `layout`'s conversion to RGB
 * converts (kernels/convert.cl's ITEM_PIXELS). */
uint32_t clf_convert_item_pixels (const ClfConvertLayout * layout);
/* The rows a work-item of `layout`'s conversion to RGB converts
 * (kernels/convert.cl's ITEM_ROWS): two with runs, which then share the
 * rows a sharpened run reads, and chroma where the rows share it. */
#define CLF_CONVERT_RUN_ROWS 2
uint32_t clf_convert_item_rows (const ClfConvertLayout * layout);

/* A program: the kernels of one set of passes that `mode` runs over
 * `layout` on one kind of device (clf_mode_passes: the CPUs' strips, or
 * the GPUs' tiles, narrow or wide passes, by radius; for convolve, no
 * passes: every kernel clf-convolve.c takes), and nothing else, since the
 * driver compiles every kernel a program holds.  Or, with `converts`, the
 * colour conversion of `convert`'s pixels (mode, layout and passes
 * unused).  Or, with `converts_luma`, GPUs' sliding_tiles over the luma
 * of a conversion into RGB, writing the output's pixels as `convert`
 * says (kernels/blur-tiles-gpu.cl). */
typedef struct {
  ClfLayout layout;
  ClfMode mode;
  bool cpu_kernels;
  const ModePasses *passes;
  bool converts;
  bool converts_luma;
  ClfConvertLayout convert;
} ClfProgramSpec;

/* The program that filters with `params` over `layout`. */
ClfProgramSpec clf_program_for (bool cpu_kernels, const ClfLayout * layout,
    const ClfParams * params);
/* Every program `mode` may need over `layout` on one kind of device (a
 * set of passes each, at some radius), into `programs`; returns how
 * many. */
#define CLF_MAX_MODE_PROGRAMS 3
unsigned clf_mode_programs (bool cpu_kernels, const ClfLayout * layout,
    ClfMode mode, ClfProgramSpec programs[CLF_MAX_MODE_PROGRAMS]);

bool clf_program_equal (const ClfProgramSpec * a, const ClfProgramSpec * b);
/* Whether the program has kernel k (clf_kernel_names). */
bool clf_program_has_kernel (const ClfProgramSpec * program, unsigned k);
/* The names of the program's kernels, into `names`, in clf_kernel_names'
 * order; returns how many.  One from the cache must hold them all. */
unsigned clf_program_kernels (const ClfProgramSpec * program,
    const char *names[CLF_N_KERNELS]);
/* The sources the program is built from, in build order, into `sources`
 * (room for CLF_N_KERNEL_SOURCES, clf-kernels.h); returns how many. */
unsigned clf_program_sources (const ClfProgramSpec * program,
    const char **sources);

/* The build options of a program, into `buf`, which they always fit:
 * the layout's and the kernels' geometry, and a WANT_<kernel> for each
 * kernel it holds. */
#define CLF_PROGRAM_OPTIONS_SIZE 2048
void clf_program_options (const ClfProgramSpec * program,
    char buf[CLF_PROGRAM_OPTIONS_SIZE]);

/* The passes of a blur or laplace (params->mode, checked) at
 * params->radius over a view of `layout`: with `cpu_kernels`, the CPUs'
 * strips; else the GPUs'
 * tiles at small radii, where the layout takes the mode's tile
 * kernel; the sliding blur's narrow passes where its column sums fit 16
 * bits; else the GPUs' passes. */
const ModePasses *clf_mode_passes (bool cpu_kernels, const ClfLayout * layout,
    const ClfParams * params);
