// The wall around ffmpeg's libraries: see include/CFFmpegShim.h.
//
// ffmpeg's libraries are not linked: they are opened with dlopen on the first movie, and
// every function called here is resolved into a pointer of the header's own type
// (p_av_..., p_sws_...), so that a process that reads no movie frame never maps them (and
// the codec libraries they pull in).
//
// Every resource of a call lives in one Session, released by closeSession on every path.

#include "CFFmpegShim.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/macros.h>
#include <libavutil/time.h>
#include <libswscale/swscale.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The libraries, by the sonames the headers were made for (their major versions), so the
// library loaded is always the one the prototypes describe. libavutil first: the others
// need it.
enum { libraryAvutil, libraryAvcodec, libraryAvformat, librarySwscale, libraryCount };
static const char *const sonames[libraryCount] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
};

// Every function the shim calls, with the library it comes from. A call to one missing
// from this list fails to link (the libraries are not linked), so the list cannot fall
// behind the code.
#define CFFMPEGSHIM_FUNCTIONS(X)                                                           \
  X(libraryAvutil, av_calloc)                                                              \
  X(libraryAvutil, av_dict_free)                                                           \
  X(libraryAvutil, av_dict_set)                                                            \
  X(libraryAvutil, av_display_rotation_get)                                                \
  X(libraryAvutil, av_frame_alloc)                                                         \
  X(libraryAvutil, av_frame_free)                                                          \
  X(libraryAvutil, av_frame_ref)                                                           \
  X(libraryAvutil, av_frame_unref)                                                         \
  X(libraryAvutil, av_free)                                                                \
  X(libraryAvutil, av_freep)                                                               \
  X(libraryAvutil, av_gettime_relative)                                                    \
  X(libraryAvutil, av_log_set_level)                                                       \
  X(libraryAvutil, av_malloc)                                                              \
  X(libraryAvutil, av_rescale_q)                                                           \
  X(libraryAvutil, av_strdup)                                                              \
  X(libraryAvutil, av_strerror)                                                            \
  X(libraryAvcodec, av_packet_alloc)                                                       \
  X(libraryAvcodec, av_packet_free)                                                        \
  X(libraryAvcodec, av_packet_unref)                                                       \
  X(libraryAvcodec, avcodec_alloc_context3)                                                \
  X(libraryAvcodec, avcodec_flush_buffers)                                                 \
  X(libraryAvcodec, avcodec_free_context)                                                  \
  X(libraryAvcodec, avcodec_open2)                                                         \
  X(libraryAvcodec, avcodec_parameters_to_context)                                         \
  X(libraryAvcodec, avcodec_receive_frame)                                                 \
  X(libraryAvcodec, avcodec_send_packet)                                                   \
  X(libraryAvformat, av_find_best_stream)                                                  \
  X(libraryAvformat, av_read_frame)                                                        \
  X(libraryAvformat, av_seek_frame)                                                        \
  X(libraryAvformat, av_stream_get_side_data)                                              \
  X(libraryAvformat, avformat_alloc_context)                                               \
  X(libraryAvformat, avformat_close_input)                                                 \
  X(libraryAvformat, avformat_find_stream_info)                                            \
  X(libraryAvformat, avformat_open_input)                                                  \
  X(libraryAvformat, avio_alloc_context)                                                   \
  X(libraryAvformat, avio_context_free)                                                    \
  X(librarySwscale, sws_freeContext)                                                       \
  X(librarySwscale, sws_getContext)                                                        \
  X(librarySwscale, sws_scale)

// One pointer per function, of the function's own type; set once by loadLibraries, inside
// startOnce, and only read after it.
#define CFFMPEGSHIM_DECLARE(library, name) static __typeof__(&name) p_##name;
CFFMPEGSHIM_FUNCTIONS(CFFMPEGSHIM_DECLARE)
#undef CFFMPEGSHIM_DECLARE

