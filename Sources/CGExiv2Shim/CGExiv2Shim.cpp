// The catch-all wall around gexiv2: see include/CGExiv2Shim.h.
//
// gexiv2 is not linked: it is opened with dlopen on the first CGExiv2Shim_initialize, and
// every gexiv2, gobject and glib function called here is resolved into a pointer of its
// declared type (p_gexiv2_..., p_g_...), so that a process that reads no WebP, JPEG XL or
// RAW file never maps gexiv2, exiv2 and glib's libraries, and its start pays nothing for
// them. The few gexiv2 and glib types and prototypes the shim needs are declared here, not
// taken from their headers (whose include folders only gobject-2.0's pkg-config file gives,
// together with `-lgobject-2.0 -lglib-2.0`, which would link glib again);
// Scripts/check-c-declarations.sh compiles this file against the real headers
// (CGEXIV2SHIM_CHECK_DECLARATIONS), so a declaration that drifts from them fails `make lint`.
//
// Every exported function runs its body through `guarded`, which turns any C++ exception
// into CGExiv2Shim_failed plus a message. Resources are held by RAII owners (OwnedObject,
// OwnedError, OwnedString, OwnedBytes), so they are released on every path, exceptions
// included.

#include "CGExiv2Shim.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#ifdef CGEXIV2SHIM_CHECK_DECLARATIONS
// The declarations below, checked against gexiv2's own (a redeclaration that differs is an
// error), and the constants compared.
#include <gexiv2/gexiv2.h>
static_assert(GEXIV2_LOG_LEVEL_MUTE == 4, "GEXIV2_LOG_LEVEL_MUTE");
static_assert(sizeof(GExiv2LogLevel) == sizeof(int), "GExiv2LogLevel");
static_assert(sizeof(GExiv2Orientation) == sizeof(int), "GExiv2Orientation");
static_assert(offsetof(GError, message) == 8, "GError.message");
#else
extern "C" {
typedef char gchar;
typedef int gint;
typedef int gboolean;
typedef long glong;
typedef unsigned char guint8;
typedef unsigned int guint32;
typedef unsigned long gsize;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef struct _GBytes GBytes;
typedef struct _GExiv2Metadata GExiv2Metadata;
typedef struct _GExiv2PreviewProperties GExiv2PreviewProperties;
typedef struct _GExiv2PreviewImage GExiv2PreviewImage;
// Both enums are int-sized; only their values cross the wall.
typedef int GExiv2LogLevel;
typedef int GExiv2Orientation;
enum { GEXIV2_LOG_LEVEL_MUTE = 4 };
// glib's error record (stable since glib 2.0): a quark, a code, the text.
typedef struct _GError {
  guint32 domain;
  gint code;
  gchar *message;
} GError;
}
#endif

// The prototypes of every function called, as gexiv2 0.14's and glib 2.74's headers declare them.
extern "C" {
gboolean gexiv2_initialize(void);
void gexiv2_log_set_level(GExiv2LogLevel level);
GExiv2Metadata *gexiv2_metadata_new(void);
gboolean gexiv2_metadata_open_buf(
    GExiv2Metadata *self, const guint8 *data, glong n_data, GError **error);
gchar *gexiv2_metadata_try_get_tag_string(GExiv2Metadata *self, const gchar *tag, GError **error);
GBytes *gexiv2_metadata_try_get_tag_raw(GExiv2Metadata *self, const gchar *tag, GError **error);
gint gexiv2_metadata_get_pixel_width(GExiv2Metadata *self);
gint gexiv2_metadata_get_pixel_height(GExiv2Metadata *self);
GExiv2Orientation gexiv2_metadata_try_get_orientation(GExiv2Metadata *self, GError **error);
gboolean gexiv2_metadata_get_exif_thumbnail(GExiv2Metadata *self, guint8 **buffer, gint *size);
const gchar *gexiv2_metadata_get_mime_type(GExiv2Metadata *self);
gchar *gexiv2_metadata_try_get_xmp_packet(GExiv2Metadata *self, GError **error);
GExiv2PreviewProperties **gexiv2_metadata_get_preview_properties(GExiv2Metadata *self);
const gchar *gexiv2_preview_properties_get_mime_type(GExiv2PreviewProperties *self);
guint32 gexiv2_preview_properties_get_size(GExiv2PreviewProperties *self);
guint32 gexiv2_preview_properties_get_width(GExiv2PreviewProperties *self);
guint32 gexiv2_preview_properties_get_height(GExiv2PreviewProperties *self);
GExiv2PreviewImage *gexiv2_metadata_try_get_preview_image(
    GExiv2Metadata *self, GExiv2PreviewProperties *props, GError **error);
const guint8 *gexiv2_preview_image_get_data(GExiv2PreviewImage *self, guint32 *size);
guint32 gexiv2_preview_image_get_width(GExiv2PreviewImage *self);
guint32 gexiv2_preview_image_get_height(GExiv2PreviewImage *self);
void g_object_unref(gpointer object);
void g_free(gpointer mem);
void g_bytes_unref(GBytes *bytes);
gconstpointer g_bytes_get_data(GBytes *bytes, gsize *size);
void g_error_free(GError *error);
}

