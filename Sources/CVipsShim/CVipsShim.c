// The wall around libvips: see include/CVipsShim.h.
//
// libvips is not linked: it is opened with dlopen on first use, and every libvips, glib
// and gobject function called here is resolved into a pointer of its declared type
// (p_vips_..., p_g_...), so that a process that draws no picture never maps libvips, glib
// and the ~100 libraries they pull in. The few libvips and glib types, constants and
// prototypes the shim needs are declared here, not taken from their headers (whose include
// folders only gobject-2.0's pkg-config file gives, together with `-lgobject-2.0
// -lglib-2.0`, which would link glib into every process); Scripts/check-c-declarations.sh
// compiles this file against the real headers (CVIPSSHIM_CHECK_DECLARATIONS), so a
// declaration that drifts from them fails `make lint`.
//
// Every image made during a call is recorded in a Pipeline and released when the call
// returns, on every path. libvips reports errors through a process-wide buffer; each
// failure takes (and clears) it into the caller's message.

#include "CVipsShim.h"

#include <dlfcn.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// Every constant the shim uses, with its value in libvips 8.14's and glib 2.74's headers.
#define CVIPSSHIM_CONSTANTS(X)              \
  X(TRUE, 1)                                \
  X(FALSE, 0)                               \
  X(G_LOG_LEVEL_WARNING, 1 << 4)            \
  X(G_LOG_LEVEL_MESSAGE, 1 << 5)            \
  X(G_LOG_LEVEL_INFO, 1 << 6)               \
  X(G_LOG_LEVEL_DEBUG, 1 << 7)              \
  X(VIPS_ANGLE_D0, 0)                       \
  X(VIPS_ANGLE_D90, 1)                      \
  X(VIPS_ANGLE_D180, 2)                     \
  X(VIPS_ANGLE_D270, 3)                     \
  X(VIPS_DIRECTION_HORIZONTAL, 0)           \
  X(VIPS_INTERESTING_NONE, 0)               \
  X(VIPS_INTERESTING_CENTRE, 1)             \
  X(VIPS_SIZE_BOTH, 0)                      \
  X(VIPS_SIZE_DOWN, 2)                      \
  X(VIPS_INTERPRETATION_B_W, 1)             \
  X(VIPS_INTERPRETATION_sRGB, 22)           \
  X(VIPS_INTERPRETATION_GREY16, 26)         \
  X(VIPS_FORMAT_UCHAR, 0)                   \
  X(VIPS_KERNEL_CUBIC, 2)                   \
  X(VIPS_FAIL_ON_NONE, 0)

// libvips's soname: libtool's current - age of the 8.14 headers (58 - 16).
#define CVIPSSHIM_SONAME "libvips.so.42"

#ifdef CVIPSSHIM_CHECK_DECLARATIONS
// The declarations below, checked against libvips's own (a redeclaration that differs is an
// error), and the constants and sizes compared.
#include <libdeflate.h>
#include <vips/vips.h>
#include <vips/vector.h>
#define CVIPSSHIM_COMPARE(name, value) _Static_assert((name) == (value), #name);
CVIPSSHIM_CONSTANTS(CVIPSSHIM_COMPARE)
#undef CVIPSSHIM_COMPARE
_Static_assert(VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE == 42, "libvips soname");
_Static_assert(sizeof(VipsAngle) == sizeof(int), "VipsAngle");
_Static_assert(sizeof(VipsDirection) == sizeof(int), "VipsDirection");
_Static_assert(sizeof(VipsInterpretation) == sizeof(int), "VipsInterpretation");
_Static_assert(sizeof(VipsBandFormat) == sizeof(int), "VipsBandFormat");
_Static_assert(sizeof(VipsFailOn) == sizeof(int), "VipsFailOn");
_Static_assert(sizeof(GLogLevelFlags) == sizeof(int), "GLogLevelFlags");
#else
typedef char gchar;
typedef int gboolean;
typedef unsigned int guint;
typedef unsigned long guint64;
typedef unsigned long GType;
typedef void *gpointer;
typedef struct _VipsImage VipsImage;
typedef struct _VipsArea VipsArea;
typedef struct _VipsArrayDouble VipsArrayDouble;
// The enums are int-sized; only their values cross the wall.
typedef int VipsAngle;
typedef int VipsDirection;
typedef int VipsInterpretation;
typedef int VipsBandFormat;
typedef int GLogLevelFlags;
typedef void (*GLogFunc)(
    const gchar *log_domain, GLogLevelFlags log_level, const gchar *message,
    gpointer user_data);
#define CVIPSSHIM_DEFINE(name, value) enum { name = (value) };
CVIPSSHIM_CONSTANTS(CVIPSSHIM_DEFINE)
#undef CVIPSSHIM_DEFINE
#endif

// The prototypes of every function called, as libvips 8.14's and glib's headers declare
// them.
void vips_area_unref(VipsArea *area);
VipsArrayDouble *vips_array_double_newv(int n, ...);
int vips_autorot(VipsImage *in, VipsImage **out, ...);
int vips_bandjoin(VipsImage **in, VipsImage **out, int n, ...);
void vips_block_untrusted_set(gboolean state);
void vips_cache_set_max(int max);
void vips_cache_set_max_files(int max_files);
void vips_cache_set_max_mem(size_t max_mem);
int vips_cast_uchar(VipsImage *in, VipsImage **out, ...);
int vips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space, ...);
void vips_concurrency_set(int concurrency);
int vips_copy(VipsImage *in, VipsImage **out, ...);
char *vips_error_buffer_copy(void);
void vips_error_clear(void);
int vips_extract_band(VipsImage *in, VipsImage **out, int band, ...);
int vips_flip(VipsImage *in, VipsImage **out, VipsDirection direction, ...);
int vips_flatten(VipsImage *in, VipsImage **out, ...);
const char *vips_foreign_find_load_buffer(const void *data, size_t size);
guint64 vips_format_sizeof(VipsBandFormat format);
int vips_image_get_bands(const VipsImage *image);
VipsBandFormat vips_image_get_format(const VipsImage *image);
int vips_image_get_height(const VipsImage *image);
int vips_image_get_int(const VipsImage *image, const char *name, int *out);
VipsInterpretation vips_image_get_interpretation(const VipsImage *image);
GType vips_image_get_typeof(const VipsImage *image, const char *name);
int vips_image_get_width(const VipsImage *image);
double vips_image_get_xres(const VipsImage *image);
double vips_image_get_yres(const VipsImage *image);
gboolean vips_image_hasalpha(VipsImage *image);
VipsImage *vips_image_new_from_buffer(
    const void *buf, size_t len, const char *option_string, ...);
