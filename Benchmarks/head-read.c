/*
 * head-read: the I/O floor for a cold first scan.
 *
 * For every regular, non-hidden file under LIBRARY (walked with nftw, not following
 * symbolic links, hidden names skipped as the engine skips them): open, read its first
 * BYTES bytes with one pread, close. Nothing is parsed: no metadata reader can need less
 * I/O than this for a file whose metadata sits in its head, so with the page cache
 * dropped this is the floor a reader of the same files is compared with.
 *
 * With THREADS > 1 the files are shared out by an atomic index, so that many reads are in
 * flight at once, as the engine's workers do.
 *
 * Prints one line: files, bytes read, walk and read seconds, files/s.
 *
 * Build: cc -O2 -pthread -o head-read head-read.c
 * Usage: head-read [--bytes N[k]] [--threads T] LIBRARY    (defaults: 16k, 1)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char **paths;
static size_t count, capacity;
static size_t head = 16 * 1024;
static atomic_size_t next_index;
static atomic_ullong bytes_read;

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

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  const char *name = path + ftw->base;
  if (ftw->level > 0 && name[0] == '.')
    return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
  if (type == FTW_F) add(path);
  return FTW_CONTINUE;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void *worker(void *unused) {
  (void)unused;
  unsigned char *buffer = malloc(head);
  if (!buffer) { perror("malloc"); exit(2); }
  unsigned long long total = 0;
  for (;;) {
    size_t i = atomic_fetch_add(&next_index, 1);
    if (i >= count) break;
    int fd = open(paths[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = pread(fd, buffer, head, 0);
    close(fd);
    if (n > 0) total += (unsigned long long)n;
  }
  atomic_fetch_add(&bytes_read, total);
  free(buffer);
  return NULL;
}

static size_t parse_size(const char *text) {
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (end && (*end == 'k' || *end == 'K')) { value *= 1024; end++; }
  if (!end || *end || value == 0 || value > (1ULL << 30)) {
    fprintf(stderr, "head-read: not a size: %s\n", text);
    exit(64);
  }
  return (size_t)value;
}

int main(int argc, char **argv) {
  int threads = 1;
  const char *library = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
      head = parse_size(argv[++i]);
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = atoi(argv[++i]);
      if (threads < 1 || threads > 256) { fprintf(stderr, "head-read: bad --threads\n"); return 64; }
    } else if (argv[i][0] != '-' && !library) {
      library = argv[i];
    } else {
      fprintf(stderr, "usage: head-read [--bytes N[k]] [--threads T] LIBRARY\n");
      return 64;
    }
  }
  if (!library) {
    fprintf(stderr, "usage: head-read [--bytes N[k]] [--threads T] LIBRARY\n");
    return 64;
  }
  double start = now();
  if (nftw(library, visit, 64, FTW_PHYS | FTW_ACTIONRETVAL) != 0) {
    perror(library);
    return 2;
  }
  double walked = now();
  pthread_t ids[256];
  for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, NULL);
  for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  double done = now();
  printf("files %zu bytes %llu walk_s %.4f read_s %.4f files_per_s %.0f\n", count,
         (unsigned long long)atomic_load(&bytes_read), walked - start, done - walked,
         count / (done - start > 0 ? done - start : 1e-9));
  return 0;
}
