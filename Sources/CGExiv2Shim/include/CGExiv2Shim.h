#ifndef GROUPENUMERATOR_CGEXIV2SHIM_H
#define GROUPENUMERATOR_CGEXIV2SHIM_H

/*
 * A plain-C wall around gexiv2 0.14.0 (Debian 12).
 *
 * gexiv2 0.14.0 only catches Exiv2::Error; any other C++ exception thrown inside exiv2
 * (std::overflow_error from a RIFF size of 0xFFFFFFFF, std::bad_alloc, ...) would unwind
 * into Swift and end in std::terminate. Every function here catches everything, frees
 * what it acquired, and reports failure as a status code plus a message.
 *
 * gexiv2 is not linked: CGExiv2Shim_initialize opens it (dlopen, once), so a process that
 * never needs exiv2 never maps gexiv2, exiv2 and glib; when it cannot be opened,
 * CGExiv2Shim_initialize fails with the loader's reason.
 *
 * No glib or C++ type appears in this header: images are opaque pointers, strings are
 * NUL-terminated and owned by the caller once returned (free them with
 * CGExiv2Shim_freeString).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes returned by every function below. */
/* The call succeeded and produced a value. */
#define CGExiv2Shim_ok 0
/* The call succeeded, but the file has no such tag or value. */
#define CGExiv2Shim_absent 1
/* gexiv2 or exiv2 reported an error, or threw; the message says what. */
#define CGExiv2Shim_failed (-1)
/* The value exists but is not of the shape asked for (e.g. not rationals). */
#define CGExiv2Shim_wrongShape (-2)

/* An image's metadata, opened from a buffer. */
typedef struct CGExiv2ShimImage CGExiv2ShimImage;

/*
 * Loads gexiv2 (dlopen of libgexiv2.so.2 and every function it is asked for, once),
 * initializes it (gexiv2_initialize, which also initializes exiv2's XMP parser and turns on
 * BMFF support) and mutes its logging. Call it once, before any thread uses another
 * function here; no other function may be called when it failed. Returns CGExiv2Shim_ok,
 * or CGExiv2Shim_failed with *message set (e.g. "cannot load gexiv2 (libgexiv2.so.2): ...").
 */
int32_t CGExiv2Shim_initialize(char **message);

/*
 * Parses the metadata of the `length` bytes at `bytes` (gexiv2_metadata_open_buf; the
 * bytes are only read during the call). On success *image is set and must be closed
 * with CGExiv2Shim_close. On failure *image is NULL and *message says why.
 */
int32_t CGExiv2Shim_open(
    const uint8_t *bytes, size_t length, CGExiv2ShimImage **image, char **message);

/* Releases an image; NULL is allowed. */
void CGExiv2Shim_close(CGExiv2ShimImage *image);

/* Frees a string returned by this module; NULL is allowed. */
void CGExiv2Shim_freeString(char *string);

/* Frees a byte buffer returned by this module; NULL is allowed. */
void CGExiv2Shim_freeBytes(uint8_t *bytes);

/*
 * The value of `key` (e.g. "Exif.Photo.DateTimeOriginal" or "Exif.Photo.0x9003") as
 * exiv2 writes it as text (for ASCII, the text up to the first NUL; for numbers,
 * space-separated values; for rationals, "n/d" each). *value is owned by the caller.
 */
int32_t CGExiv2Shim_tagString(
    CGExiv2ShimImage *image, const char *key, char **value, char **message);

/*
 * The stored bytes of `key`'s value. *bytes (owned by the caller, free with
 * CGExiv2Shim_freeBytes) holds *length bytes.
 */
int32_t CGExiv2Shim_tagBytes(
    CGExiv2ShimImage *image, const char *key, uint8_t **bytes, size_t *length,
    char **message);

/*
 * The numerators and denominators of a RATIONAL or SRATIONAL value, exactly as stored
 * (no division, no validation). Writes at most `capacity` pairs and sets *count to the
 * number of components the value has. CGExiv2Shim_wrongShape when a component is not a
 * fraction (the value is of another type).
 */
int32_t CGExiv2Shim_tagRationals(
    CGExiv2ShimImage *image, const char *key, int64_t *numerators, int64_t *denominators,
    size_t capacity, size_t *count, char **message);

/* The pixel size exiv2 found in the image structure (not EXIF); absent when unknown. */
int32_t CGExiv2Shim_pixelSize(
    CGExiv2ShimImage *image, int32_t *width, int32_t *height, char **message);

/* gexiv2's orientation (EXIF, else XMP tiff:Orientation), 1...8; absent when unspecified. */
int32_t CGExiv2Shim_orientation(CGExiv2ShimImage *image, int32_t *orientation, char **message);

/* Whether the EXIF data holds a thumbnail (IFD1): CGExiv2Shim_ok if so, else absent. */
int32_t CGExiv2Shim_hasThumbnail(CGExiv2ShimImage *image, char **message);

/*
 * Whether exiv2's preview manager lists at least one embedded preview whose MIME type is
 * image/jpeg (gexiv2_metadata_get_preview_properties): CGExiv2Shim_ok if so, else absent.
 * Nothing is loaded: the list is made when the image is opened.
 */
int32_t CGExiv2Shim_hasJPEGPreview(CGExiv2ShimImage *image, char **message);

/*
 * The bytes of the largest embedded image/jpeg preview (most pixels, then most bytes),
 * exactly as stored (gexiv2_metadata_try_get_preview_image, gexiv2_preview_image_get_data).
 * *bytes (owned by the caller, free with CGExiv2Shim_freeBytes) holds *length bytes;
 * *width and *height are the preview's size as exiv2 reports it (0 when unknown).
 * CGExiv2Shim_absent when there is no JPEG preview.
 */
int32_t CGExiv2Shim_largestJPEGPreview(
    CGExiv2ShimImage *image, uint8_t **bytes, size_t *length, uint32_t *width,
    uint32_t *height, char **message);

/*
 * The bytes of the EXIF thumbnail (IFD1), exactly as stored, whatever they hold
 * (gexiv2_metadata_get_exif_thumbnail). *bytes (owned by the caller, free with
 * CGExiv2Shim_freeBytes) holds *length bytes. CGExiv2Shim_absent when there is none.
 */
int32_t CGExiv2Shim_exifThumbnail(
    CGExiv2ShimImage *image, uint8_t **bytes, size_t *length, char **message);

/*
 * The XMP packet exiv2 read from the file (TIFF tag 700, WebP's XMP chunk, ...), as text
 * (gexiv2_metadata_try_get_xmp_packet). *value is owned by the caller. CGExiv2Shim_absent
 * when the file has none.
 */
int32_t CGExiv2Shim_xmpPacket(CGExiv2ShimImage *image, char **value, char **message);

/* The MIME type exiv2 decided on (e.g. "image/png"). *value is owned by the caller. */
int32_t CGExiv2Shim_mimeType(CGExiv2ShimImage *image, char **value, char **message);

#ifdef __cplusplus
}
#endif

#endif