VipsImage *vips_image_new_from_memory(
    const void *data, size_t size, int width, int height, int bands, VipsBandFormat format);
void *vips_image_write_to_memory(VipsImage *in, size_t *size);
int vips_init(const char *argv0);
int vips_jpegload_buffer(void *buf, size_t len, VipsImage **out, ...);
int vips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, ...);
void vips_operation_block_set(const char *name, gboolean state);
int vips_pngsave_buffer(VipsImage *in, void **buf, size_t *len, ...);
int vips_resize(VipsImage *in, VipsImage **out, double scale, ...);
int vips_rot(VipsImage *in, VipsImage **out, VipsAngle angle, ...);
int vips_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width, ...);
int vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, ...);
void vips_vector_set_enabled(gboolean enabled);
void g_free(gpointer mem);
gpointer g_try_malloc(size_t n_bytes);

// libdeflate's, as its 1.14 header declares them (opened with dlopen, never linked: see
// loadDeflate; libdeflate-dev, which libtiff-dev and so libvips-dev pull in, is needed
// only by the declarations check).
struct libdeflate_compressor;
struct libdeflate_compressor *libdeflate_alloc_compressor(int compression_level);
size_t libdeflate_zlib_compress(
    struct libdeflate_compressor *compressor, const void *in, size_t in_nbytes, void *out,
    size_t out_nbytes_avail);
size_t libdeflate_zlib_compress_bound(
    struct libdeflate_compressor *compressor, size_t in_nbytes);
void libdeflate_free_compressor(struct libdeflate_compressor *compressor);
void g_object_unref(gpointer object);
guint g_log_set_handler(
    const gchar *log_domain, GLogLevelFlags log_levels, GLogFunc log_func, gpointer user_data);

// Every libvips, glib and gobject function the shim calls (glib's and gobject's are found
// through libvips: dlsym on a handle searches the library and then the libraries it depends
// on). A call to one missing from this list fails to link (none of them is linked), so the
// list cannot fall behind the code.
#define CVIPSSHIM_FUNCTIONS(X)                                                             \
  X(vips_area_unref)                                                                       \
  X(vips_array_double_newv)                                                                \
  X(vips_autorot)                                                                          \
  X(vips_bandjoin)                                                                         \
  X(vips_block_untrusted_set)                                                              \
  X(vips_cache_set_max)                                                                    \
  X(vips_cache_set_max_files)                                                              \
  X(vips_cache_set_max_mem)                                                                \
  X(vips_cast_uchar)                                                                       \
  X(vips_colourspace)                                                                      \
  X(vips_concurrency_set)                                                                  \
  X(vips_copy)                                                                             \
  X(vips_error_buffer_copy)                                                                \
  X(vips_error_clear)                                                                      \
  X(vips_extract_band)                                                                     \
  X(vips_flip)                                                                             \
  X(vips_flatten)                                                                          \
  X(vips_foreign_find_load_buffer)                                                         \
  X(vips_format_sizeof)                                                                    \
  X(vips_image_get_bands)                                                                  \
  X(vips_image_get_format)                                                                 \
  X(vips_image_get_height)                                                                 \
  X(vips_image_get_int)                                                                    \
  X(vips_image_get_interpretation)                                                         \
  X(vips_image_get_typeof)                                                                 \
  X(vips_image_get_width)                                                                  \
  X(vips_image_get_xres)                                                                   \
  X(vips_image_get_yres)                                                                   \
  X(vips_image_hasalpha)                                                                   \
  X(vips_image_new_from_buffer)                                                            \
  X(vips_image_new_from_memory)                                                            \
  X(vips_image_write_to_memory)                                                            \
  X(vips_init)                                                                             \
  X(vips_jpegload_buffer)                                                                  \
  X(vips_jpegsave_buffer)                                                                  \
  X(vips_operation_block_set)                                                              \
  X(vips_pngsave_buffer)                                                                   \
  X(vips_resize)                                                                           \
  X(vips_rot)                                                                              \
  X(vips_thumbnail_buffer)                                                                 \
  X(vips_thumbnail_image)                                                                  \
  X(vips_vector_set_enabled)                                                              \
  X(g_free)                                                                                \
  X(g_log_set_handler)                                                                     \
  X(g_try_malloc)                                                                          \
  X(g_object_unref)

// Whether a sanitizer's allocator stands in for glibc's (AddressSanitizer, ThreadSanitizer):
// glibc's malloc_trim and mallopt then act on arenas nothing allocates from, and
// malloc_trim was seen to crash there.
int CVipsShim_isSanitized(void) {
  // Looked up once (-1: not yet); racing threads store the same answer.
  static int answer = -1;
  int known = __atomic_load_n(&answer, __ATOMIC_RELAXED);
  if (known < 0) {
    known = dlsym(RTLD_DEFAULT, "__asan_init") != NULL || dlsym(RTLD_DEFAULT, "__tsan_init") != NULL;
    __atomic_store_n(&answer, known, __ATOMIC_RELAXED);
  }
  return known;
}

// One pointer per function, of the function's own type (variadic ones stay variadic);
// set once by loadVips, inside startOnce, and only read after it.
#define CVIPSSHIM_DECLARE(name) static __typeof__(&name) p_##name;
CVIPSSHIM_FUNCTIONS(CVIPSSHIM_DECLARE)
#undef CVIPSSHIM_DECLARE

// Why libvips could not be loaded or started (set inside startOnce).
static char startFailure[512];

// Opens libvips by the soname of the headers the declarations above are checked against
// (CVIPSSHIM_SONAME, compared with their libtool current - age by `make lint`), so the
// library loaded is the one the prototypes describe, and resolves every function. Returns 0, or -1 with startFailure set. The library is never closed: libvips
// starts threads and registers types that outlive any call.
static int loadVips(void) {
  const char *soname = CVIPSSHIM_SONAME;
  void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(
        startFailure, sizeof startFailure, "cannot load libvips (%s): %s", soname,
        reason != NULL ? reason : "unknown error");
    return -1;
  }
#define CVIPSSHIM_RESOLVE(name)                                                            \
  dlerror();                                                                               \
  p_##name = (__typeof__(&name))dlsym(library, #name);                                     \
  if (p_##name == NULL) {                                                                  \
    const char *reason = dlerror();                                                        \
    snprintf(                                                                              \
        startFailure, sizeof startFailure, "cannot load libvips (%s): %s", soname,         \
        reason != NULL ? reason : "no symbol " #name);                                     \
    return -1;                                                                             \
  }
  CVIPSSHIM_FUNCTIONS(CVIPSSHIM_RESOLVE)
#undef CVIPSSHIM_RESOLVE
  return 0;
}

