/// Reads a Windows or OS/2 bitmap's size from its headers: the 14-byte file header
/// (`BM`), then a DIB header whose first four bytes give its own size.
///
/// - A 12-byte `BITMAPCOREHEADER` (OS/2 1.x) stores width and height as unsigned 16-bit.
/// - Every later header (`BITMAPINFOHEADER` and its successors, 40 bytes and more, and
///   OS/2 2.x's 16- and 64-byte ones) stores them as signed 32-bit; a negative height
///   means the rows are stored top-down, and the picture is as tall as its magnitude.
enum BMPMetadataReader: MetadataReader {
  /// The bytes read: the file header and the DIB header up to the height.
  static let headerLength = 26
  /// The longest side believed (2^24 pixels); a larger one is an invalid value.
  static let maximumSide = 1 << 24

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    var metadata = MediaMetadata()
    let header: [UInt8]
    do {
      header = try source.bytes(at: 0, length: headerLength)
    } catch {
      metadata.report(error)
      return metadata
    }
    let le = IntegerReader.littleEndian
    guard header.starts(with: Array("BM".utf8)), let dibSize = le.uint32(header, at: 14) else {
      metadata.report(AssetProblem(.malformed, "The BMP file header is cut short."))
      return metadata
    }
    let width: Int
    let height: Int
    switch dibSize {
    case 12:
      guard let w = le.uint16(header, at: 18), let h = le.uint16(header, at: 20) else {
        metadata.report(AssetProblem(.malformed, "The BMP core header is cut short."))
        return metadata
      }
      (width, height) = (Int(w), Int(h))
    case 16, 40...1024:
      guard let w = le.uint32(header, at: 18), let h = le.uint32(header, at: 22) else {
        metadata.report(AssetProblem(.malformed, "The BMP info header is cut short."))
        return metadata
      }
      (width, height) = (Int(Int32(bitPattern: w)), abs(Int(Int32(bitPattern: h))))
    default:
      metadata.report(
        AssetProblem(.malformed, "The BMP's DIB header size \(dibSize) is not one BMP defines."))
      return metadata
    }
    guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
      metadata.report(
        AssetProblem(.invalidValue, "The BMP is \(width)×\(height) pixels."))
      return metadata
    }
    metadata.pixelWidth = width
    metadata.pixelHeight = height
    return metadata
  }
}