static pthread_once_t startOnce = PTHREAD_ONCE_INIT;
static int32_t startStatus = CFFmpegShim_unavailable;
// Why the libraries could not be loaded (set inside startOnce).
static char startFailure[512];

// Opens the four libraries and resolves every function. Returns 0, or -1 with
// startFailure set. The libraries are never closed.
static int loadLibraries(void) {
  void *libraries[libraryCount];
  for (int index = 0; index < libraryCount; index++) {
    libraries[index] = dlopen(sonames[index], RTLD_NOW | RTLD_LOCAL);
    if (libraries[index] == NULL) {
      const char *reason = dlerror();
      snprintf(
          startFailure, sizeof startFailure, "cannot load %s: %s", sonames[index],
          reason != NULL ? reason : "unknown error");
      return -1;
    }
  }
#define CFFMPEGSHIM_RESOLVE(library, name)                                                 \
  dlerror();                                                                               \
  p_##name = (__typeof__(&name))dlsym(libraries[library], #name);                          \
  if (p_##name == NULL) {                                                                  \
    const char *reason = dlerror();                                                        \
    snprintf(                                                                              \
        startFailure, sizeof startFailure, "cannot load %s: %s", sonames[library],         \
        reason != NULL ? reason : "no symbol " #name);                                     \
    return -1;                                                                             \
  }
  CFFMPEGSHIM_FUNCTIONS(CFFMPEGSHIM_RESOLVE)
#undef CFFMPEGSHIM_RESOLVE
  return 0;
}

static void start(void) {
  if (loadLibraries() != 0) return;
  p_av_log_set_level(AV_LOG_QUIET);
  startStatus = CFFmpegShim_ok;
}

// The demuxers of the movies cameras and phones write: QuickTime/MP4/3GP, AVI, Matroska
// and WebM, MPEG transport streams (AVCHD's MTS), MPEG program streams, ASF (WMV), DV
// (MiniDV and Digital8 camcorders' tapes, as they are captured).
static const char *const allowedDemuxers = "mov,avi,matroska,webm,mpegts,mpeg,asf,dv";
// The most bytes the demuxer may read to learn the streams, and the longest it may look.
static const int64_t probeBytes = 8 << 20;
static const int64_t analyzeMicroseconds = 5 * 1000000;
// The most packets read for one candidate frame (a long GOP of a 60 fps movie is ~600).
static const int packetBudget = 1200;
// A frame whose luma, shrunk to 32 × 32, varies less than this (standard deviation on
// 0...255) is near-uniform.
static const double uniformDeviation = 5.0;

static void setMessage(char **message, const char *text) {
  if (message == NULL) return;
  free(*message);
  *message = strdup(text != NULL ? text : "ffmpeg failed");
}

static int32_t failWith(char **message, int32_t status, const char *what, int code) {
  char text[256];
  if (code != 0) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
    p_av_strerror(code, reason, sizeof reason);
    snprintf(text, sizeof text, "%s: %s", what, reason);
  } else {
    snprintf(text, sizeof text, "%s", what);
  }
  setMessage(message, text);
  return status;
}

// The bytes the demuxer reads: [offset, offset + length) of the descriptor.
typedef struct {
  int descriptor;
  int64_t offset;
  int64_t length;
  int64_t position;
  int64_t deadline;  // p_av_gettime_relative() microseconds
} Input;

static int readInput(void *opaque, uint8_t *buffer, int size) {
  Input *input = opaque;
  if (p_av_gettime_relative() > input->deadline) return AVERROR_EXIT;
  if (size <= 0 || input->position >= input->length) return AVERROR_EOF;
  int64_t left = input->length - input->position;
  size_t want = (size_t)(left < size ? left : size);
  ssize_t got;
  do {
    got = pread(input->descriptor, buffer, want, (off_t)(input->offset + input->position));
  } while (got < 0 && errno == EINTR);
  if (got < 0) return AVERROR(errno);
  if (got == 0) return AVERROR_EOF;
  input->position += got;
  return (int)got;
}

