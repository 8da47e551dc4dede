#ifndef GROUPENUMERATOR_CLIBEXIFARENA_H
#define GROUPENUMERATOR_CLIBEXIFARENA_H

#include <libexif/exif-data.h>

/// A fresh, empty `ExifData` whose memory comes from the calling thread's arena: one
/// block reused for every EXIF block this thread reads, so that loading one (which
/// libexif does with about a hundred small `calloc`s) costs no `malloc` at all. Blocks
/// that do not fit the arena come from `calloc` as usual.
///
/// With the environment variable `GROUPENUMERATOR_PLAIN_MALLOC` set (to anything but
/// `0`) libexif allocates as usual, so that memory checkers (valgrind) see each of its
/// blocks on its own.
///
/// The data must be loaded, read and released with `CLibExifArena_data_free` on the
/// calling thread, before the next `CLibExifArena_data_new` on that thread.
///
/// @return The data, or NULL when memory is exhausted.
ExifData *_Nullable CLibExifArena_data_new(void);

/// Releases data made by `CLibExifArena_data_new` and empties the thread's arena.
void CLibExifArena_data_free(ExifData *_Nonnull data);

#endif
