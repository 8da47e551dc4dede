#ifndef CSYSTEMSHIM_H
#define CSYSTEMSHIM_H

#include <stdint.h>

/// The system calls glibc declares only under `_GNU_SOURCE` or does not wrap at all,
/// as plain C functions for GroupEnumerator's OS layer (`Library/System/`).

/// `openat2(2)` (Linux 5.6+) with `struct open_how { flags, 0, resolve }`.
///
/// Returns the new descriptor, or -1 with `errno` set (`ENOSYS` where the kernel or the
/// headers this was built with lack the call).
int CSystemShim_openat2(int directory, const char *path, uint64_t flags, uint64_t resolve);

/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` from `<linux/openat2.h>`: resolution stays
/// beneath the directory and follows no symbolic link on the way.
uint64_t CSystemShim_resolveBeneathWithoutSymlinks(void);

/// `O_PATH`: a descriptor that only locates a file (needs no read permission).
int CSystemShim_pathOnlyFlag(void);

/// `malloc_trim(0)` from `<malloc.h>`: gives the heap's free memory back to the system.
void CSystemShim_trimHeap(void);

#endif