// The loader options every load gets. libvips's JPEG loader cannot tell a cut-off file
// from libjpeg's harmless warnings (extraneous bytes, an unknown JFIF revision), so any
// stricter setting refuses many real photos; a file cut short is refused before it gets
// here instead (the metadata reader's `truncated` problem), and a damaged one draws what
// its decoder recovers, as vipsthumbnail does.
static const char *const loadOptions = "fail_on=none";

static pthread_once_t startOnce = PTHREAD_ONCE_INIT;
static int startStatus = CVipsShim_unavailable;

// Drops libvips's warnings (a damaged file is reported through the status instead).
static void ignoreLog(
    const gchar *domain, GLogLevelFlags level, const gchar *text, gpointer data) {
  (void)domain;
  (void)level;
  (void)text;
  (void)data;
}

static void start(void) {
  if (loadVips() != 0) return;
  // Buffers of 128 KiB or more (a decoder's planes, libvips's regions, the file's bytes)
  // are mapped and unmapped on their own rather than left in malloc's arenas: glibc
  // otherwise raises its mmap threshold to the largest buffer freed (up to 32 MiB), and
  // each thread's arena then keeps the largest buffers it has seen. Raising it also
  // raised the trim threshold to twice that (up to 64 MiB), which fixing the mmap
  // threshold leaves as it was: each thread's arena would then keep the free memory at
  // its top (malloc_trim returns only the main arena's top), so the trim threshold is put
  // back to 128 KiB too. Process-wide, from the first picture on (docs/Rendering.md says
  // so).
  if (!CVipsShim_isSanitized()) {
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
    mallopt(M_TRIM_THRESHOLD, 128 << 10);
  }
  if (p_vips_init("GroupEnumerator") != 0) {
    snprintf(startFailure, sizeof startFailure, "libvips could not be started");
    return;
  }
  // Loaders libvips marks untrusted (ImageMagick, PDF, SVG, FITS, OpenSlide, Matlab,
  // Analyze, CSV, raw, vips, PPM, Radiance, JPEG 2000, OpenEXR) are refused; ImageMagick
  // is named as well in case a later build stops marking it.
  p_vips_block_untrusted_set(TRUE);
  p_vips_operation_block_set("VipsForeignLoadMagick", TRUE);
  // libvips 8.14 marks its JPEG XL loader untrusted because libjxl was young; JPEG XL is
  // a camera and phone format, so it is let through (the loader list in isAllowedLoader
  // is what decides).
  p_vips_operation_block_set("VipsForeignLoadJxl", FALSE);
  // No code is generated at run time: liborc's vector programs (compiled on first use into
  // executable memory) crashed a process drawing several pictures at once, and code made
  // while untrusted files are decoded is a risk of its own. libvips falls back to its C
  // paths.
  p_vips_vector_set_enabled(FALSE);
  // No operation is cached between calls: each picture is drawn once.
  p_vips_cache_set_max(0);
  p_vips_cache_set_max_mem(0);
  p_vips_cache_set_max_files(0);
  // Callers draw several pictures at once; one worker thread each bounds the threads.
  p_vips_concurrency_set(1);
  p_g_log_set_handler(
      "VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO |
                               G_LOG_LEVEL_DEBUG),
      ignoreLog, NULL);
  startStatus = CVipsShim_ok;
}

// Stores a malloc'd copy of `text` in *message.
static void setMessage(char **message, const char *text) {
  if (message == NULL) return;
  free(*message);
  *message = strdup(text != NULL && text[0] != '\0' ? text : "libvips failed");
}

// Fails with libvips's error text (which is cleared), else `fallback`.
static int32_t vipsFailure(char **message, const char *fallback) {
  char *text = p_vips_error_buffer_copy();
  setMessage(message, text != NULL && text[0] != '\0' ? text : fallback);
  p_g_free(text);
  return CVipsShim_failed;
}

// Starts one call's work: libvips's error text is one buffer for the whole process, and
// an operation that succeeds can leave text in it (a decoder's warning about data it
// skipped), so it is cleared first: a failure then reports its own picture's words, not
// those of a picture drawn before it. (Two pictures failing at once on two threads can
// still mix their words; the Demo draws one picture at a time per worker process.)
static int32_t beginCall(char **message) {
  int32_t status = CVipsShim_initialize(message);
  if (status == CVipsShim_ok) p_vips_error_clear();
  return status;
}

int32_t CVipsShim_initialize(char **message) {
  pthread_once(&startOnce, start);
  if (startStatus != CVipsShim_ok) {
    setMessage(message, startFailure);
  }
  return startStatus;
}

// The images of one call, released together.
enum { pipelineCapacity = 16 };
typedef struct {
  VipsImage *images[pipelineCapacity];
  int count;
} Pipeline;

// Records `image` (which may be NULL) for release; returns it.
static VipsImage *keep(Pipeline *pipeline, VipsImage *image) {
  if (image != NULL) {
    if (pipeline->count < pipelineCapacity) {
      pipeline->images[pipeline->count++] = image;
    } else {
      // Never reached: no path keeps more than a handful of images.
      p_g_object_unref(image);
      return NULL;
    }
  }
  return image;
}

static void release(Pipeline *pipeline) {
  for (int index = pipeline->count - 1; index >= 0; index--) {
    p_g_object_unref(pipeline->images[index]);
  }
  pipeline->count = 0;
}

static int validRequest(const CVipsShimRequest *request) {
  return request != NULL && request->width >= 1 && request->width <= 16384 &&
         request->height >= 1 && request->height <= 16384 && request->orientation >= 0 &&
         request->orientation <= 8 && request->quality >= 1 && request->quality <= 100 &&
         request->encoding >= CVipsShim_encodeAutomatic &&
         request->encoding <= CVipsShim_encodePNG &&
         (request->shrinkOnly == 0 || request->shrinkOnly == 1);
}

// Whether `orientation` turns the picture a quarter (EXIF 5-8).
static int isQuarterTurn(int32_t orientation) { return orientation >= 5 && orientation <= 8; }

