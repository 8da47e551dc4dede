#ifndef GROUPENUMERATOR_CDEFERREDLIBRARIES_H
#define GROUPENUMERATOR_CDEFERREDLIBRARIES_H

#include <stddef.h>
#include <stdint.h>

// libexif, SQLite and zlib, opened with dlopen on first use rather than linked.
//
// This target defines every libexif, SQLite and zlib function the package calls, under the
// library's own name and prototype (the real headers declare them). Each definition
// opens the library once (`pthread_once`), then calls the real function through a
// pointer. A process that reads no EXIF block and opens no index (a second run handed
// back from a snapshot or a stored listing, `Demo --help`) never maps them, and starts
// without them. The definitions are hidden: nothing outside the program that links
// them calls them.
//
// When a library cannot be opened, its functions do nothing and return what means
// failure for them (NULL, `SQLITE_CANTOPEN`, `SQLITE_MISUSE`, `Z_VERSION_ERROR`, 0), but
// for zlib's checksums and bound, which are computed here then; the functions below say
// why, for the message.

/// Opens libexif (`libexif.so.12`) if it is not yet open.
///
/// @return NULL when libexif is open; otherwise why it could not be (the text lives as long
/// as the process).
const char *_Nullable CDeferredLibraries_libexif(void);

/// Opens SQLite (`libsqlite3.so.0`) if it is not yet open.
///
/// @return NULL when SQLite is open; otherwise why it could not be.
const char *_Nullable CDeferredLibraries_sqlite(void);

/// Opens zlib (`libz.so.1`) if it is not yet open.
///
/// @return NULL when zlib is open; otherwise why it could not be.
const char *_Nullable CDeferredLibraries_zlib(void);

/// zlib's `adler32`, bit by bit: what `adler32` computes without zlib.
unsigned long CDeferredLibraries_adler32(
    unsigned long adler, const uint8_t *_Nullable bytes, size_t length);

/// zlib's `crc32` (PNG's and gzip's CRC), bit by bit: what `crc32` computes without zlib.
unsigned long CDeferredLibraries_crc32(
    unsigned long crc, const uint8_t *_Nullable bytes, size_t length);

#endif
