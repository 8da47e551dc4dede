/*
 * stat-floor: the floor for a second run with the index.
 *
 * A run that takes unchanged files from the index still has to know which files are
 * there and that each is unchanged: it lists every folder and asks for every file's key
 * (device, inode, size, times) with one fstatat. This program does that and nothing
 * else: it walks LIBRARY (not following symbolic links, hidden names skipped as the
 * engine skips them), keeps the folders open, then shares them out among THREADS
 * threads, each of which lists its folders again and fstatats every entry that is not a
 * folder, relative to the open folder (the cheapest form of the call). No key is
 * compared, nothing is stored, decoded or printed per file, so no index can make a
 * second run faster than this on the same machine.
 *
 * Prints one line: files, folders, threads, seconds.
 *
 * Build: cc -O2 -pthread -o stat-floor stat-floor.c
 * Usage: stat-floor [--threads T] LIBRARY    (default: 2)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int *folders;
static size_t folder_count, folder_capacity;
static atomic_size_t next_folder;
static atomic_long stat_count;

static void add_folder(int descriptor) {
  if (folder_count == folder_capacity) {
    folder_capacity = folder_capacity ? folder_capacity * 2 : 1024;
    folders = realloc(folders, folder_capacity * sizeof *folders);
    if (!folders) { perror("realloc"); exit(2); }
  }
  folders[folder_count++] = descriptor;
}

/* Opens a listing of the folder `descriptor` from its first entry, leaving the
 * descriptor itself open (fdopendir takes over the descriptor it is given). */
static DIR *listing(int descriptor) {
  int copy = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return NULL;
  DIR *stream = fdopendir(copy);
  if (!stream) close(copy);
  return stream;
}

/* Keeps `descriptor` and every folder beneath it (depth first). */
static void collect(int descriptor) {
  add_folder(descriptor);
  DIR *stream = listing(descriptor);
  if (!stream) return;
  struct dirent *entry;
  while ((entry = readdir(stream))) {
    if (entry->d_name[0] == '.' || entry->d_type != DT_DIR) continue;
    int child = openat(descriptor, entry->d_name,
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child >= 0) collect(child);
  }
  closedir(stream);
}

static void *stat_folders(void *unused) {
  (void)unused;
  long count = 0;
  size_t index;
  while ((index = atomic_fetch_add(&next_folder, 1)) < folder_count) {
    DIR *stream = listing(folders[index]);
    if (!stream) continue;
    struct dirent *entry;
    while ((entry = readdir(stream))) {
      if (entry->d_name[0] == '.' || entry->d_type == DT_DIR) continue;
      struct stat status;
      if (fstatat(folders[index], entry->d_name, &status, AT_SYMLINK_NOFOLLOW) == 0) count++;
    }
    closedir(stream);
  }
  atomic_fetch_add(&stat_count, count);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = 2;
  const char *library = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
    else library = argv[i];
  }
  if (!library || threads < 1 || threads > 256) {
    fprintf(stderr, "usage: stat-floor [--threads T] LIBRARY\n");
    return 64;
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int root = open(library, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) { perror(library); return 1; }
  collect(root);
  pthread_t *workers = calloc((size_t)threads, sizeof *workers);
  if (!workers) { perror("calloc"); return 2; }
  for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, stat_folders, NULL);
  for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  double seconds = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
  printf("files %ld folders %zu threads %d seconds %.4f\n", atomic_load(&stat_count),
         folder_count, threads, seconds);
  return 0;
}
