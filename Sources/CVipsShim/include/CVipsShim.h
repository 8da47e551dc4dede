#ifndef GROUPENUMERATOR_CVIPSSHIM_H
#define GROUPENUMERATOR_CVIPSSHIM_H

/*
 * A plain-C wall around libvips 8.14 (Debian 12), for drawing pictures.
 *
 * libvips is not linked: it is opened (dlopen) and set up once, on first use
 * (pthread_once), so a process that draws no picture never maps it; when it cannot be
 * opened, every function returns CVipsShim_unavailable with the loader's reason. Its
 * untrusted loaders (ImageMagick, PDF, SVG, FITS, OpenSlide, Analyze, CSV, raw, ...) are
 * blocked, its operation cache is off, it runs one worker thread per call, and its
 * warnings are muted. Every function
 * checks the pixel count a loader reads from the header before anything is decoded (and,
 * for the formats decoded whole, the memory that takes); only the loaders of photo
 * formats are used (JPEG, PNG, HEIF/AVIF, WebP, TIFF, GIF, JPEG XL).
 *
 * No glib or vips type appears here. Encoded bytes and raw pixels returned are owned by
 * the caller (free them with CVipsShim_free); messages are malloc'd (free them with
 * CVipsShim_freeMessage).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define CVipsShim_ok 0
/* libvips failed (a corrupt or truncated file); the message says how. */
#define CVipsShim_failed (-1)
/* The image has more pixels than the request allows; nothing was decoded. */
#define CVipsShim_tooLarge (-2)
/* No allowed loader recognises the bytes. */
#define CVipsShim_unsupported (-3)
/* libvips could not be loaded (missing, or a function missing) or started; the message
 * says why. */
#define CVipsShim_unavailable (-4)

/* How the picture is encoded. */
#define CVipsShim_encodeAutomatic 0 /* PNG when the picture has alpha, else JPEG */
#define CVipsShim_encodeJPEG 1      /* alpha is flattened onto white */
#define CVipsShim_encodePNG 2

/* What to draw. */
typedef struct {
  /* The box, in pixels (each 1 ... 16384). */
  int32_t width;
  int32_t height;
  /* 0: scale to fit inside the box, aspect kept; 1: fill the box and crop the centre. */
  int32_t fill;
  /*
   * 0: apply the orientation the image records itself (EXIF, or what libheif applies).
   * 1...8: ignore what it records and apply this EXIF orientation instead (for a thumbnail
   * or preview cut out of a bigger file, which carries no orientation of its own).
   */
  int32_t orientation;
  /* CVipsShim_encode... */
  int32_t encoding;
  /* JPEG quality, 1 ... 100. */
  int32_t quality;
  /* The most pixels (width × height, as the header says) that may be decoded. */
  uint64_t maxPixels;
  /* 1: a picture smaller than the box keeps its size (never enlarged); 0: it is scaled up
   * to the box. */
  int32_t shrinkOnly;
} CVipsShimRequest;

/* A drawn picture. */
typedef struct {
  /* The encoded bytes (free with CVipsShim_free). */
  uint8_t *bytes;
  size_t length;
  /* The picture's size. */
  int32_t width;
  int32_t height;
  /* 1 when the bytes are PNG, 0 for JPEG. */
  int32_t isPNG;
  /* The source's stored size, as its header says. */
  int32_t sourceWidth;
  int32_t sourceHeight;
} CVipsShimPicture;

/*
 * Starts libvips if it is not yet (every other function does so too). Returns
 * CVipsShim_ok, or CVipsShim_unavailable with *message set.
 */
int32_t CVipsShim_initialize(char **message);

/*
 * Draws the image encoded in `length` bytes at `bytes` (JPEG, PNG, HEIF/AVIF, WebP, TIFF,
 * GIF, JPEG XL, JPEG 2000 ...) as `request` says, shrinking on load where the format
 * allows. On success *picture is filled.
 */
int32_t CVipsShim_drawEncoded(
    const uint8_t *bytes, size_t length, const CVipsShimRequest *request,
    CVipsShimPicture *picture, char **message);

/*
 * Draws `width` × `height` pixels of 8-bit RGB (3 bytes each, rows packed, `length` bytes
 * in all) as `request` says; request->orientation 0 means 1.
 */
int32_t CVipsShim_drawRGB(
    const uint8_t *pixels, size_t length, int32_t width, int32_t height,
    const CVipsShimRequest *request, CVipsShimPicture *picture, char **message);

/*
 * Decodes an encoded image to 8-bit sRGB pixels, 3 bytes each, rows packed (alpha
 * dropped, grey widened), with the orientation it records applied; for comparing
 * pictures. *pixels (free with CVipsShim_free) holds *width × *height × 3 bytes.
 */
int32_t CVipsShim_decodeRGB(
    const uint8_t *bytes, size_t length, uint64_t maxPixels, uint8_t **pixels,
    int32_t *width, int32_t *height, char **message);

/*
 * Whether the PNG pictures this module encodes itself are deflated by libdeflate (when
 * it can be loaded; the default) or by zlib: the same pixels either way, for tests of
 * both paths. Returns 1 when libdeflate will be used. For the calling thread only.
 */
int CVipsShim_setPNGDeflater(int libdeflate);

/* Frees bytes or pixels returned by this module; NULL is allowed. */
void CVipsShim_free(void *bytes);

/* Frees a message returned by this module; NULL is allowed. */
void CVipsShim_freeMessage(char *message);

/*
 * Hands memory freed back to the system (malloc_trim). A decoder's large buffers (a
 * HEIF's planes, the file's bytes, libvips's regions) are freed into malloc's per-thread
 * arenas, which keep them once glibc's mmap threshold has risen past their size; pictures
 * drawn on several threads in turn would otherwise each leave their arena holding the
 * largest buffer it has seen. Only when the arenas hold more than 8 MiB free: after a
 * small picture the pages would only be faulted in again by the next. The arenas are
 * looked at on the first call and every sixteenth after it (looking walks every free
 * chunk). Needs no libvips.
 */
void CVipsShim_returnFreedMemory(void);

/**
 * Whether this process runs under AddressSanitizer or ThreadSanitizer (their allocator
 * stands in for glibc's, and their shadow memory is mapped as data): 1 or 0. Needs no
 * libvips.
 */
int CVipsShim_isSanitized(void);

#ifdef __cplusplus
}
#endif

#endif
