#include "CStandardDescriptors.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int reopenedMask = 0;

__attribute__((constructor)) static void CStandardDescriptors_reopen(void) {
  for (int descriptor = 0; descriptor <= 2; descriptor++) {
    if (fcntl(descriptor, F_GETFD) != -1 || errno != EBADF) continue;
    // open returns the lowest free descriptor, which is this one: the lower ones are
    // open by now.
    int opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY);
    if (opened < 0) continue;
    if (opened != descriptor) {
      dup2(opened, descriptor);
      close(opened);
    }
    reopenedMask |= 1 << descriptor;
  }
}

int CStandardDescriptors_reopenedMask(void) { return reopenedMask; }