// Applies EXIF `orientation` to `image`: a quarter or half turn, then a mirror where the
// orientation has one (as vips_autorot does, without its tagged copy and its lookups).
static VipsImage *orient(Pipeline *pipeline, VipsImage *image, int32_t orientation) {
  if (orientation <= 1 || orientation > 8) return image;
  // Per orientation: the turn, and whether the turned picture is mirrored left to right.
  static const VipsAngle turns[9] = {
      VIPS_ANGLE_D0, VIPS_ANGLE_D0,   VIPS_ANGLE_D0,  VIPS_ANGLE_D180, VIPS_ANGLE_D180,
      VIPS_ANGLE_D90, VIPS_ANGLE_D90, VIPS_ANGLE_D270, VIPS_ANGLE_D270};
  static const int mirrors[9] = {0, 0, 1, 0, 1, 1, 0, 1, 0};
  if (turns[orientation] != VIPS_ANGLE_D0) {
    VipsImage *turned = NULL;
    if (p_vips_rot(image, &turned, turns[orientation], NULL) != 0) return NULL;
    if ((image = keep(pipeline, turned)) == NULL) return NULL;
  }
  if (mirrors[orientation]) {
    VipsImage *mirrored = NULL;
    if (p_vips_flip(image, &mirrored, VIPS_DIRECTION_HORIZONTAL, NULL) != 0) return NULL;
    if ((image = keep(pipeline, mirrored)) == NULL) return NULL;
  }
  return image;
}

// Turns any band layout, depth or colour space into 8-bit sRGB or grey, alpha kept.
static VipsImage *toEightBitRGB(Pipeline *pipeline, VipsImage *image) {
  VipsInterpretation space = p_vips_image_get_interpretation(image);
  if (space != VIPS_INTERPRETATION_sRGB && space != VIPS_INTERPRETATION_B_W) {
    VipsInterpretation target =
        (space == VIPS_INTERPRETATION_GREY16 || p_vips_image_get_bands(image) <= 2) ? VIPS_INTERPRETATION_B_W
                                                                    : VIPS_INTERPRETATION_sRGB;
    VipsImage *converted = NULL;
    if (p_vips_colourspace(image, &converted, target, NULL) != 0) return NULL;
    if ((image = keep(pipeline, converted)) == NULL) return NULL;
  }
  if (p_vips_image_get_format(image) != VIPS_FORMAT_UCHAR) {
    VipsImage *cast = NULL;
    if (p_vips_cast_uchar(image, &cast, NULL) != 0) return NULL;
    if ((image = keep(pipeline, cast)) == NULL) return NULL;
  }
  return image;
}

// Appends a PNG chunk (length, type, data, CRC-32 of type and data) at `out`; returns
// the end.
static uint8_t *putChunk(uint8_t *out, const char type[4], const uint8_t *data, size_t length) {
  const uint32_t size = (uint32_t)length;
  out[0] = (uint8_t)(size >> 24);
  out[1] = (uint8_t)(size >> 16);
  out[2] = (uint8_t)(size >> 8);
  out[3] = (uint8_t)size;
  memcpy(out + 4, type, 4);
  if (length > 0) memmove(out + 8, data, length);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, out + 4, (uInt)(length + 4));
  out += 8 + length;
  out[0] = (uint8_t)(crc >> 24);
  out[1] = (uint8_t)(crc >> 16);
  out[2] = (uint8_t)(crc >> 8);
  out[3] = (uint8_t)crc;
  return out + 4;
}

// Encodes an 8-bit image of 1 to 4 bands (grey, grey and alpha, RGB, RGBA) as PNG into a
// g_malloc'd buffer: the signature, IHDR, pHYs (the image's resolution, as libvips's
// pngsave writes it), one IDAT and IEND; no other metadata. The rows are filtered "up"
// and deflated at level 1 (deflateRows: libdeflate, else zlib with its default strategy):
// for the pictures drawn here (a few hundred pixels a side at most) that takes less time
// than libvips's pngsave at level 1 with unfiltered rows (which hands the image through
// libpng), and the file is no larger. (zlib's run-length strategy is faster still, but it
// made a camera photo's entry three times larger: it only finds runs, and a photo's rows
// less the row above are noise, not runs.) The pixels are those pngsave would store. Any
// other layout goes through pngsave.
// The most pixels encodePNG encodes itself: the cache's largest entry, 1024 x 1024.
static const int64_t directPNGPixels = (int64_t)1 << 20;

// libdeflate, when it can be loaded (Debian's libdeflate0, which libtiff and so libvips
// load anyway): at level 1 it deflates a picture's rows in half the time zlib takes at its
// level 1, into a stream as small or smaller (measured on the bench library's 128-pixel
// entries: 0.24 against 0.51 ms, 8 % fewer bytes; on the corpus's photos the same time).
// Opened with dlopen on first use, as libvips is; without it, zlib deflates.
#define CVIPSSHIM_DEFLATE_FUNCTIONS(X) \
  X(libdeflate_alloc_compressor)        \
  X(libdeflate_zlib_compress)           \
  X(libdeflate_zlib_compress_bound)     \
  X(libdeflate_free_compressor)
#define CVIPSSHIM_DECLARE(name) static __typeof__(&name) p_##name;
CVIPSSHIM_DEFLATE_FUNCTIONS(CVIPSSHIM_DECLARE)
#undef CVIPSSHIM_DECLARE
static pthread_once_t deflateOnce = PTHREAD_ONCE_INIT;
// Whether encodePNG is refused libdeflate on this thread (CVipsShim_setPNGDeflater).
static __thread int deflaterRefused;

