// libexif, SQLite and zlib opened on first use: see include/CDeferredLibraries.h.
//
// Every function below has the library's own name and the prototype of the library's
// header (which the compiler checks against the definition). A function the package calls
// that is missing here fails to link, since none of the libraries is linked, so the lists
// cannot fall behind the code.

#include "CDeferredLibraries.h"

#include <dlfcn.h>
#include <libexif/exif-content.h>
#include <libexif/exif-data.h>
#include <libexif/exif-format.h>
#include <libexif/exif-mem.h>
#include <libexif/exif-utils.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define HIDDEN __attribute__((visibility("hidden")))

// One library opened on first use. Every call reads `ready` first (an atomic load, where
// `pthread_once` would be a call into libc each time: the readers call libexif's
// functions a hundred times a file); `failure` is written inside `once`, read only after
// it.
struct Deferred {
  pthread_once_t once;
  const char *soname;
  // Set (with release ordering) once every pointer is resolved.
  int ready;
  // Why it could not be opened.
  char failure[512];
};

// Opens `library`'s soname and resolves `count` symbols named in `names` into `pointers`;
// on failure writes why into its `failure`. The library is never closed.
static void openDeferred(
    struct Deferred *library, const char *const *names, void **pointers, size_t count) {
  void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char *reason = dlerror();
    snprintf(
        library->failure, sizeof library->failure, "cannot load %s: %s", library->soname,
        reason != NULL ? reason : "unknown error");
    return;
  }
  for (size_t index = 0; index < count; index++) {
    dlerror();
    pointers[index] = dlsym(handle, names[index]);
    if (pointers[index] == NULL) {
      const char *reason = dlerror();
      snprintf(
          library->failure, sizeof library->failure, "cannot load %s: %s", library->soname,
          reason != NULL ? reason : names[index]);
      return;
    }
  }
  __atomic_store_n(&library->ready, 1, __ATOMIC_RELEASE);
}

#define NAME(name) #name,
#define POINTER(name) __typeof__(&name) name;

