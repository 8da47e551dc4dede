#ifndef GROUPENUMERATOR_CZLIB_SHIM_H
#define GROUPENUMERATOR_CZLIB_SHIM_H

#include <zlib.h>

/// `inflateInit` is a macro (it passes the header's version and `sizeof(z_stream)`), which
/// Swift cannot call; this is the same call as a function.
static inline int CZlib_inflateInit(z_streamp _Nonnull stream) {
  return inflateInit(stream);
}

#endif