// Every function the shim calls. A call to one missing from this list fails to link
// (gexiv2 is not linked), so the list cannot fall behind the code.
#define CGEXIV2SHIM_FUNCTIONS(X)               \
  X(gexiv2_initialize)                         \
  X(gexiv2_log_set_level)                      \
  X(gexiv2_metadata_new)                       \
  X(gexiv2_metadata_open_buf)                  \
  X(gexiv2_metadata_try_get_tag_string)        \
  X(gexiv2_metadata_try_get_tag_raw)           \
  X(gexiv2_metadata_get_pixel_width)           \
  X(gexiv2_metadata_get_pixel_height)          \
  X(gexiv2_metadata_try_get_orientation)       \
  X(gexiv2_metadata_get_exif_thumbnail)        \
  X(gexiv2_metadata_get_mime_type)             \
  X(gexiv2_metadata_try_get_xmp_packet)        \
  X(gexiv2_metadata_get_preview_properties)    \
  X(gexiv2_preview_properties_get_mime_type)   \
  X(gexiv2_preview_properties_get_size)        \
  X(gexiv2_preview_properties_get_width)       \
  X(gexiv2_preview_properties_get_height)      \
  X(gexiv2_metadata_try_get_preview_image)     \
  X(gexiv2_preview_image_get_data)             \
  X(gexiv2_preview_image_get_width)            \
  X(gexiv2_preview_image_get_height)           \
  X(g_object_unref)                            \
  X(g_free)                                    \
  X(g_bytes_unref)                             \
  X(g_bytes_get_data)                          \
  X(g_error_free)