static int64_t seekInput(void *opaque, int64_t offset, int whence) {
  Input *input = opaque;
  int64_t target;
  switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return input->length;
    case SEEK_SET: target = offset; break;
    case SEEK_CUR:
      if (__builtin_add_overflow(input->position, offset, &target)) return AVERROR(EINVAL);
      break;
    case SEEK_END:
      if (__builtin_add_overflow(input->length, offset, &target)) return AVERROR(EINVAL);
      break;
    default: return AVERROR(EINVAL);
  }
  if (target < 0 || target > input->length) return AVERROR(EINVAL);
  input->position = target;
  return target;
}

static int interrupted(void *opaque) {
  const Input *input = opaque;
  return p_av_gettime_relative() > input->deadline;
}

typedef struct {
  Input input;
  AVIOContext *io;
  AVFormatContext *format;
  AVCodecContext *codec;
  AVPacket *packet;
  AVFrame *frame;
  AVFrame *best;
  int stream;
  int flushed;  // the decoder was sent its end
} Session;

static void closeSession(Session *session) {
  p_av_frame_free(&session->best);
  p_av_frame_free(&session->frame);
  p_av_packet_free(&session->packet);
  p_avcodec_free_context(&session->codec);
  p_avformat_close_input(&session->format);
  if (session->io != NULL) {
    p_av_freep(&session->io->buffer);
    p_avio_context_free(&session->io);
  }
}

// Decodes the next frame of the stream into session->frame. 0, AVERROR_EOF, a timeout
// (AVERROR_EXIT) or another error.
static int nextFrame(Session *session) {
  int budget = packetBudget;
  for (;;) {
    int status = p_avcodec_receive_frame(session->codec, session->frame);
    if (status == 0) return 0;
    if (status != AVERROR(EAGAIN)) return status;
    if (session->flushed) return AVERROR_EOF;
    if (budget-- <= 0 || interrupted(&session->input)) return AVERROR_EXIT;
    status = p_av_read_frame(session->format, session->packet);
    if (status == AVERROR_EXIT) return status;
    if (status < 0) {
      // The end (or an unreadable rest): drain what the decoder holds.
      session->flushed = 1;
      p_avcodec_send_packet(session->codec, NULL);
      continue;
    }
    if (session->packet->stream_index == session->stream) {
      // A packet the decoder refuses (corrupt) is skipped; the budget bounds how many.
      p_avcodec_send_packet(session->codec, session->packet);
    }
    p_av_packet_unref(session->packet);
  }
}

// The luma's standard deviation of `frame`, shrunk to 32 × 32; negative when it cannot be
// measured.
static double detail(const AVFrame *frame) {
  struct SwsContext *scaler = p_sws_getContext(
      frame->width, frame->height, frame->format, 32, 32, AV_PIX_FMT_GRAY8, SWS_AREA, NULL,
      NULL, NULL);
  if (scaler == NULL) return -1;
  uint8_t gray[32 * 32];
  uint8_t *planes[4] = {gray, NULL, NULL, NULL};
  int strides[4] = {32, 0, 0, 0};
  int rows = p_sws_scale(
      scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes,
      strides);
  p_sws_freeContext(scaler);
  if (rows != 32) return -1;
  double sum = 0, squares = 0;
  for (int index = 0; index < 32 * 32; index++) {
    sum += gray[index];
    squares += (double)gray[index] * gray[index];
  }
  double mean = sum / (32 * 32);
  double variance = squares / (32 * 32) - mean * mean;
  return variance > 0 ? sqrt(variance) : 0;
}

// The clockwise rotation the stream's display matrix asks for: 0, 90, 180 or 270.
static int32_t rotationOf(const AVStream *stream) {
  size_t size = 0;
  const uint8_t *matrix = p_av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
  if (matrix == NULL || size < 9 * sizeof(int32_t)) return 0;
  double counterclockwise = p_av_display_rotation_get((const int32_t *)matrix);
  if (isnan(counterclockwise)) return 0;
  long clockwise = lround(-counterclockwise / 90.0) * 90;
  clockwise %= 360;
  if (clockwise < 0) clockwise += 360;
  return (int32_t)clockwise;
}

