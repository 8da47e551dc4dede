#ifndef CSTANDARDDESCRIPTORS_H
#define CSTANDARDDESCRIPTORS_H

/// Which of the descriptors 0, 1 and 2 were closed when the process started and were
/// opened on /dev/null before anything else ran (bit n set for descriptor n).
///
/// The work happens in a constructor, before the Swift runtime and libdispatch start:
/// libdispatch opens an eventfd at its start, and with descriptor 1 closed that eventfd
/// would become "standard output".
int CStandardDescriptors_reopenedMask(void);

#endif
