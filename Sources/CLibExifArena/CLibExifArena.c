// A per-thread bump allocator for libexif (see include/CLibExifArena.h).
//
// libexif takes its allocator as three plain function pointers (`exif_mem_new`), with no
// context argument, so the arena is found through thread-local storage. Each block has
// a 16-byte header holding its size (for realloc); freeing a block inside the arena does
// nothing, and the whole arena is emptied when the data is released, by which time
// libexif has freed every block it allocated for it.
#include "CLibExifArena.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  /// Bytes per thread: a 64 KiB APP1 payload and everything libexif builds from it.
  ARENA_SIZE = 512 * 1024,
  /// Each block's header (its requested size), also the alignment of every block.
  HEADER = 16,
};

typedef struct {
  /// The arena, or NULL while the ExifMem itself is made (then blocks come from calloc).
  unsigned char *base;
  /// Bytes in use from `base`.
  size_t used;
  /// Offset of the last block's header: that block can grow in place.
  size_t last;
  /// The allocator handed to libexif, made once per thread.
  ExifMem *mem;
} Arena;

static _Thread_local Arena *current;
static pthread_key_t key;
static pthread_once_t keyOnce = PTHREAD_ONCE_INIT;
/// -1 until decided, then 1 when GROUPENUMERATOR_PLAIN_MALLOC asks for plain malloc.
static atomic_int plain = -1;

static int inArena(const void *pointer) {
  const unsigned char *byte = pointer;
  return current != NULL && current->base != NULL && byte >= current->base
    && byte < current->base + ARENA_SIZE;
}

static size_t rounded(size_t size) {
  size_t blocks = (size + HEADER - 1) / HEADER;
  return (blocks == 0 ? 1 : blocks) * HEADER;
}

static void *arenaAlloc(ExifLong size) {
  Arena *arena = current;
  size_t need = rounded(size);
  if (arena != NULL && arena->base != NULL && need <= ARENA_SIZE - HEADER
      && arena->used <= ARENA_SIZE - HEADER - need) {
    unsigned char *block = arena->base + arena->used;
    memcpy(block, &(size_t){size}, sizeof(size_t));
    arena->last = arena->used;
    arena->used += HEADER + need;
    // libexif's own allocator is calloc: blocks start zeroed.
    memset(block + HEADER, 0, need);
    return block + HEADER;
  }
  return calloc(size, 1);
}

static void arenaFree(void *pointer) {
  if (pointer == NULL || inArena(pointer)) return;
  free(pointer);
}

static void *arenaRealloc(void *pointer, ExifLong size) {
  if (pointer == NULL) return arenaAlloc(size);
  if (!inArena(pointer)) return realloc(pointer, size);
  if (size == 0) return NULL;  // As realloc(p, 0): the block is released.
  Arena *arena = current;
  unsigned char *block = (unsigned char *)pointer - HEADER;
  size_t old;
  memcpy(&old, block, sizeof(size_t));
  size_t offset = (size_t)(block - arena->base);
  size_t need = rounded(size);
  if (offset == arena->last && need <= ARENA_SIZE - HEADER - offset) {
    if (size > old) memset((unsigned char *)pointer + old, 0, size - old);
    memcpy(block, &(size_t){size}, sizeof(size_t));
    arena->used = offset + HEADER + need;
    return pointer;
  }
  void *moved = arenaAlloc(size);
  if (moved != NULL) memcpy(moved, pointer, old < size ? old : size);
  return moved;
}

/// Frees a thread's arena when the thread ends.
static void destroy(void *value) {
  Arena *arena = value;
  current = NULL;
  exif_mem_unref(arena->mem);
  free(arena->base);
  free(arena);
}

static void makeKey(void) { pthread_key_create(&key, destroy); }

/// The calling thread's arena, made on first use; NULL when memory is exhausted.
static Arena *threadArena(void) {
  if (current != NULL) return current;
  pthread_once(&keyOnce, makeKey);
  Arena *arena = calloc(1, sizeof(Arena));
  if (arena == NULL) return NULL;
  current = arena;
  // Made while `base` is NULL, so the ExifMem itself comes from calloc.
  arena->mem = exif_mem_new(arenaAlloc, arenaRealloc, arenaFree);
  arena->base = arena->mem != NULL ? malloc(ARENA_SIZE) : NULL;
  if (arena->mem == NULL || arena->base == NULL) {
    current = NULL;
    if (arena->mem != NULL) exif_mem_unref(arena->mem);
    free(arena->base);
    free(arena);
    return NULL;
  }
  pthread_setspecific(key, arena);
  return arena;
}

static int usesPlainMalloc(void) {
  int decided = atomic_load_explicit(&plain, memory_order_relaxed);
  if (decided < 0) {
    const char *value = getenv("GROUPENUMERATOR_PLAIN_MALLOC");
    decided = value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
    atomic_store_explicit(&plain, decided, memory_order_relaxed);
  }
  return decided;
}

ExifData *CLibExifArena_data_new(void) {
  if (usesPlainMalloc()) return exif_data_new();
  Arena *arena = threadArena();
  if (arena == NULL) return exif_data_new();
  arena->used = 0;
  arena->last = 0;
  return exif_data_new_mem(arena->mem);
}

void CLibExifArena_data_free(ExifData *data) {
  exif_data_unref(data);
  if (current != NULL) {
    current->used = 0;
    current->last = 0;
  }
}