// Resolves all four functions or none (read only after deflateOnce). The library stays
// open: it is tiny, and libtiff holds it anyway.
static void loadDeflate(void) {
  void *library = dlopen("libdeflate.so.0", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) return;
#define CVIPSSHIM_RESOLVE(name)                            \
  p_##name = (__typeof__(&name))dlsym(library, #name);    \
  if (p_##name == NULL) goto missing;
  CVIPSSHIM_DEFLATE_FUNCTIONS(CVIPSSHIM_RESOLVE)
#undef CVIPSSHIM_RESOLVE
  return;
missing:;
#define CVIPSSHIM_FORGET(name) p_##name = NULL;
  CVIPSSHIM_DEFLATE_FUNCTIONS(CVIPSSHIM_FORGET)
#undef CVIPSSHIM_FORGET
}

int CVipsShim_setPNGDeflater(int libdeflate) {
  pthread_once(&deflateOnce, loadDeflate);
  deflaterRefused = libdeflate == 0;
  return libdeflate != 0 && p_libdeflate_alloc_compressor != NULL;
}

// Each thread's libdeflate compressor, made on its first picture and freed when the thread
// ends (compressorKey's destructor). A compressor's tables are large enough that malloc
// maps and unmaps them on their own (M_MMAP_THRESHOLD, in start): made per picture, their
// pages would be faulted in and zeroed for every picture. libdeflate resets the tables at
// the start of every call, so one compressor serves every picture of its thread.
static pthread_key_t compressorKey;
static pthread_once_t compressorKeyOnce = PTHREAD_ONCE_INIT;
static int compressorKeyMade;

static void freeCompressor(void *compressor) {
  p_libdeflate_free_compressor((struct libdeflate_compressor *)compressor);
}

static void makeCompressorKey(void) {
  compressorKeyMade = pthread_key_create(&compressorKey, freeCompressor) == 0;
}

// This thread's compressor (libdeflate loaded), or NULL when one cannot be made.
static struct libdeflate_compressor *threadCompressor(void) {
  pthread_once(&compressorKeyOnce, makeCompressorKey);
  if (!compressorKeyMade) return NULL;
  struct libdeflate_compressor *compressor = pthread_getspecific(compressorKey);
  if (compressor != NULL) return compressor;
  compressor = p_libdeflate_alloc_compressor(1);
  if (compressor != NULL && pthread_setspecific(compressorKey, compressor) != 0) {
    p_libdeflate_free_compressor(compressor);
    return NULL;
  }
  return compressor;
}

// Deflates `length` bytes of `raw` into a zlib stream after `prefix` bytes of a new
// g_malloc'd buffer with `suffix` bytes to spare after the stream; NULL when out of
// memory or when the compressor fails. Level 1 with zlib's default strategy, through
// libdeflate when it is loaded.
static uint8_t *deflateRows(
    const uint8_t *raw, size_t length, size_t prefix, size_t suffix, size_t *deflatedLength) {
  pthread_once(&deflateOnce, loadDeflate);
  if (p_libdeflate_alloc_compressor != NULL && !deflaterRefused) {
    struct libdeflate_compressor *compressor = threadCompressor();
    if (compressor == NULL) return NULL;
    const size_t bound = p_libdeflate_zlib_compress_bound(compressor, length);
    uint8_t *out = p_g_try_malloc(prefix + bound + suffix);
    size_t written = 0;
    if (out != NULL) {
      written = p_libdeflate_zlib_compress(compressor, raw, length, out + prefix, bound);
    }
    if (out != NULL && written == 0) {
      p_g_free(out);
      return NULL;
    }
    *deflatedLength = written;
    return out;
  }
  const uLong bound = compressBound((uLong)length);
  uint8_t *out = p_g_try_malloc(prefix + bound + suffix);
  if (out == NULL) return NULL;
  z_stream stream;
  memset(&stream, 0, sizeof stream);
  int status = deflateInit2(&stream, 1, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY);
  if (status == Z_OK) {
    stream.next_in = (Bytef *)raw;
    stream.avail_in = (uInt)length;
    stream.next_out = out + prefix;
    stream.avail_out = (uInt)bound;
    status = deflate(&stream, Z_FINISH);
  }
  *deflatedLength = stream.total_out;
  deflateEnd(&stream);
  if (status != Z_STREAM_END) {
    p_g_free(out);
    return NULL;
  }
  return out;
}

static int32_t encodePNG(VipsImage *image, void **bytes, size_t *length, char **message) {
  const int width = p_vips_image_get_width(image);
  const int height = p_vips_image_get_height(image);
  const int bands = p_vips_image_get_bands(image);
  // A larger picture (fullResolutionImage as PNG) goes through pngsave, which streams its
  // rows: this encoder holds the pixels three times (decoded, filtered, deflated).
  if (bands < 1 || bands > 4 || width < 1 || height < 1 ||
      (int64_t)width * height > directPNGPixels ||
      p_vips_image_get_format(image) != VIPS_FORMAT_UCHAR) {
    if (p_vips_pngsave_buffer(image, bytes, length, "strip", TRUE, "compression", 1, NULL) !=
        0) {
      return vipsFailure(message, "cannot encode PNG");
    }
    return CVipsShim_ok;
  }
  size_t size = 0;
  uint8_t *pixels = p_vips_image_write_to_memory(image, &size);
  if (pixels == NULL) return vipsFailure(message, "cannot encode PNG");
  const size_t stride = (size_t)width * (size_t)bands;
  const size_t rawLength = (stride + 1) * (size_t)height;
  if (size != stride * (size_t)height || rawLength > UINT_MAX / 2) {
    p_g_free(pixels);
    setMessage(message, "cannot encode PNG: unexpected pixel buffer");
    return CVipsShim_failed;
  }
  // Each row after its filter byte, 2 ("up"): every byte less the one above it (nothing
  // above the first row), so that runs of a colour down the picture and across it become
  // runs of one byte, which deflate finds at once.
  uint8_t *raw = p_g_try_malloc(rawLength);
  if (raw == NULL) {
    p_g_free(pixels);
    setMessage(message, "cannot encode PNG: out of memory");
    return CVipsShim_failed;
  }
  for (size_t row = 0; row < (size_t)height; row++) {
    uint8_t *filtered = raw + row * (stride + 1);
    const uint8_t *line = pixels + row * stride;
    filtered[0] = 2;
    if (row == 0) {
      memcpy(filtered + 1, line, stride);
    } else {
      const uint8_t *above = line - stride;
      for (size_t index = 0; index < stride; index++) {
        filtered[index + 1] = (uint8_t)(line[index] - above[index]);
      }
    }
  }
  p_g_free(pixels);
  // Signature, IHDR, pHYs and the IDAT's length and type before the compressed rows; the
  // IDAT's CRC and IEND after them.
  const size_t prefix = 8 + (12 + 13) + (12 + 9) + 8;
  const size_t suffix = 4 + 12;
  size_t deflatedLength = 0;
  uint8_t *out = deflateRows(raw, rawLength, prefix, suffix, &deflatedLength);
  p_g_free(raw);
  if (out == NULL) {
    setMessage(message, "cannot encode PNG: deflating the rows failed");
    return CVipsShim_failed;
  }
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  static const uint8_t colourTypes[5] = {0, 0, 4, 2, 6};
  const uint8_t header[13] = {
      0, 0, (uint8_t)(width >> 8), (uint8_t)width, 0, 0, (uint8_t)(height >> 8),
      (uint8_t)height, 8, colourTypes[bands], 0, 0, 0};
  // Pixels per metre, as pngsave rounds libvips's pixels per millimetre.
  double xres = p_vips_image_get_xres(image) * 1000.0;
  double yres = p_vips_image_get_yres(image) * 1000.0;
  uint32_t perMetreX = xres >= 0 && xres < 4e9 ? (uint32_t)(xres + 0.5) : 0;
  uint32_t perMetreY = yres >= 0 && yres < 4e9 ? (uint32_t)(yres + 0.5) : 0;
  const uint8_t physical[9] = {
      (uint8_t)(perMetreX >> 24), (uint8_t)(perMetreX >> 16), (uint8_t)(perMetreX >> 8),
      (uint8_t)perMetreX, (uint8_t)(perMetreY >> 24), (uint8_t)(perMetreY >> 16),
      (uint8_t)(perMetreY >> 8), (uint8_t)perMetreY, 1};
  memcpy(out, signature, 8);
  uint8_t *end = putChunk(out + 8, "IHDR", header, sizeof header);
  end = putChunk(end, "pHYs", physical, sizeof physical);
  // The compressed rows are in place already: the chunk's data is not moved.
  end = putChunk(end, "IDAT", end + 8, deflatedLength);
  end = putChunk(end, "IEND", NULL, 0);
  *bytes = out;
  *length = (size_t)(end - out);
  return CVipsShim_ok;
}

// Encodes `image` as the request says and fills `picture`.
static int32_t encode(
    Pipeline *pipeline, VipsImage *image, const CVipsShimRequest *request,
    CVipsShimPicture *picture, char **message) {
  if ((image = toEightBitRGB(pipeline, image)) == NULL) {
    return vipsFailure(message, "cannot convert the picture to 8-bit sRGB");
  }
  int hasAlpha = p_vips_image_hasalpha(image);
  int png = request->encoding == CVipsShim_encodePNG ||
            (request->encoding == CVipsShim_encodeAutomatic && hasAlpha);
  void *bytes = NULL;
  size_t length = 0;
  if (png) {
    int32_t status = encodePNG(image, &bytes, &length, message);
    if (status != CVipsShim_ok) return status;
  } else {
    if (hasAlpha) {
      VipsArrayDouble *white = p_vips_array_double_newv(1, 255.0);
      VipsImage *flat = NULL;
      int status = p_vips_flatten(image, &flat, "background", white, NULL);
      p_vips_area_unref((VipsArea *)white);
      if (status != 0 || (image = keep(pipeline, flat)) == NULL) {
        return vipsFailure(message, "cannot flatten the alpha");
      }
    }
    if (p_vips_jpegsave_buffer(
            image, &bytes, &length, "Q", request->quality, "strip", TRUE, NULL) != 0) {
      return vipsFailure(message, "cannot encode JPEG");
    }
  }
  picture->bytes = (uint8_t *)bytes;
  picture->length = length;
  picture->width = p_vips_image_get_width(image);
  picture->height = p_vips_image_get_height(image);
  picture->isPNG = png;
  return CVipsShim_ok;
}

// The end of every drawing: the scaled picture turned by EXIF `orientation` (0 or 1: as it
// is), then encoded as the request asks.
static int32_t orientAndEncode(
    Pipeline *pipeline, VipsImage *drawn, int32_t orientation, const CVipsShimRequest *request,
    CVipsShimPicture *picture, char **message) {
  VipsImage *turned = orient(pipeline, drawn, orientation);
  if (turned == NULL) return vipsFailure(message, "cannot orient the picture");
  return encode(pipeline, turned, request, picture, message);
}

// The loaders pictures are drawn with (the type names vips_foreign_find_load_buffer
// gives); any other libvips finds for the bytes (one it blocks, such as ImageMagick's or
// OpenJPEG's) means no decoder here.
static int isAllowedLoader(const char *loader) {
  static const char *const allowed[] = {
      "VipsForeignLoadJpegBuffer", "VipsForeignLoadPngBuffer",  "VipsForeignLoadHeifBuffer",
      "VipsForeignLoadWebpBuffer", "VipsForeignLoadTiffBuffer", "VipsForeignLoadNsgifBuffer",
      "VipsForeignLoadJxlBuffer",
  };
  for (size_t index = 0; index < sizeof allowed / sizeof allowed[0]; index++) {
    if (strcmp(loader, allowed[index]) == 0) return 1;
  }
  return 0;
}

// Whether `loader` decodes the whole image at once (no shrink-on-load, no streaming).
static int isWholeImageLoader(const char *loader) {
  return strcmp(loader, "VipsForeignLoadHeifBuffer") == 0 ||
         strcmp(loader, "VipsForeignLoadWebpBuffer") == 0 ||
         strcmp(loader, "VipsForeignLoadJxlBuffer") == 0 ||
         strcmp(loader, "VipsForeignLoadNsgifBuffer") == 0;
}

// The most memory an image decoded whole may take (see openHeader).
static const uint64_t wholeImageBytes = (uint64_t)320 << 20;

// The header of an encoded image, opened lazily (nothing decoded); checks its pixel count.
static int32_t openHeader(
    Pipeline *pipeline, const uint8_t *bytes, size_t length, uint64_t maxPixels,
    VipsImage **header, const char **loaderName, char **message) {
  if (bytes == NULL || length == 0) {
    setMessage(message, "the file is empty");
    return CVipsShim_unsupported;
  }
  const char *loader = p_vips_foreign_find_load_buffer(bytes, length);
  if (loader == NULL) {
    p_vips_error_clear();
    setMessage(message, "no image decoder recognises the file");
    return CVipsShim_unsupported;
  }
  if (!isAllowedLoader(loader)) {
    char text[160];
    snprintf(text, sizeof text, "its format is read here by no allowed decoder (%s)", loader);
    setMessage(message, text);
    return CVipsShim_unsupported;
  }
  // A JPEG (every embedded thumbnail and preview) goes to its loader directly, with the
  // options loadOptions names: vips_image_new_from_buffer would ask every loader again
  // which one it is, and parse the option string.
  VipsImage *image = NULL;
  if (strcmp(loader, "VipsForeignLoadJpegBuffer") == 0) {
    if (p_vips_jpegload_buffer((void *)bytes, length, &image, "fail_on", VIPS_FAIL_ON_NONE,
                               NULL) != 0) {
      image = NULL;
    }
  } else {
    image = p_vips_image_new_from_buffer(bytes, length, loadOptions, NULL);
  }
  if (image == NULL || keep(pipeline, image) == NULL) {
    return vipsFailure(message, "cannot read the image header");
  }
  uint64_t width = (uint64_t)p_vips_image_get_width(image);
  uint64_t height = (uint64_t)p_vips_image_get_height(image);
  if (width == 0 || height == 0 || width > maxPixels || height > maxPixels / width) {
    char text[160];
    snprintf(
        text, sizeof text, "the image is %llu x %llu pixels, more than the %llu allowed",
        (unsigned long long)width, (unsigned long long)height, (unsigned long long)maxPixels);
    setMessage(message, text);
    return CVipsShim_tooLarge;
  }
  // HEIF, WebP, JPEG XL and GIF are decoded whole, not streamed: their decoders hold the
  // full image (about twice its size, counting the decoder's own planes) whatever the
  // target size.
  // So are an interlaced PNG (libpng needs every pass) and a progressive JPEG (libjpeg
  // keeps every scan's coefficients, about two bytes a sample).
  int interlaced = 0;
  int progressive = 0;
  if (p_vips_image_get_typeof(image, "interlaced") != 0) {
    p_vips_image_get_int(image, "interlaced", &interlaced);
  }
  if (p_vips_image_get_typeof(image, "jpeg-multiscan") != 0) {
    p_vips_image_get_int(image, "jpeg-multiscan", &progressive);
  }
  if (isWholeImageLoader(loader) || interlaced || progressive) {
    uint64_t sample = (uint64_t)p_vips_format_sizeof(p_vips_image_get_format(image));
    uint64_t bands = (uint64_t)p_vips_image_get_bands(image);
    uint64_t pixels = width * height;
    if (sample == 0 || bands == 0 || bands > 16 || sample > 16 ||
        pixels > wholeImageBytes / 2 / sample / bands) {
      char text[200];
      snprintf(
          text, sizeof text,
          "decoding its %llu x %llu pixels whole would take more than %llu MiB",
          (unsigned long long)width, (unsigned long long)height,
          (unsigned long long)(wholeImageBytes >> 20));
      setMessage(message, text);
      return CVipsShim_tooLarge;
    }
  }
  *header = image;
  if (loaderName != NULL) *loaderName = loader;
  return CVipsShim_ok;
}

// Whether an image is a JPEG that vips_thumbnail_buffer would not shrink on load for a box
// whose shorter side is `shorterSide`: less than twice that side both ways (libjpeg's
// scaling starts at a half), and of at most a megapixel (it is then decoded whole, as the
// header's image is opened, rather than streamed). The header's image, already open, is
// then drawn with vips_thumbnail_image, which gives the same pixels without reading the
// header twice more (an embedded thumbnail of 160 x 120 drawn into a 128-pixel box).
static int isUnshrunkJPEG(const char *loader, int width, int height, int shorterSide) {
  return loader != NULL && strcmp(loader, "VipsForeignLoadJpegBuffer") == 0 && width > 0 &&
         height > 0 && width < 2 * shorterSide && height < 2 * shorterSide &&
         (int64_t)width * height <= (1 << 20);
}

// Whether `image` is 8-bit sRGB without alpha: what vips_thumbnail_image converts to and
// from sRGB around its resize without changing a pixel.
static int isPlainRGB(VipsImage *image) {
  return p_vips_image_get_bands(image) == 3 &&
         p_vips_image_get_format(image) == VIPS_FORMAT_UCHAR &&
         p_vips_image_get_interpretation(image) == VIPS_INTERPRETATION_sRGB &&
         !p_vips_image_hasalpha(image);
}

// Scales `image` to fit a `width` x `height` box as vips_thumbnail_image does for a plain
// RGB image with no crop and no rotation (both axes by the larger of the two shrinks, at
// least 1 with `shrinkOnly`, never past an axis's size), with vips_resize alone: without
// the thumbnail operation's colour conversions and copy around it. The image here is less
// than twice the box (an embedded thumbnail, a small photo), so the scale is between 1/2
// and 1, where a cubic kernel (Catmull-Rom: fewer taps than lanczos3) draws nearly what
// lanczos3 does, in less time (docs/Rendering.md has the figures).
static int resizeToFit(VipsImage *image, VipsImage **out, int width, int height, int shrinkOnly) {
  const int inputWidth = p_vips_image_get_width(image);
  const int inputHeight = p_vips_image_get_height(image);
  double hshrink = (double)inputWidth / width;
  double vshrink = (double)inputHeight / height;
  if (hshrink < vshrink) {
    hshrink = vshrink;
  } else {
    vshrink = hshrink;
  }
  if (shrinkOnly) {
    hshrink = hshrink < 1 ? 1 : hshrink;
    vshrink = vshrink < 1 ? 1 : vshrink;
  }
  hshrink = hshrink > inputWidth ? inputWidth : hshrink;
  vshrink = vshrink > inputHeight ? inputHeight : vshrink;
  return p_vips_resize(
      image, out, 1.0 / hshrink, "vscale", 1.0 / vshrink, "kernel", VIPS_KERNEL_CUBIC, NULL);
}

int32_t CVipsShim_drawEncoded(
    const uint8_t *bytes, size_t length, const CVipsShimRequest *request,
    CVipsShimPicture *picture, char **message) {
  int32_t status = beginCall(message);
  if (status != CVipsShim_ok) return status;
  if (!validRequest(request) || picture == NULL) {
    setMessage(message, "invalid request");
    return CVipsShim_failed;
  }
  memset(picture, 0, sizeof *picture);
  Pipeline pipeline = {.count = 0};
  VipsImage *header = NULL;
  const char *loader = NULL;
  status = openHeader(&pipeline, bytes, length, request->maxPixels, &header, &loader, message);
  if (status == CVipsShim_ok) {
    picture->sourceWidth = p_vips_image_get_width(header);
    picture->sourceHeight = p_vips_image_get_height(header);
    int32_t orientation = request->orientation;
    // A quarter turn applied afterwards swaps the box's sides.
    int swap = isQuarterTurn(orientation);
    int boxWidth = swap ? request->height : request->width;
    int boxHeight = swap ? request->width : request->height;
    int shorterSide = boxWidth < boxHeight ? boxWidth : boxHeight;
    VipsImage *drawn = NULL;
    int drawing;
    if (isUnshrunkJPEG(loader, picture->sourceWidth, picture->sourceHeight, shorterSide) &&
        !request->fill && orientation != 0 && isPlainRGB(header)) {
      drawing = resizeToFit(header, &drawn, boxWidth, boxHeight, request->shrinkOnly);
    } else if (isUnshrunkJPEG(loader, picture->sourceWidth, picture->sourceHeight, shorterSide)) {
      drawing = p_vips_thumbnail_image(
          header, &drawn, boxWidth, "height", boxHeight, "crop",
          request->fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "size",
          request->shrinkOnly ? VIPS_SIZE_DOWN : VIPS_SIZE_BOTH, "no_rotate", orientation != 0,
          NULL);
    } else {
      drawing = p_vips_thumbnail_buffer(
          (void *)bytes, length, &drawn, boxWidth, "height", boxHeight, "crop",
          request->fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "size",
          request->shrinkOnly ? VIPS_SIZE_DOWN : VIPS_SIZE_BOTH, "no_rotate", orientation != 0,
          "option_string", loadOptions, NULL);
    }
    if (drawing != 0 || keep(&pipeline, drawn) == NULL) {
      status = vipsFailure(message, "cannot decode the image");
    } else {
      status = orientAndEncode(&pipeline, drawn, orientation, request, picture, message);
    }
  }
  release(&pipeline);
  return status;
}

int32_t CVipsShim_drawRGB(
    const uint8_t *pixels, size_t length, int32_t width, int32_t height,
    const CVipsShimRequest *request, CVipsShimPicture *picture, char **message) {
  int32_t status = beginCall(message);
  if (status != CVipsShim_ok) return status;
  if (!validRequest(request) || picture == NULL || pixels == NULL || width < 1 ||
      height < 1 || (uint64_t)width > request->maxPixels / (uint64_t)height ||
      length / 3 / (size_t)width < (size_t)height) {
    setMessage(message, "invalid pixels or request");
    return CVipsShim_failed;
  }
  memset(picture, 0, sizeof *picture);
  picture->sourceWidth = width;
  picture->sourceHeight = height;
  Pipeline pipeline = {.count = 0};
  int32_t orientation = request->orientation == 0 ? 1 : request->orientation;
  int swap = isQuarterTurn(orientation);
  VipsImage *image = p_vips_image_new_from_memory(
      pixels, (size_t)width * (size_t)height * 3, width, height, 3, VIPS_FORMAT_UCHAR);
  VipsImage *tagged = NULL;
  VipsImage *drawn = NULL;
  if (image == NULL || keep(&pipeline, image) == NULL) {
    status = vipsFailure(message, "cannot wrap the pixels");
  } else if (
      p_vips_copy(image, &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, NULL) != 0 ||
      keep(&pipeline, tagged) == NULL) {
    status = vipsFailure(message, "cannot wrap the pixels");
  } else if (
      p_vips_thumbnail_image(
          tagged, &drawn, swap ? request->height : request->width, "height",
          swap ? request->width : request->height, "crop",
          request->fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "size",
          request->shrinkOnly ? VIPS_SIZE_DOWN : VIPS_SIZE_BOTH, "no_rotate", TRUE, NULL) != 0 ||
      keep(&pipeline, drawn) == NULL) {
    status = vipsFailure(message, "cannot scale the pixels");
  } else {
    status = orientAndEncode(&pipeline, drawn, orientation, request, picture, message);
  }
  release(&pipeline);
  return status;
}

int32_t CVipsShim_decodeRGB(
    const uint8_t *bytes, size_t length, uint64_t maxPixels, uint8_t **pixels,
    int32_t *width, int32_t *height, char **message) {
  int32_t status = beginCall(message);
  if (status != CVipsShim_ok) return status;
  if (pixels == NULL || width == NULL || height == NULL) {
    setMessage(message, "invalid arguments");
    return CVipsShim_failed;
  }
  *pixels = NULL;
  Pipeline pipeline = {.count = 0};
  VipsImage *image = NULL;
  status = openHeader(&pipeline, bytes, length, maxPixels, &image, NULL, message);
  VipsImage *turned = NULL;
  if (status != CVipsShim_ok) {
    // openHeader said why.
  } else if (p_vips_autorot(image, &turned, NULL) != 0 || keep(&pipeline, turned) == NULL) {
    status = vipsFailure(message, "cannot orient the image");
  } else if ((image = toEightBitRGB(&pipeline, turned)) == NULL) {
    status = vipsFailure(message, "cannot convert the image");
  } else {
    if (p_vips_image_hasalpha(image)) {
      VipsImage *opaque = NULL;
      if (p_vips_extract_band(image, &opaque, 0, "n", p_vips_image_get_bands(image) - 1, NULL) != 0 ||
          keep(&pipeline, opaque) == NULL) {
        status = vipsFailure(message, "cannot drop the alpha");
      }
      image = opaque;
    }
    if (status == CVipsShim_ok && p_vips_image_get_bands(image) == 1) {
      VipsImage *three = NULL;
      VipsImage *bands[3] = {image, image, image};
      if (p_vips_bandjoin(bands, &three, 3, NULL) != 0 || keep(&pipeline, three) == NULL) {
        status = vipsFailure(message, "cannot widen grey");
      }
      image = three;
    }
    if (status == CVipsShim_ok) {
      size_t size = 0;
      void *memory = p_vips_image_write_to_memory(image, &size);
      if (memory == NULL) {
        status = vipsFailure(message, "cannot decode the image");
      } else {
        *pixels = memory;
        *width = p_vips_image_get_width(image);
        *height = p_vips_image_get_height(image);
      }
    }
  }
  release(&pipeline);
  return status;
}

// The free bytes malloc's arenas may hold before they are trimmed.
static const size_t trimThreshold = (size_t)8 << 20;
// How many calls of CVipsShim_returnFreedMemory look at the arenas once.
static const unsigned trimInterval = 16;

// Only bytes libvips or glib allocated reach here, so p_g_free is set whenever `bytes` is not NULL.
void CVipsShim_free(void *bytes) {
  if (bytes != NULL) p_g_free(bytes);
}

void CVipsShim_freeMessage(char *message) { free(message); }

void CVipsShim_returnFreedMemory(void) {
  if (CVipsShim_isSanitized()) return;
  // Only when malloc's arenas hold more than a few MiB free: trimming after every small
  // picture hands back pages the next picture faults in again (about 140 faults, a fifth
  // of a small picture's time). Buffers of 128 KiB or more are unmapped when freed anyway
  // (M_MMAP_THRESHOLD, above).
  // mallinfo2 walks every free chunk of every arena, a noticeable part of a small
  // picture's cost, so the arenas are looked at on every sixteenth call only; what the
  // pictures in between free stays in the arenas for the next ones to reuse.
  static unsigned calls = 0;
  if (__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) % trimInterval != 0) return;
  struct mallinfo2 held = mallinfo2();
  if (held.fordblks > trimThreshold) malloc_trim(0);
}