namespace {

// One pointer per function, of the function's own type; set once by loadGexiv2, inside
// loadOnce, and only read after it (every caller has passed CGExiv2Shim_initialize).
#define CGEXIV2SHIM_DECLARE(name) decltype(&::name) p_##name = nullptr;
CGEXIV2SHIM_FUNCTIONS(CGEXIV2SHIM_DECLARE)
#undef CGEXIV2SHIM_DECLARE

// gexiv2's soname (libgexiv2.so.2 for every 0.x release since 0.10; Debian 12 has 0.14).
// glib's and gobject's functions are found through it: dlsym on a handle searches the
// library and then the libraries it depends on.
constexpr const char *gexiv2Soname = "libgexiv2.so.2";

pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
// Why gexiv2 could not be loaded; set inside loadOnce, read only after it.
char loadFailure[512] = "gexiv2 was not loaded";
// Set last, once every pointer is; read by CGExiv2Shim_open, which a caller that skipped
// CGExiv2Shim_initialize may reach on another thread.
std::atomic<bool> loaded{false};

// Opens gexiv2 and resolves every function; on failure, loadFailure says why. The library
// is never closed: exiv2 and gobject register types and state that outlive any call.
void loadGexiv2() {
  void *library = dlopen(gexiv2Soname, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char *reason = dlerror();
    snprintf(
        loadFailure, sizeof loadFailure, "cannot load gexiv2 (%s): %s", gexiv2Soname,
        reason != nullptr ? reason : "unknown error");
    return;
  }
#define CGEXIV2SHIM_RESOLVE(name)                                                        \
  dlerror();                                                                             \
  p_##name = reinterpret_cast<decltype(&::name)>(dlsym(library, #name));                 \
  if (p_##name == nullptr) {                                                             \
    const char *reason = dlerror();                                                      \
    snprintf(                                                                            \
        loadFailure, sizeof loadFailure, "cannot load gexiv2 (%s): %s", gexiv2Soname,    \
        reason != nullptr ? reason : "no symbol " #name);                                \
    return;                                                                              \
  }
  CGEXIV2SHIM_FUNCTIONS(CGEXIV2SHIM_RESOLVE)
#undef CGEXIV2SHIM_RESOLVE
  loaded.store(true, std::memory_order_release);
}

}  // namespace

struct CGExiv2ShimImage {
  GExiv2Metadata *metadata;
};

namespace {

struct ObjectUnref {
  void operator()(GExiv2Metadata *object) const noexcept { p_g_object_unref(object); }
};
using OwnedObject = std::unique_ptr<GExiv2Metadata, ObjectUnref>;

struct GFree {
  void operator()(gchar *string) const noexcept { p_g_free(string); }
};
using OwnedString = std::unique_ptr<gchar, GFree>;

struct BytesUnref {
  void operator()(GBytes *bytes) const noexcept { p_g_bytes_unref(bytes); }
};
using OwnedBytes = std::unique_ptr<GBytes, BytesUnref>;

struct PreviewFree {
  // gexiv2_preview_image_free is deprecated in 0.14 for g_object_unref.
  void operator()(GExiv2PreviewImage *preview) const noexcept { p_g_object_unref(preview); }
};
using OwnedPreview = std::unique_ptr<GExiv2PreviewImage, PreviewFree>;

// Whether a preview's MIME type is image/jpeg.
bool isJPEG(GExiv2PreviewProperties *properties) noexcept {
  const gchar *type = p_gexiv2_preview_properties_get_mime_type(properties);
  return type != nullptr && strcmp(type, "image/jpeg") == 0;
}

// A GError out-parameter that is freed when it goes out of scope.
struct OwnedError {
  GError *error = nullptr;
  OwnedError() = default;
  OwnedError(const OwnedError &) = delete;
  OwnedError &operator=(const OwnedError &) = delete;
  ~OwnedError() {
    if (error != nullptr) p_g_error_free(error);
  }
};

// Stores a malloc'd copy of `text` in *message (which the caller frees).
void setMessage(char **message, const char *text) noexcept {
  if (message == nullptr) return;
  if (*message != nullptr) free(*message);
  *message = strdup(text != nullptr ? text : "unknown error");
}

// The failure for a gexiv2 call that reported `error` (or nothing).
int32_t failure(char **message, const OwnedError &error, const char *fallback) noexcept {
  setMessage(message, error.error != nullptr ? error.error->message : fallback);
  return CGExiv2Shim_failed;
}

// Runs `body`, turning every C++ exception into a failure with its message.
template <typename Body>
int32_t guarded(char **message, Body body) noexcept {
  if (message != nullptr) *message = nullptr;
  try {
    return body();
  } catch (const std::exception &exception) {
    std::string text = "exiv2 threw ";
    try {
      text += exception.what();
    } catch (...) {
    }
    setMessage(message, text.c_str());
  } catch (...) {
    setMessage(message, "exiv2 threw an unknown C++ exception");
  }
  return CGExiv2Shim_failed;
}

// Parses one "n/d" component of exiv2's text for a (S)RATIONAL value.
bool parseFraction(const std::string &token, int64_t *numerator, int64_t *denominator) {
  const size_t slash = token.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= token.size()) return false;
  const std::string parts[2] = {token.substr(0, slash), token.substr(slash + 1)};
  int64_t values[2] = {0, 0};
  for (int index = 0; index < 2; ++index) {
    const std::string &part = parts[index];
    const size_t first = part[0] == '-' ? 1 : 0;
    if (first >= part.size()) return false;
    for (size_t position = first; position < part.size(); ++position) {
      if (part[position] < '0' || part[position] > '9') return false;
    }
    errno = 0;
    char *end = nullptr;
    const long long value = strtoll(part.c_str(), &end, 10);
    if (errno != 0 || end == nullptr || *end != '\0') return false;
    values[index] = value;
  }
  *numerator = values[0];
  *denominator = values[1];
  return true;
}

}  // namespace

