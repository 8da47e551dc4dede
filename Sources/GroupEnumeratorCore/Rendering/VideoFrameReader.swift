import CFFmpegShim

/// A movie's representative frame, through the C wall in CFFmpegShim (ffmpeg's
/// libavformat, libavcodec and libswscale).
///
/// The first frame, unless it is near-uniform (black, white, one colour), then the first
/// that is not among the keyframes near 1 s, a quarter and half of the movie; a movie under
/// a second or with one keyframe gives its first frame. The movie is read with `pread`
/// from the library's open descriptor, within ``timeout`` and a pixel limit.
enum VideoFrameReader {
  /// The longest one movie's frame search may take.
  static let timeoutMilliseconds: Int32 = 10_000
  /// How many keyframes are tried at most.
  static let candidates: Int32 = 4

  /// A frame: packed 8-bit RGB, and how far the movie's track turns it.
  struct Frame {
    var pixels: [UInt8]
    var width: Int
    var height: Int
    /// Clockwise, 0, 90, 180 or 270 degrees.
    var rotation: Int
    var timeMilliseconds: Int
    var allUniform: Bool

    /// The EXIF orientation that turns the frame upright.
    var orientation: Int {
      switch rotation {
      case 90: 6
      case 180: 3
      case 270: 8
      default: 1
      }
    }
  }

  /// Reads the representative frame of bytes `range` of `file`, scaled so that its
  /// shorter side is at most `shortSide` (never enlarged), within `timeout` milliseconds
  /// (the fuzz target asks for less than libFuzzer's per-input limit).
  static func frame(
    of file: LibraryFile, range: Range<Int>, shortSide: Int,
    timeout: Int32 = timeoutMilliseconds
  ) throws(ImageRenderer.Failure) -> Frame {
    var request = CFFmpegShimRequest(
      descriptor: file.descriptor.rawValue, offset: Int64(range.lowerBound),
      length: Int64(range.count), shortSide: Int32(clamping: max(shortSide, 1)),
      maxPixels: ImageRenderer.maximumPixels, timeoutMilliseconds: max(timeout, 1),
      candidates: candidates)
    var frame = CFFmpegShimFrame()
    var message: UnsafeMutablePointer<CChar>?
    let status = CFFmpegShim_representativeFrame(&request, &frame, &message)
    defer { CFFmpegShim_free(frame.pixels) }
    let text = message.map { String(cString: $0) } ?? "unknown error"
    CFFmpegShim_freeMessage(message)
    switch status {
    case CFFmpegShim_ok: break
    case CFFmpegShim_tooLarge: throw .tooLarge(text)
    case CFFmpegShim_unsupported, CFFmpegShim_noVideo: throw .unsupported(text)
    case CFFmpegShim_timedOut: throw .tooLarge(text)
    case CFFmpegShim_unavailable: throw .unavailable(text)
    default: throw .failed(text)
    }
    guard let pixels = frame.pixels, frame.width > 0, frame.height > 0,
      frame.length == Int(frame.width) * Int(frame.height) * 3
    else { throw .failed("no pixels") }
    return Frame(
      pixels: Array(UnsafeBufferPointer(start: pixels, count: frame.length)),
      width: Int(frame.width), height: Int(frame.height), rotation: Int(frame.rotation),
      timeMilliseconds: Int(frame.timeMilliseconds), allUniform: frame.allUniform != 0)
  }
}
