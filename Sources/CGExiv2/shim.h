#ifndef GROUPENUMERATOR_CGEXIV2_SHIM_H
#define GROUPENUMERATOR_CGEXIV2_SHIM_H

#include <gexiv2/gexiv2.h>

#endif