// Scales `frame` (its sample aspect ratio applied) so that its shorter side is at most
// `shortSide`, into packed RGB.
static int32_t toRGB(
    const AVFrame *source, int32_t shortSide, CFFmpegShimFrame *frame, char **message) {
  double width = source->width;
  double height = source->height;
  AVRational aspect = source->sample_aspect_ratio;
  if (aspect.num > 0 && aspect.den > 0 && aspect.num != aspect.den) {
    double ratio = (double)aspect.num / aspect.den;
    if (ratio >= 0.1 && ratio <= 10) width *= ratio;
  }
  double shorter = width < height ? width : height;
  double scale = shorter > shortSide ? shortSide / shorter : 1.0;
  int outWidth = (int)lround(width * scale);
  int outHeight = (int)lround(height * scale);
  if (outWidth < 1) outWidth = 1;
  if (outHeight < 1) outHeight = 1;
  if (outWidth > 16384 || outHeight > 16384) {
    return failWith(message, CFFmpegShim_tooLarge, "the frame is too large to scale", 0);
  }
  struct SwsContext *scaler = p_sws_getContext(
      source->width, source->height, source->format, outWidth, outHeight, AV_PIX_FMT_RGB24,
      SWS_AREA, NULL, NULL, NULL);
  if (scaler == NULL) {
    return failWith(message, CFFmpegShim_unsupported, "the frame's pixel format cannot be converted", 0);
  }
  size_t length = (size_t)outWidth * (size_t)outHeight * 3;
  uint8_t *pixels = p_av_malloc(length);
  if (pixels == NULL) {
    p_sws_freeContext(scaler);
    return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  }
  uint8_t *planes[4] = {pixels, NULL, NULL, NULL};
  int strides[4] = {outWidth * 3, 0, 0, 0};
  int rows = p_sws_scale(
      scaler, (const uint8_t *const *)source->data, source->linesize, 0, source->height,
      planes, strides);
  p_sws_freeContext(scaler);
  if (rows != outHeight) {
    p_av_free(pixels);
    return failWith(message, CFFmpegShim_failed, "the frame could not be converted", 0);
  }
  frame->pixels = pixels;
  frame->length = length;
  frame->width = outWidth;
  frame->height = outHeight;
  return CFFmpegShim_ok;
}