// Declares the library `prefix` (`soname`, and `FUNCTIONS`, the X-macro list of the
// functions called): `prefix.f.name`, a pointer to each function; `prefix##State`; and
// `prefix##Ready()`, which opens it the first time and says whether it is open.
#define DEFERRED_LIBRARY(prefix, soname_, FUNCTIONS)                                       \
  static const char *const prefix##Names[] = {FUNCTIONS(NAME)};                            \
  static union {                                                                           \
    struct {                                                                               \
      FUNCTIONS(POINTER)                                                                   \
    } f;                                                                                   \
    void *all[sizeof prefix##Names / sizeof prefix##Names[0]];                             \
  } prefix;                                                                                \
  static struct Deferred prefix##State = {PTHREAD_ONCE_INIT, soname_, 0, ""};             \
  static void prefix##Open(void) {                                                         \
    openDeferred(&prefix##State, prefix##Names, prefix.all,                                \
                 sizeof prefix.all / sizeof prefix.all[0]);                                \
  }                                                                                        \
  static inline bool prefix##Ready(void) {                                                 \
    if (__builtin_expect(__atomic_load_n(&prefix##State.ready, __ATOMIC_ACQUIRE), 1)) {    \
      return true;                                                                         \
    }                                                                                      \
    pthread_once(&prefix##State.once, prefix##Open);                                       \
    return __atomic_load_n(&prefix##State.ready, __ATOMIC_ACQUIRE);                        \
  }

// MARK: - libexif

#define LIBEXIF_FUNCTIONS(X)                                                               \
  X(exif_content_get_entry)                                                                \
  X(exif_data_get_byte_order)                                                              \
  X(exif_data_load_data)                                                                   \
  X(exif_data_new)                                                                         \
  X(exif_data_new_mem)                                                                     \
  X(exif_data_unref)                                                                       \
  X(exif_data_unset_option)                                                                \
  X(exif_format_get_size)                                                                  \
  X(exif_get_long)                                                                         \
  X(exif_get_rational)                                                                     \
  X(exif_get_short)                                                                        \
  X(exif_get_slong)                                                                        \
  X(exif_get_srational)                                                                    \
  X(exif_mem_new)                                                                          \
  X(exif_mem_unref)

DEFERRED_LIBRARY(libexif, "libexif.so.12", LIBEXIF_FUNCTIONS)

const char *CDeferredLibraries_libexif(void) {
  return libexifReady() ? NULL : libexifState.failure;
}

HIDDEN ExifEntry *exif_content_get_entry(ExifContent *content, ExifTag tag) {
  return libexifReady() ? libexif.f.exif_content_get_entry(content, tag) : NULL;
}

HIDDEN ExifByteOrder exif_data_get_byte_order(ExifData *data) {
  return libexifReady() ? libexif.f.exif_data_get_byte_order(data) : EXIF_BYTE_ORDER_MOTOROLA;
}

HIDDEN void exif_data_load_data(ExifData *data, const unsigned char *bytes, unsigned int size) {
  if (libexifReady()) libexif.f.exif_data_load_data(data, bytes, size);
}

HIDDEN ExifData *exif_data_new(void) {
  return libexifReady() ? libexif.f.exif_data_new() : NULL;
}

HIDDEN ExifData *exif_data_new_mem(ExifMem *memory) {
  return libexifReady() ? libexif.f.exif_data_new_mem(memory) : NULL;
}

HIDDEN void exif_data_unref(ExifData *data) {
  if (libexifReady()) libexif.f.exif_data_unref(data);
}

HIDDEN void exif_data_unset_option(ExifData *data, ExifDataOption option) {
  if (libexifReady()) libexif.f.exif_data_unset_option(data, option);
}

HIDDEN unsigned char exif_format_get_size(ExifFormat format) {
  return libexifReady() ? libexif.f.exif_format_get_size(format) : 0;
}

HIDDEN ExifLong exif_get_long(const unsigned char *bytes, ExifByteOrder order) {
  return libexifReady() ? libexif.f.exif_get_long(bytes, order) : 0;
}

HIDDEN ExifRational exif_get_rational(const unsigned char *bytes, ExifByteOrder order) {
  ExifRational none = {0, 0};
  return libexifReady() ? libexif.f.exif_get_rational(bytes, order) : none;
}

HIDDEN ExifShort exif_get_short(const unsigned char *bytes, ExifByteOrder order) {
  return libexifReady() ? libexif.f.exif_get_short(bytes, order) : 0;
}

HIDDEN ExifSLong exif_get_slong(const unsigned char *bytes, ExifByteOrder order) {
  return libexifReady() ? libexif.f.exif_get_slong(bytes, order) : 0;
}

HIDDEN ExifSRational exif_get_srational(const unsigned char *bytes, ExifByteOrder order) {
  ExifSRational none = {0, 0};
  return libexifReady() ? libexif.f.exif_get_srational(bytes, order) : none;
}

HIDDEN ExifMem *exif_mem_new(
    ExifMemAllocFunc allocate, ExifMemReallocFunc reallocate, ExifMemFreeFunc release) {
  return libexifReady() ? libexif.f.exif_mem_new(allocate, reallocate, release) : NULL;
}

HIDDEN void exif_mem_unref(ExifMem *memory) {
  if (libexifReady()) libexif.f.exif_mem_unref(memory);
}

// MARK: - SQLite

#define SQLITE_FUNCTIONS(X)                                                                \
  X(sqlite3_bind_blob)                                                                     \
  X(sqlite3_bind_int64)                                                                    \
  X(sqlite3_bind_null)                                                                     \
  X(sqlite3_bind_text)                                                                     \
  X(sqlite3_busy_timeout)                                                                  \
  X(sqlite3_clear_bindings)                                                                \
  X(sqlite3_close_v2)                                                                      \
  X(sqlite3_column_blob)                                                                   \
  X(sqlite3_column_bytes)                                                                  \
  X(sqlite3_column_count)                                                                  \
  X(sqlite3_column_int64)                                                                  \
  X(sqlite3_column_text)                                                                   \
  X(sqlite3_column_type)                                                                   \
  X(sqlite3_db_config)                                                                     \
  X(sqlite3_errmsg)                                                                        \
  X(sqlite3_exec)                                                                          \
  X(sqlite3_extended_result_codes)                                                         \
  X(sqlite3_finalize)                                                                      \
  X(sqlite3_open_v2)                                                                       \
  X(sqlite3_prepare_v2)                                                                    \
  X(sqlite3_reset)                                                                         \
  X(sqlite3_step)

DEFERRED_LIBRARY(sqlite, "libsqlite3.so.0", SQLITE_FUNCTIONS)

const char *CDeferredLibraries_sqlite(void) {
  return sqliteReady() ? NULL : sqliteState.failure;
}

HIDDEN int sqlite3_bind_blob(
    sqlite3_stmt *statement, int index, const void *bytes, int count, void (*release)(void *)) {
  return sqliteReady() ? sqlite.f.sqlite3_bind_blob(statement, index, bytes, count, release)
                       : SQLITE_MISUSE;
}

HIDDEN int sqlite3_bind_int64(sqlite3_stmt *statement, int index, sqlite3_int64 value) {
  return sqliteReady() ? sqlite.f.sqlite3_bind_int64(statement, index, value) : SQLITE_MISUSE;
}

HIDDEN int sqlite3_bind_null(sqlite3_stmt *statement, int index) {
  return sqliteReady() ? sqlite.f.sqlite3_bind_null(statement, index) : SQLITE_MISUSE;
}

HIDDEN int sqlite3_bind_text(
    sqlite3_stmt *statement, int index, const char *text, int count, void (*release)(void *)) {
  return sqliteReady() ? sqlite.f.sqlite3_bind_text(statement, index, text, count, release)
                       : SQLITE_MISUSE;
}

HIDDEN int sqlite3_busy_timeout(sqlite3 *db, int milliseconds) {
  return sqliteReady() ? sqlite.f.sqlite3_busy_timeout(db, milliseconds) : SQLITE_MISUSE;
}

HIDDEN int sqlite3_clear_bindings(sqlite3_stmt *statement) {
  return sqliteReady() ? sqlite.f.sqlite3_clear_bindings(statement) : SQLITE_MISUSE;
}

HIDDEN int sqlite3_close_v2(sqlite3 *db) {
  return sqliteReady() ? sqlite.f.sqlite3_close_v2(db) : SQLITE_OK;
}

HIDDEN const void *sqlite3_column_blob(sqlite3_stmt *statement, int column) {
  return sqliteReady() ? sqlite.f.sqlite3_column_blob(statement, column) : NULL;
}

HIDDEN int sqlite3_column_bytes(sqlite3_stmt *statement, int column) {
  return sqliteReady() ? sqlite.f.sqlite3_column_bytes(statement, column) : 0;
}

HIDDEN int sqlite3_column_count(sqlite3_stmt *statement) {
  return sqliteReady() ? sqlite.f.sqlite3_column_count(statement) : 0;
}

HIDDEN sqlite3_int64 sqlite3_column_int64(sqlite3_stmt *statement, int column) {
  return sqliteReady() ? sqlite.f.sqlite3_column_int64(statement, column) : 0;
}

HIDDEN const unsigned char *sqlite3_column_text(sqlite3_stmt *statement, int column) {
  return sqliteReady() ? sqlite.f.sqlite3_column_text(statement, column) : NULL;
}

HIDDEN int sqlite3_column_type(sqlite3_stmt *statement, int column) {
  return sqliteReady() ? sqlite.f.sqlite3_column_type(statement, column) : SQLITE_NULL;
}

// Variadic in SQLite; the package passes only options that take an int and an int *
// (CSQLite_harden), and those two are passed on.
HIDDEN int sqlite3_db_config(sqlite3 *db, int option, ...) {
  if (!sqliteReady()) return SQLITE_MISUSE;
  va_list arguments;
  va_start(arguments, option);
  int value = va_arg(arguments, int);
  int *result = va_arg(arguments, int *);
  va_end(arguments);
  return sqlite.f.sqlite3_db_config(db, option, value, result);
}

HIDDEN const char *sqlite3_errmsg(sqlite3 *db) {
  return sqliteReady() ? sqlite.f.sqlite3_errmsg(db) : sqliteState.failure;
}

HIDDEN int sqlite3_exec(
    sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context,
    char **message) {
  return sqliteReady() ? sqlite.f.sqlite3_exec(db, sql, callback, context, message)
                       : SQLITE_MISUSE;
}

HIDDEN int sqlite3_extended_result_codes(sqlite3 *db, int on) {
  return sqliteReady() ? sqlite.f.sqlite3_extended_result_codes(db, on) : SQLITE_MISUSE;
}

HIDDEN int sqlite3_finalize(sqlite3_stmt *statement) {
  return sqliteReady() ? sqlite.f.sqlite3_finalize(statement) : SQLITE_OK;
}

HIDDEN int sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs) {
  if (sqliteReady()) return sqlite.f.sqlite3_open_v2(name, db, flags, vfs);
  if (db != NULL) *db = NULL;
  return SQLITE_CANTOPEN;
}

HIDDEN int sqlite3_prepare_v2(
    sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement, const char **tail) {
  if (sqliteReady()) return sqlite.f.sqlite3_prepare_v2(db, sql, length, statement, tail);
  if (statement != NULL) *statement = NULL;
  return SQLITE_MISUSE;
}

HIDDEN int sqlite3_reset(sqlite3_stmt *statement) {
  return sqliteReady() ? sqlite.f.sqlite3_reset(statement) : SQLITE_MISUSE;
}

HIDDEN int sqlite3_step(sqlite3_stmt *statement) {
  return sqliteReady() ? sqlite.f.sqlite3_step(statement) : SQLITE_MISUSE;
}

// MARK: - zlib

#define ZLIB_FUNCTIONS(X)                                                                  \
  X(adler32)                                                                               \
  X(compress2)                                                                             \
  X(crc32)                                                                                 \
  X(deflate)                                                                               \
  X(deflateEnd)                                                                            \
  X(deflateInit2_)                                                                         \
  X(inflate)                                                                               \
  X(inflateEnd)                                                                            \
  X(inflateInit_)

DEFERRED_LIBRARY(zlib, "libz.so.1", ZLIB_FUNCTIONS)

const char *CDeferredLibraries_zlib(void) { return zlibReady() ? NULL : zlibState.failure; }

// The checksums have no way to fail, so without zlib they are computed here (bit by bit:
// slower, the same values): a PNG's chunks are still checked.
unsigned long CDeferredLibraries_adler32(unsigned long adler, const uint8_t *bytes, size_t length) {
  if (bytes == NULL) return 1;
  unsigned long low = adler & 0xFFFF, high = (adler >> 16) & 0xFFFF;
  for (size_t index = 0; index < length; index++) {
    low = (low + bytes[index]) % 65521;
    high = (high + low) % 65521;
  }
  return high << 16 | low;
}

unsigned long CDeferredLibraries_crc32(unsigned long crc, const uint8_t *bytes, size_t length) {
  if (bytes == NULL) return 0;
  uint32_t value = ~(uint32_t)crc;
  for (size_t index = 0; index < length; index++) {
    value ^= bytes[index];
    for (int bit = 0; bit < 8; bit++) value = value >> 1 ^ (0xEDB88320u & -(value & 1));
  }
  return ~value;
}

HIDDEN uLong adler32(uLong adler, const Bytef *bytes, uInt length) {
  return zlibReady() ? zlib.f.adler32(adler, bytes, length)
                     : CDeferredLibraries_adler32(adler, bytes, length);
}

HIDDEN uLong crc32(uLong crc, const Bytef *bytes, uInt length) {
  return zlibReady() ? zlib.f.crc32(crc, bytes, length)
                     : CDeferredLibraries_crc32(crc, bytes, length);
}

// Arithmetic only (zlib's own bound for its default settings): needs no library.
HIDDEN uLong compressBound(uLong length) {
  return length + (length >> 12) + (length >> 14) + (length >> 25) + 13;
}

HIDDEN int compress2(Bytef *out, uLongf *outLength, const Bytef *in, uLong inLength, int level) {
  return zlibReady() ? zlib.f.compress2(out, outLength, in, inLength, level) : Z_VERSION_ERROR;
}

HIDDEN int deflate(z_streamp stream, int flush) {
  return zlibReady() ? zlib.f.deflate(stream, flush) : Z_STREAM_ERROR;
}

HIDDEN int deflateEnd(z_streamp stream) {
  return zlibReady() ? zlib.f.deflateEnd(stream) : Z_STREAM_ERROR;
}

HIDDEN int deflateInit2_(
    z_streamp stream, int level, int method, int windowBits, int memLevel, int strategy,
    const char *version, int streamSize) {
  return zlibReady() ? zlib.f.deflateInit2_(
                           stream, level, method, windowBits, memLevel, strategy, version,
                           streamSize)
                     : Z_VERSION_ERROR;
}

HIDDEN int inflate(z_streamp stream, int flush) {
  return zlibReady() ? zlib.f.inflate(stream, flush) : Z_STREAM_ERROR;
}

HIDDEN int inflateEnd(z_streamp stream) {
  return zlibReady() ? zlib.f.inflateEnd(stream) : Z_STREAM_ERROR;
}

HIDDEN int inflateInit_(z_streamp stream, const char *version, int streamSize) {
  return zlibReady() ? zlib.f.inflateInit_(stream, version, streamSize) : Z_VERSION_ERROR;
}