extern "C" {

int32_t CGExiv2Shim_initialize(char **message) {
  return guarded(message, [&]() -> int32_t {
    pthread_once(&loadOnce, loadGexiv2);
    if (!loaded.load(std::memory_order_acquire)) {
      setMessage(message, loadFailure);
      return CGExiv2Shim_failed;
    }
    if (!p_gexiv2_initialize()) {
      setMessage(message, "gexiv2_initialize failed");
      return CGExiv2Shim_failed;
    }
    p_gexiv2_log_set_level(GEXIV2_LOG_LEVEL_MUTE);
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_open(
    const uint8_t *bytes, size_t length, CGExiv2ShimImage **image, char **message) {
  if (image != nullptr) *image = nullptr;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || bytes == nullptr || length == 0 || length > LONG_MAX) {
      setMessage(message, "no data, or more than a glong can count");
      return CGExiv2Shim_failed;
    }
    // Every other function needs an image, so this is the one place that must refuse to
    // run before CGExiv2Shim_initialize loaded gexiv2.
    if (!loaded.load(std::memory_order_acquire)) {
      setMessage(message, "gexiv2 is not loaded");
      return CGExiv2Shim_failed;
    }
    OwnedObject metadata(p_gexiv2_metadata_new());
    if (!metadata) {
      setMessage(message, "gexiv2_metadata_new failed");
      return CGExiv2Shim_failed;
    }
    OwnedError error;
    if (!p_gexiv2_metadata_open_buf(
            metadata.get(), bytes, static_cast<glong>(length), &error.error)) {
      return failure(message, error, "gexiv2 could not read the data");
    }
    auto *opened = new CGExiv2ShimImage{nullptr};
    opened->metadata = metadata.release();
    *image = opened;
    return CGExiv2Shim_ok;
  });
}

void CGExiv2Shim_close(CGExiv2ShimImage *image) {
  if (image == nullptr) return;
  if (image->metadata != nullptr) p_g_object_unref(image->metadata);
  delete image;
}

void CGExiv2Shim_freeString(char *string) { free(string); }

void CGExiv2Shim_freeBytes(uint8_t *bytes) { free(bytes); }

int32_t CGExiv2Shim_tagString(
    CGExiv2ShimImage *image, const char *key, char **value, char **message) {
  if (value != nullptr) *value = nullptr;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || key == nullptr || value == nullptr) return CGExiv2Shim_failed;
    OwnedError error;
    OwnedString text(p_gexiv2_metadata_try_get_tag_string(image->metadata, key, &error.error));
    if (error.error != nullptr) return failure(message, error, "");
    if (!text) return CGExiv2Shim_absent;
    *value = strdup(text.get());
    if (*value == nullptr) throw std::bad_alloc();
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_tagBytes(
    CGExiv2ShimImage *image, const char *key, uint8_t **bytes, size_t *length,
    char **message) {
  if (bytes != nullptr) *bytes = nullptr;
  if (length != nullptr) *length = 0;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || key == nullptr || bytes == nullptr || length == nullptr) {
      return CGExiv2Shim_failed;
    }
    OwnedError error;
    OwnedBytes raw(p_gexiv2_metadata_try_get_tag_raw(image->metadata, key, &error.error));
    if (error.error != nullptr) return failure(message, error, "");
    if (!raw) return CGExiv2Shim_absent;
    gsize size = 0;
    const void *data = p_g_bytes_get_data(raw.get(), &size);
    if (data == nullptr || size == 0) return CGExiv2Shim_absent;
    auto *copy = static_cast<uint8_t *>(malloc(size));
    if (copy == nullptr) throw std::bad_alloc();
    memcpy(copy, data, size);
    *bytes = copy;
    *length = size;
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_tagRationals(
    CGExiv2ShimImage *image, const char *key, int64_t *numerators, int64_t *denominators,
    size_t capacity, size_t *count, char **message) {
  if (count != nullptr) *count = 0;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || key == nullptr || count == nullptr) return CGExiv2Shim_failed;
    OwnedError error;
    OwnedString text(p_gexiv2_metadata_try_get_tag_string(image->metadata, key, &error.error));
    if (error.error != nullptr) return failure(message, error, "");
    if (!text) return CGExiv2Shim_absent;
    // exiv2 writes a (S)RATIONAL value as "n/d" components separated by single spaces.
    const std::string all(text.get());
    size_t components = 0;
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(' ', start);
      if (end == std::string::npos) end = all.size();
      int64_t numerator = 0;
      int64_t denominator = 0;
      if (!parseFraction(all.substr(start, end - start), &numerator, &denominator)) {
        setMessage(message, "the value is not made of rationals");
        return CGExiv2Shim_wrongShape;
      }
      if (components < capacity && numerators != nullptr && denominators != nullptr) {
        numerators[components] = numerator;
        denominators[components] = denominator;
      }
      ++components;
      start = end + 1;
    }
    *count = components;
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_pixelSize(
    CGExiv2ShimImage *image, int32_t *width, int32_t *height, char **message) {
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || width == nullptr || height == nullptr) return CGExiv2Shim_failed;
    const gint pixelWidth = p_gexiv2_metadata_get_pixel_width(image->metadata);
    const gint pixelHeight = p_gexiv2_metadata_get_pixel_height(image->metadata);
    if (pixelWidth <= 0 || pixelHeight <= 0) return CGExiv2Shim_absent;
    *width = pixelWidth;
    *height = pixelHeight;
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_orientation(CGExiv2ShimImage *image, int32_t *orientation, char **message) {
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || orientation == nullptr) return CGExiv2Shim_failed;
    OwnedError error;
    const GExiv2Orientation value =
        p_gexiv2_metadata_try_get_orientation(image->metadata, &error.error);
    if (error.error != nullptr) return failure(message, error, "");
    const int32_t number = static_cast<int32_t>(value);
    if (number < 1 || number > 8) return CGExiv2Shim_absent;
    *orientation = number;
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_hasThumbnail(CGExiv2ShimImage *image, char **message) {
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr) return CGExiv2Shim_failed;
    guint8 *buffer = nullptr;
    gint size = 0;
    const gboolean found = p_gexiv2_metadata_get_exif_thumbnail(image->metadata, &buffer, &size);
    p_g_free(buffer);
    return found && size > 0 ? CGExiv2Shim_ok : CGExiv2Shim_absent;
  });
}