static int32_t openSession(Session *session, const CFFmpegShimRequest *request, char **message) {
  enum { ioBufferSize = 64 * 1024 };
  uint8_t *buffer = p_av_malloc(ioBufferSize);
  if (buffer == NULL) return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  session->io = p_avio_alloc_context(
      buffer, ioBufferSize, 0, &session->input, readInput, NULL, seekInput);
  if (session->io == NULL) {
    p_av_free(buffer);
    return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  }
  session->format = p_avformat_alloc_context();
  if (session->format == NULL) return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  session->format->pb = session->io;
  session->format->flags |= AVFMT_FLAG_CUSTOM_IO;
  session->format->interrupt_callback.callback = interrupted;
  session->format->interrupt_callback.opaque = &session->input;
  session->format->probesize = probeBytes;
  session->format->max_analyze_duration = analyzeMicroseconds;
  session->format->format_whitelist = p_av_strdup(allowedDemuxers);
  int status = p_avformat_open_input(&session->format, NULL, NULL, NULL);
  if (status < 0) {
    // avformat_open_input freed the context on failure.
    session->format = NULL;
    if (status == AVERROR_EXIT) {
      return failWith(message, CFFmpegShim_timedOut, "the deadline passed while opening", 0);
    }
    return failWith(message, CFFmpegShim_unsupported, "no allowed demuxer reads the file", status);
  }
  // The decoders find_stream_info opens to probe get one thread each, like ours.
  unsigned streams = session->format->nb_streams;
  AVDictionary **probeOptions = streams > 0 ? p_av_calloc(streams, sizeof *probeOptions) : NULL;
  if (streams > 0 && probeOptions == NULL) {
    return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  }
  for (unsigned index = 0; index < streams; index++) {
    p_av_dict_set(&probeOptions[index], "threads", "1", 0);
  }
  status = p_avformat_find_stream_info(session->format, probeOptions);
  for (unsigned index = 0; index < streams; index++) p_av_dict_free(&probeOptions[index]);
  p_av_free(probeOptions);
  if (status < 0) {
    return failWith(
        message, status == AVERROR_EXIT ? CFFmpegShim_timedOut : CFFmpegShim_failed,
        "cannot read the streams", status);
  }
  const AVCodec *decoder = NULL;
  status = p_av_find_best_stream(session->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  if (status == AVERROR_DECODER_NOT_FOUND) {
    return failWith(message, CFFmpegShim_unsupported, "no decoder for the video's codec", 0);
  }
  if (status < 0 || decoder == NULL) {
    return failWith(message, CFFmpegShim_noVideo, "the file holds no video stream", 0);
  }
  session->stream = status;
  const AVCodecParameters *parameters = session->format->streams[status]->codecpar;
  uint64_t width = parameters->width > 0 ? (uint64_t)parameters->width : 0;
  uint64_t height = parameters->height > 0 ? (uint64_t)parameters->height : 0;
  if (width > 0 && height > 0 && (width > request->maxPixels || height > request->maxPixels / width)) {
    return failWith(message, CFFmpegShim_tooLarge, "the video's frames have too many pixels", 0);
  }
  session->codec = p_avcodec_alloc_context3(decoder);
  if (session->codec == NULL) return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  status = p_avcodec_parameters_to_context(session->codec, parameters);
  if (status < 0) return failWith(message, CFFmpegShim_failed, "bad codec parameters", status);
  session->codec->thread_count = 1;
  status = p_avcodec_open2(session->codec, decoder, NULL);
  if (status < 0) return failWith(message, CFFmpegShim_unsupported, "cannot open the decoder", status);
  session->packet = p_av_packet_alloc();
  session->frame = p_av_frame_alloc();
  session->best = p_av_frame_alloc();
  if (session->packet == NULL || session->frame == NULL || session->best == NULL) {
    return failWith(message, CFFmpegShim_failed, "out of memory", 0);
  }
  return CFFmpegShim_ok;
}

int32_t CFFmpegShim_representativeFrame(
    const CFFmpegShimRequest *request, CFFmpegShimFrame *frame, char **message) {
  pthread_once(&startOnce, start);
  if (startStatus != CFFmpegShim_ok) return failWith(message, startStatus, startFailure, 0);
  if (request == NULL || frame == NULL || request->descriptor < 0 || request->offset < 0 ||
      request->length <= 0 || request->shortSide < 1 || request->timeoutMilliseconds < 1 ||
      request->maxPixels == 0) {
    return failWith(message, CFFmpegShim_failed, "invalid request", 0);
  }
  memset(frame, 0, sizeof *frame);
  Session session;
  memset(&session, 0, sizeof session);
  session.input = (Input){
      .descriptor = request->descriptor,
      .offset = request->offset,
      .length = request->length,
      .position = 0,
      .deadline = p_av_gettime_relative() + (int64_t)request->timeoutMilliseconds * 1000,
  };
  int32_t status = openSession(&session, request, message);
  if (status != CFFmpegShim_ok) {
    closeSession(&session);
    return status;
  }
  AVStream *stream = session.format->streams[session.stream];
  frame->rotation = rotationOf(stream);
  int candidates = request->candidates < 1 ? 1 : (request->candidates > 8 ? 8 : request->candidates);
  // Where to look after the first frame, in stream time: 1 s, a quarter, a half.
  int64_t duration = stream->duration != AV_NOPTS_VALUE && stream->duration > 0
                         ? stream->duration
                         : (session.format->duration > 0
                                ? p_av_rescale_q(session.format->duration, AV_TIME_BASE_Q, stream->time_base)
                                : 0);
  // From the file: av_rescale_q gives INT64_MIN rather than overflowing, and a target
  // that is not positive is skipped.
  int64_t second = p_av_rescale_q(1, (AVRational){1, 1}, stream->time_base);
  int64_t targets[3] = {second, duration / 4, duration / 2};
  int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
  double bestDetail = -1;
  int64_t bestTime = AV_NOPTS_VALUE;
  int64_t triedTimes[9];
  int tried = 0;
  int lastError = 0;
  for (int candidate = 0; candidate < candidates && candidate <= 3; candidate++) {
    if (candidate > 0) {
      int64_t target = targets[candidate - 1];
      if (target <= 0 || target >= duration) continue;
      int64_t position;
      if (__builtin_add_overflow(start, target, &position) ||
          p_av_seek_frame(session.format, session.stream, position, AVSEEK_FLAG_BACKWARD) < 0) {
        continue;
      }
      p_avcodec_flush_buffers(session.codec);
      session.flushed = 0;
    }
    int decoded = nextFrame(&session);
    if (decoded == AVERROR_EXIT) {
      lastError = decoded;
      break;
    }
    if (decoded < 0) {
      lastError = decoded;
      continue;
    }
    uint64_t width = session.frame->width > 0 ? (uint64_t)session.frame->width : 0;
    uint64_t height = session.frame->height > 0 ? (uint64_t)session.frame->height : 0;
    if (width == 0 || height == 0) {
      p_av_frame_unref(session.frame);
      continue;
    }
    if (width > request->maxPixels || height > request->maxPixels / width) {
      closeSession(&session);
      return failWith(message, CFFmpegShim_tooLarge, "the video's frames have too many pixels", 0);
    }
    int64_t time = session.frame->best_effort_timestamp;
    int seen = 0;
    for (int index = 0; index < tried; index++) seen |= triedTimes[index] == time;
    if (seen && time != AV_NOPTS_VALUE) continue;  // the seek landed on a keyframe tried
    triedTimes[tried++] = time;
    double measured = detail(session.frame);
    if (measured > bestDetail) {
      bestDetail = measured;
      bestTime = time;
      p_av_frame_unref(session.best);
      if (p_av_frame_ref(session.best, session.frame) < 0) {
        closeSession(&session);
        return failWith(message, CFFmpegShim_failed, "out of memory", 0);
      }
    }
    p_av_frame_unref(session.frame);
    if (measured >= uniformDeviation) break;
  }
  if (tried == 0 || session.best->width == 0) {
    closeSession(&session);
    if (lastError == AVERROR_EXIT) {
      return failWith(message, CFFmpegShim_timedOut, "no frame decoded before the deadline", 0);
    }
    return failWith(message, CFFmpegShim_failed, "no frame could be decoded", lastError == AVERROR_EOF ? 0 : lastError);
  }
  frame->tried = tried;
  frame->allUniform = bestDetail < uniformDeviation;
  int64_t sinceStart;
  if (bestTime != AV_NOPTS_VALUE && !__builtin_sub_overflow(bestTime, start, &sinceStart)) {
    int64_t milliseconds = p_av_rescale_q(sinceStart, stream->time_base, (AVRational){1, 1000});
    frame->timeMilliseconds = milliseconds > 0 ? milliseconds : 0;
  }
  status = toRGB(session.best, request->shortSide, frame, message);
  closeSession(&session);
  return status;
}

void CFFmpegShim_free(void *pixels) {
  // Pixels come only from a loaded libavutil.
  if (pixels != NULL) p_av_free(pixels);
}

void CFFmpegShim_freeMessage(char *message) { free(message); }
