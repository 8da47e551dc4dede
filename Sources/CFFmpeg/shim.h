#ifndef GROUPENUMERATOR_CFFMPEG_SHIM_H
#define GROUPENUMERATOR_CFFMPEG_SHIM_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libswscale/swscale.h>

#endif
