/// Reads a GIF's size from its header and logical screen descriptor: the signature
/// `GIF87a` or `GIF89a`, then the logical screen's width and height, little-endian.
///
/// A GIF holds no EXIF; its size is the logical screen every frame is drawn on.
enum GIFMetadataReader: MetadataReader {
  /// The bytes read: signature, version, and the two dimensions.
  static let headerLength = 10

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    var metadata = MediaMetadata()
    let header: [UInt8]
    do {
      header = try source.bytes(at: 0, length: headerLength)
    } catch {
      metadata.report(error)
      return metadata
    }
    guard header.count == headerLength, header.starts(with: Array("GIF8".utf8)),
      header[4] == UInt8(ascii: "7") || header[4] == UInt8(ascii: "9"),
      header[5] == UInt8(ascii: "a"),
      let width = IntegerReader.littleEndian.uint16(header, at: 6),
      let height = IntegerReader.littleEndian.uint16(header, at: 8)
    else {
      metadata.report(
        AssetProblem(.malformed, "The GIF header is cut short or not a GIF87a/GIF89a header."))
      return metadata
    }
    guard width > 0, height > 0 else {
      metadata.report(
        AssetProblem(.invalidValue, "The GIF's logical screen is \(width)×\(height) pixels."))
      return metadata
    }
    metadata.pixelWidth = Int(width)
    metadata.pixelHeight = Int(height)
    return metadata
  }
}
