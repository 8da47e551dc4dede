#ifndef GROUPENUMERATOR_CFFMPEGSHIM_H
#define GROUPENUMERATOR_CFFMPEGSHIM_H

/*
 * A plain-C wall around ffmpeg 5.1's libavformat, libavcodec and libswscale (Debian 12),
 * for a movie's representative frame.
 *
 * The movie is read from an open file descriptor with pread (never mapped, never opened
 * by name), within a byte range, so a movie inside another file (a motion photo's) is
 * read in place. Only the demuxers of camera and phone movies are allowed; every call has
 * a deadline (checked between reads and between packets), a packet budget, a pixel limit
 * on the decoded frame, and one decoder thread. ffmpeg's log is silenced.
 *
 * The libraries are not linked: the first call opens them (dlopen), so a process that
 * reads no movie never maps them; when they cannot be opened, every call returns
 * CFFmpegShim_unavailable.
 *
 * No ffmpeg type appears here. Pixels are owned by the caller (CFFmpegShim_free);
 * messages are malloc'd (CFFmpegShim_freeMessage).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define CFFmpegShim_ok 0
/* The movie is corrupt or cut short, or no frame decoded. */
#define CFFmpegShim_failed (-1)
/* The frame has more pixels than allowed. */
#define CFFmpegShim_tooLarge (-2)
/* The container is not one read here, or its codec has no decoder. */
#define CFFmpegShim_unsupported (-3)
/* The file holds no video stream. */
#define CFFmpegShim_noVideo (-4)
/* The deadline or the packet budget ran out before a frame decoded. */
#define CFFmpegShim_timedOut (-5)
/* ffmpeg's libraries could not be loaded (missing, or a function missing); the message
 * names the library and says why. */
#define CFFmpegShim_unavailable (-6)

/* What to read. */
typedef struct {
  /* An open, readable descriptor; the movie is bytes [offset, offset + length). */
  int32_t descriptor;
  int64_t offset;
  int64_t length;
  /* The frame is scaled down (never up) so that its shorter side is at most this. */
  int32_t shortSide;
  /* The most pixels (coded width × height) a frame may have. */
  uint64_t maxPixels;
  /* The whole call's time limit, in milliseconds. */
  int32_t timeoutMilliseconds;
  /* How many keyframes may be tried (1 ... 8). */
  int32_t candidates;
} CFFmpegShimRequest;

/* A frame. */
typedef struct {
  /* 8-bit RGB, 3 bytes a pixel, rows packed (free with CFFmpegShim_free). */
  uint8_t *pixels;
  size_t length;
  int32_t width;
  int32_t height;
  /* How far the track's display matrix turns the picture clockwise: 0, 90, 180 or 270. */
  int32_t rotation;
  /* The frame's time from the start, in milliseconds (0 when unknown). */
  int64_t timeMilliseconds;
  /* How many keyframes were tried, and 1 when every one was near-uniform (the one with
   * the most detail was kept). */
  int32_t tried;
  int32_t allUniform;
} CFFmpegShimFrame;

/*
 * The movie's representative frame: the first frame, or when that is near-uniform (black,
 * white, one colour: a fade-in, a lens cap), the first of the keyframes near 1 s, a
 * quarter and half of the duration that is not; a movie under a second or with one
 * keyframe gives its first frame.
 */
int32_t CFFmpegShim_representativeFrame(
    const CFFmpegShimRequest *request, CFFmpegShimFrame *frame, char **message);

/* Frees pixels returned by this module; NULL is allowed. */
void CFFmpegShim_free(void *pixels);

/* Frees a message returned by this module; NULL is allowed. */
void CFFmpegShim_freeMessage(char *message);

#ifdef __cplusplus
}
#endif

#endif
