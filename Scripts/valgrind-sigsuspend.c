// Preloaded only under valgrind by Scripts/valgrind-replay.sh; never part of the product.
//
// libdispatch's dispatch_main (where a Swift `async` main parks its main thread) calls
// sigsuspend with a mask in read-only memory; valgrind 3.19 edits the mask it is given in
// place and dies of SIGSEGV ("VALGRIND INTERNAL ERROR ... signal 11") before the Demo
// has done anything. This sigsuspend hands the kernel a writable copy instead, which is
// all it changes.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
  sigset_t copy = *mask;
  return (int)syscall(SYS_rt_sigsuspend, &copy, sizeof(unsigned long));
}
