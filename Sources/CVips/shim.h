#ifndef GROUPENUMERATOR_CVIPS_SHIM_H
#define GROUPENUMERATOR_CVIPS_SHIM_H

#include <vips/vips.h>

#endif
