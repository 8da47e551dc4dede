// glibc declares O_PATH and SYS_openat2's number only with _GNU_SOURCE.
#define _GNU_SOURCE
#include "CSystemShim.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define CSYSTEMSHIM_HAS_OPENAT2 1
#endif

int CSystemShim_openat2(int directory, const char *path, uint64_t flags, uint64_t resolve) {
#if defined(CSYSTEMSHIM_HAS_OPENAT2) && defined(SYS_openat2)
  struct open_how how = {.flags = flags, .mode = 0, .resolve = resolve};
  return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
  (void)directory;
  (void)path;
  (void)flags;
  (void)resolve;
  errno = ENOSYS;
  return -1;
#endif
}

uint64_t CSystemShim_resolveBeneathWithoutSymlinks(void) {
#if defined(CSYSTEMSHIM_HAS_OPENAT2)
  return RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
#else
  return 0;
#endif
}

int CSystemShim_pathOnlyFlag(void) { return O_PATH; }

void CSystemShim_trimHeap(void) { (void)malloc_trim(0); }
