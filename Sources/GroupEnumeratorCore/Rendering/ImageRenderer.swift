import CVipsShim
import FoundationEssentials

/// Whether this process runs under AddressSanitizer or ThreadSanitizer (`make asan`,
/// `make tsan`): their allocator stands in for glibc's and their shadow memory is mapped
/// as data. One answer for the rendering shim (which then leaves glibc's malloc alone) and
/// for the Demo's picture workers (which then set no memory limit).
package let isRunningUnderSanitizer = CVipsShim_isSanitized() != 0

/// Draws pictures with libvips, through the C wall in CVipsShim.
///
/// Every draw checks the pixel count a header claims before anything is decoded
/// (``maximumPixels``), uses only the loaders of photo formats, shrinks on load where the
/// format allows (JPEG by a power of two, HEIF from its thumbnail or tiles, WebP), and
/// encodes to memory. libvips itself is set up once by the shim: untrusted loaders
/// blocked, no operation cache, one worker thread per call.
enum ImageRenderer {
  /// The longest side a target may have.
  static let maximumSide = 16384
  /// The most pixels a source may have to be drawn (header width × height): 100
  /// megapixels; decoding one needs about 300 MB before shrink-on-load helps.
  static let maximumPixels: UInt64 = 100_000_000
  /// The largest file read into memory to be drawn: 256 MiB.
  static let maximumFileSize = 256 << 20

  /// What to draw.
  struct Request {
    var width: Int
    var height: Int
    var contentMode: ImageContentMode
    /// `nil`: the orientation the image records (EXIF, or HEIF's `irot`/`imir` as
    /// libheif applies them); 1…8: this EXIF orientation instead.
    var orientation: Int?
    var encoding: ImageEncoding
    var jpegQuality: Int
    /// Whether a picture smaller than the box keeps its size rather than being enlarged.
    var shrinkOnly = false
  }

  /// A drawn picture.
  struct Picture {
    var data: Data
    var isPNG: Bool
    var width: Int
    var height: Int
    var sourceWidth: Int
    var sourceHeight: Int
  }

  /// Why a draw failed, before it is tied to an asset.
  enum Failure: Error {
    case unsupported(String)
    case tooLarge(String)
    case failed(String)
    case unavailable(String)

    /// The request error for the file `name`.
    func error(name: String) -> ImageRequestError {
      switch self {
      case .unsupported(let reason): .noDecoder(name: name, reason: reason)
      case .tooLarge(let reason): .tooLarge(name: name, reason: reason)
      case .failed(let reason): .undecodable(name: name, reason: reason)
      case .unavailable(let reason): .decoderUnavailable(reason: reason)
      }
    }
  }

  /// Hands the memory a picture's work freed back to the system (see
  /// `CVipsShim_returnFreedMemory`); called once the work's buffers are released.
  static func returnFreedMemory() { CVipsShim_returnFreedMemory() }

  /// Draws an encoded image (JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL, …).
  static func draw(encoded bytes: [UInt8], _ request: Request) throws(Failure) -> Picture {
    var shimRequest = try shim(request)
    var picture = CVipsShimPicture()
    var message: UnsafeMutablePointer<CChar>?
    let status = bytes.withUnsafeBufferPointer { buffer in
      CVipsShim_drawEncoded(buffer.baseAddress, buffer.count, &shimRequest, &picture, &message)
    }
    return try finish(status: status, picture: picture, message: message)
  }

  /// Draws packed 8-bit RGB pixels (a video frame), turned by EXIF `request.orientation`.
  static func draw(rgb pixels: [UInt8], width: Int, height: Int, _ request: Request)
    throws(Failure) -> Picture
  {
    var shimRequest = try shim(request)
    guard let width32 = Int32(exactly: width), let height32 = Int32(exactly: height) else {
      throw .failed("the frame's size is out of range")
    }
    var picture = CVipsShimPicture()
    var message: UnsafeMutablePointer<CChar>?
    let status = pixels.withUnsafeBufferPointer { buffer in
      CVipsShim_drawRGB(
        buffer.baseAddress, buffer.count, width32, height32, &shimRequest, &picture, &message)
    }
    return try finish(status: status, picture: picture, message: message)
  }

  /// Decoded 8-bit RGB pixels of an encoded image, its own orientation applied (for
  /// comparing pictures).
  static func decodeRGB(_ bytes: [UInt8]) throws(Failure) -> (
    pixels: [UInt8], width: Int, height: Int
  ) {
    var pixels: UnsafeMutablePointer<UInt8>?
    var width: Int32 = 0
    var height: Int32 = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = bytes.withUnsafeBufferPointer { buffer in
      CVipsShim_decodeRGB(
        buffer.baseAddress, buffer.count, maximumPixels, &pixels, &width, &height, &message)
    }
    defer { CVipsShim_free(pixels) }
    try check(status: status, message: message)
    guard let pixels, width > 0, height > 0 else { throw .failed("no pixels") }
    let count = Int(width) * Int(height) * 3
    return (Array(UnsafeBufferPointer(start: pixels, count: count)), Int(width), Int(height))
  }

  private static func shim(_ request: Request) throws(Failure) -> CVipsShimRequest {
    guard (1...maximumSide).contains(request.width), (1...maximumSide).contains(request.height)
    else { throw .failed("invalid target size") }
    let encoding: Int32 =
      switch request.encoding {
      case .automatic: CVipsShim_encodeAutomatic
      case .jpeg: CVipsShim_encodeJPEG
      case .png: CVipsShim_encodePNG
      }
    let orientation = request.orientation.map { (1...8).contains($0) ? $0 : 1 } ?? 0
    return CVipsShimRequest(
      width: Int32(request.width), height: Int32(request.height),
      fill: request.contentMode == .aspectFill ? 1 : 0, orientation: Int32(orientation),
      encoding: encoding, quality: Int32(min(max(request.jpegQuality, 1), 100)),
      maxPixels: maximumPixels, shrinkOnly: request.shrinkOnly ? 1 : 0)
  }

  private static func finish(
    status: Int32, picture: CVipsShimPicture, message: UnsafeMutablePointer<CChar>?
  ) throws(Failure) -> Picture {
    defer { CVipsShim_free(picture.bytes) }
    try check(status: status, message: message)
    guard let bytes = picture.bytes, picture.length > 0 else { throw .failed("nothing encoded") }
    return Picture(
      data: Data(bytes: bytes, count: picture.length), isPNG: picture.isPNG != 0,
      width: Int(picture.width), height: Int(picture.height),
      sourceWidth: Int(picture.sourceWidth), sourceHeight: Int(picture.sourceHeight))
  }

  /// Frees `message` and throws the failure `status` stands for, if any.
  private static func check(status: Int32, message: UnsafeMutablePointer<CChar>?) throws(Failure) {
    let text = message.map { reason(String(cString: $0)) } ?? "unknown error"
    CVipsShim_freeMessage(message)
    switch status {
    case CVipsShim_ok: return
    case CVipsShim_unsupported: throw .unsupported(text)
    case CVipsShim_tooLarge: throw .tooLarge(text)
    case CVipsShim_unavailable: throw .unavailable(text)
    default: throw .failed(text)
    }
  }

  /// libvips's error text as one line: its first line, without a trailing period, at
  /// most 200 characters.
  private static func reason(_ text: String) -> String {
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
    let trimmed = line.hasSuffix(".") ? String(line.dropLast()) : line
    return trimmed.count > 200 ? String(trimmed.prefix(200)) + "…" : trimmed
  }
}
