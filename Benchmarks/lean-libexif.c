/*
 * lean-libexif: the honest floor for reading JPEG EXIF with libexif (issue 5).
 *
 * Single thread. For every JPEG (by extension) under LIBRARY (walked with nftw,
 * not following symbolic links, skipping hidden names), or every path listed in
 * FILE with --list FILE: open, read the first 64 KiB, find the APP1 "Exif\0\0"
 * segment, exif_data_new + unset FOLLOW_SPECIFICATION and IGNORE_UNKNOWN_TAGS +
 * exif_data_load_data, read DateTime, DateTimeOriginal and the GPS latitude /
 * longitude entries from their raw bytes (no exif_entry_get_value), unref.
 *
 * Prints one line: files, files with EXIF, dates and GPS found, walk and read
 * seconds, files/s. The process's wall time is what the runner measures.
 *
 * Build: cc -O2 -o lean-libexif lean-libexif.c $(pkg-config --cflags --libs libexif)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>
#include <libexif/exif-data.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum { HEAD = 64 * 1024 };

static char **paths;
static size_t count, capacity;

static void add(const char *path) {
  if (count == capacity) {
    capacity = capacity ? capacity * 2 : 4096;
    paths = realloc(paths, capacity * sizeof *paths);
    if (!paths) { perror("realloc"); exit(2); }
  }
  paths[count] = strdup(path);
  if (!paths[count]) { perror("strdup"); exit(2); }
  count++;
}

static int is_jpeg_name(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  const char *name = path + ftw->base;
  if (ftw->level > 0 && name[0] == '.')
    return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
  if (type == FTW_F && is_jpeg_name(name)) add(path);
  return FTW_CONTINUE;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* The APP1 Exif payload (starting at "Exif\0\0") inside the first bytes of a JPEG. */
static const unsigned char *find_exif(const unsigned char *b, size_t n, size_t *len) {
  if (n < 4 || b[0] != 0xFF || b[1] != 0xD8) return NULL;
  size_t p = 2;
  while (p + 4 <= n) {
    if (b[p] != 0xFF) return NULL;
    unsigned char m = b[p + 1];
    if (m == 0xFF) { p++; continue; }
    if (m == 0xDA || m == 0xD9) return NULL;
    size_t seg = ((size_t)b[p + 2] << 8) | b[p + 3];
    if (seg < 2) return NULL;
    if (m == 0xE1 && seg >= 8 && p + 4 + 6 <= n && !memcmp(b + p + 4, "Exif\0\0", 6)) {
      size_t avail = n - (p + 4);
      *len = seg - 2 < avail ? seg - 2 : avail;
      return b + p + 4;
    }
    p += 2 + seg;
  }
  return NULL;
}

static unsigned long dates, gps, with_exif;

static void read_entries(ExifData *d) {
  ExifByteOrder order = exif_data_get_byte_order(d);
  ExifEntry *e = exif_content_get_entry(d->ifd[EXIF_IFD_0], EXIF_TAG_DATE_TIME);
  volatile unsigned sink = 0;
  if (e && e->format == EXIF_FORMAT_ASCII && e->size >= 19) { sink += e->data[0]; dates++; }
  e = exif_content_get_entry(d->ifd[EXIF_IFD_EXIF], EXIF_TAG_DATE_TIME_ORIGINAL);
  if (e && e->format == EXIF_FORMAT_ASCII && e->size >= 19) { sink += e->data[0]; dates++; }
  ExifContent *g = d->ifd[EXIF_IFD_GPS];
  ExifEntry *lat = exif_content_get_entry(g, (ExifTag)EXIF_TAG_GPS_LATITUDE);
  ExifEntry *lon = exif_content_get_entry(g, (ExifTag)EXIF_TAG_GPS_LONGITUDE);
  ExifEntry *latref = exif_content_get_entry(g, (ExifTag)EXIF_TAG_GPS_LATITUDE_REF);
  ExifEntry *lonref = exif_content_get_entry(g, (ExifTag)EXIF_TAG_GPS_LONGITUDE_REF);
  if (lat && lon && lat->format == EXIF_FORMAT_RATIONAL && lon->format == EXIF_FORMAT_RATIONAL &&
      lat->components == 3 && lon->components == 3 && lat->size >= 24 && lon->size >= 24) {
    double v = 0;
    for (int i = 0; i < 3; i++) {
      ExifRational a = exif_get_rational(lat->data + 8 * i, order);
      ExifRational b = exif_get_rational(lon->data + 8 * i, order);
      if (a.denominator) v += (double)a.numerator / a.denominator;
      if (b.denominator) v += (double)b.numerator / b.denominator;
    }
    if (latref && latref->size) sink += latref->data[0];
    if (lonref && lonref->size) sink += lonref->data[0];
    sink += (unsigned)v;
    gps++;
  }
  (void)sink;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--list")) {
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 2; }
    char line[8192];
    while (fgets(line, sizeof line, f)) {
      line[strcspn(line, "\n")] = 0;
      if (*line) add(line);
    }
    fclose(f);
  } else if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: lean-libexif LIBRARY | lean-libexif --list FILE\n");
    return 64;
  }
  double start = now();
  if (argc == 2 && nftw(argv[1], visit, 64, FTW_PHYS | FTW_ACTIONRETVAL) != 0) {
    perror(argv[1]);
    return 2;
  }
  double walked = now();
  static unsigned char buffer[HEAD];
  for (size_t i = 0; i < count; i++) {
    int fd = open(paths[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = pread(fd, buffer, HEAD, 0);
    close(fd);
    if (n <= 0) continue;
    size_t len = 0;
    const unsigned char *exif = find_exif(buffer, (size_t)n, &len);
    if (!exif) continue;
    ExifData *d = exif_data_new();
    if (!d) continue;
    exif_data_unset_option(d, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_unset_option(d, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_load_data(d, exif, (unsigned)len);
    with_exif++;
    read_entries(d);
    exif_data_unref(d);
  }
  double done = now();
  printf("files %zu exif %lu dates %lu gps %lu walk_s %.4f read_s %.4f files_per_s %.0f\n",
         count, with_exif, dates, gps, walked - start, done - walked,
         count / (done - start > 0 ? done - start : 1e-9));
  return 0;
}