int32_t CGExiv2Shim_mimeType(CGExiv2ShimImage *image, char **value, char **message) {
  if (value != nullptr) *value = nullptr;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || value == nullptr) return CGExiv2Shim_failed;
    const gchar *type = p_gexiv2_metadata_get_mime_type(image->metadata);
    if (type == nullptr) return CGExiv2Shim_absent;
    *value = strdup(type);
    if (*value == nullptr) throw std::bad_alloc();
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_xmpPacket(CGExiv2ShimImage *image, char **value, char **message) {
  if (value != nullptr) *value = nullptr;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || value == nullptr) return CGExiv2Shim_failed;
    OwnedError error;
    OwnedString packet(p_gexiv2_metadata_try_get_xmp_packet(image->metadata, &error.error));
    if (error.error != nullptr) return failure(message, error, "no XMP packet");
    if (packet == nullptr || packet.get()[0] == '\0') return CGExiv2Shim_absent;
    *value = strdup(packet.get());
    if (*value == nullptr) throw std::bad_alloc();
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_hasJPEGPreview(CGExiv2ShimImage *image, char **message) {
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr) return CGExiv2Shim_failed;
    // (transfer none): the array belongs to the metadata object.
    GExiv2PreviewProperties **all = p_gexiv2_metadata_get_preview_properties(image->metadata);
    if (all == nullptr) return CGExiv2Shim_absent;
    for (GExiv2PreviewProperties **it = all; *it != nullptr; ++it) {
      if (isJPEG(*it) && p_gexiv2_preview_properties_get_size(*it) > 0) return CGExiv2Shim_ok;
    }
    return CGExiv2Shim_absent;
  });
}

