#ifndef GROUPENUMERATOR_CLIBEXIF_SHIM_H
#define GROUPENUMERATOR_CLIBEXIF_SHIM_H

#include <stddef.h>
#include <libexif/exif-data.h>
#include <libexif/exif-content.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-ifd.h>
#include <libexif/exif-tag.h>
#include <libexif/exif-utils.h>
#include <libexif/exif-loader.h>

/// Looks a tag up in one IFD of `data` (the C macro `exif_data_get_entry` searches every IFD,
/// which confuses GPS tags with Interoperability tags of the same number).
static inline ExifEntry *_Nullable CLibExif_entry(ExifData *_Nonnull data, ExifIfd ifd, ExifTag tag) {
  if (ifd < 0 || ifd >= EXIF_IFD_COUNT) return NULL;
  ExifContent *content = data->ifd[ifd];
  if (content == NULL) return NULL;
  return exif_content_get_entry(content, tag);
}

/// The number of entries libexif loaded into one IFD of `data` (0 for an unknown IFD).
static inline unsigned int CLibExif_entry_count(ExifData *_Nonnull data, ExifIfd ifd) {
  if (ifd < 0 || ifd >= EXIF_IFD_COUNT) return 0;
  ExifContent *content = data->ifd[ifd];
  return content == NULL ? 0 : content->count;
}

#endif