int32_t CGExiv2Shim_largestJPEGPreview(
    CGExiv2ShimImage *image, uint8_t **bytes, size_t *length, uint32_t *width,
    uint32_t *height, char **message) {
  if (bytes != nullptr) *bytes = nullptr;
  if (length != nullptr) *length = 0;
  if (width != nullptr) *width = 0;
  if (height != nullptr) *height = 0;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || bytes == nullptr || length == nullptr || width == nullptr ||
        height == nullptr) {
      return CGExiv2Shim_failed;
    }
    // (transfer none): the array belongs to the metadata object.
    GExiv2PreviewProperties **all = p_gexiv2_metadata_get_preview_properties(image->metadata);
    if (all == nullptr) return CGExiv2Shim_absent;
    GExiv2PreviewProperties *best = nullptr;
    uint64_t bestPixels = 0;
    uint32_t bestSize = 0;
    for (GExiv2PreviewProperties **it = all; *it != nullptr; ++it) {
      const uint32_t size = p_gexiv2_preview_properties_get_size(*it);
      if (!isJPEG(*it) || size == 0) continue;
      const uint64_t pixels = static_cast<uint64_t>(p_gexiv2_preview_properties_get_width(*it)) *
                              p_gexiv2_preview_properties_get_height(*it);
      if (best == nullptr || pixels > bestPixels || (pixels == bestPixels && size > bestSize)) {
        best = *it;
        bestPixels = pixels;
        bestSize = size;
      }
    }
    if (best == nullptr) return CGExiv2Shim_absent;
    OwnedError error;
    OwnedPreview preview(
        p_gexiv2_metadata_try_get_preview_image(image->metadata, best, &error.error));
    if (error.error != nullptr) return failure(message, error, "");
    if (!preview) return CGExiv2Shim_absent;
    guint32 size = 0;
    const guint8 *data = p_gexiv2_preview_image_get_data(preview.get(), &size);
    if (data == nullptr || size == 0) return CGExiv2Shim_absent;
    auto *copy = static_cast<uint8_t *>(malloc(size));
    if (copy == nullptr) throw std::bad_alloc();
    memcpy(copy, data, size);
    *bytes = copy;
    *length = size;
    *width = p_gexiv2_preview_image_get_width(preview.get());
    *height = p_gexiv2_preview_image_get_height(preview.get());
    return CGExiv2Shim_ok;
  });
}

int32_t CGExiv2Shim_exifThumbnail(
    CGExiv2ShimImage *image, uint8_t **bytes, size_t *length, char **message) {
  if (bytes != nullptr) *bytes = nullptr;
  if (length != nullptr) *length = 0;
  return guarded(message, [&]() -> int32_t {
    if (image == nullptr || bytes == nullptr || length == nullptr) return CGExiv2Shim_failed;
    guint8 *buffer = nullptr;
    gint size = 0;
    const gboolean found = p_gexiv2_metadata_get_exif_thumbnail(image->metadata, &buffer, &size);
    // Owned from here on, so it is freed on every path, the exception ones included.
    OwnedString owned(reinterpret_cast<gchar *>(buffer));
    if (!found || buffer == nullptr || size <= 0) return CGExiv2Shim_absent;
    auto *copy = static_cast<uint8_t *>(malloc(static_cast<size_t>(size)));
    if (copy == nullptr) throw std::bad_alloc();
    memcpy(copy, buffer, static_cast<size_t>(size));
    *bytes = copy;
    *length = static_cast<size_t>(size);
    return CGExiv2Shim_ok;
  });
}

}  // extern "C"
