/// Reads a Minolta / Konica Minolta RAW (MRW): its image size and the TIFF block holding
/// its EXIF.
///
/// An MRW starts with `\0MRM` and the big-endian 32-bit length of the blocks that follow
/// (the image data comes after them). Each block is a 4-byte tag, a big-endian 32-bit
/// length and its data. Read, as exiftool's `MinoltaRaw` tags name them:
/// - `\0PRD` (picture raw dimensions): after an 8-byte firmware ID, the sensor's height
///   and width, then the image's height (offset 12) and width (offset 14), 16-bit each —
///   the size given, as exiftool's `Composite:ImageSize`;
/// - `\0TTW` (TIFF tags): a TIFF structure (its offsets count from the block's start),
///   handed to ``EXIFBlock`` for the dates, the place and IFD0's orientation.
///
/// `\0WBG` (white balance), `\0RIF` (requested image format) and `\0PAD` are skipped.
///
/// How it stays safe: at most ``maximumBlocks`` block headers are read, the TIFF block is
/// loaded only up to ``maximumTIFFLength`` bytes, and every length is checked against the
/// header area and the file before anything is read.
enum MRWMetadataReader: MetadataReader {
  /// The most blocks looked at (real files have five).
  static let maximumBlocks = 64
  /// The largest TIFF block loaded (real ones are a few KiB; the preview JPEG inside is
  /// tens of KiB).
  static let maximumTIFFLength = 4 << 20

  /// The file's magic: `\0MRM`.
  static let magic: [UInt8] = [0x00, 0x4D, 0x52, 0x4D]
  private static let dimensionsBlock: [UInt8] = [0x00, 0x50, 0x52, 0x44]  // \0PRD
  private static let tiffBlock: [UInt8] = [0x00, 0x54, 0x54, 0x57]  // \0TTW

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    collecting { metadata throws(AssetProblem) in try read(source, into: &metadata) }
  }

  private static func read(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem)
  {
    let be = IntegerReader.bigEndian
    let header = try source.bytes(at: 0, length: 8)
    guard header.starts(with: magic), let length = be.uint32(header, at: 4) else {
      metadata.report(.init(.malformed, "The MRW header is cut short or not an MRM header."))
      return
    }
    let end = 8 + Int(length)
    if end > source.count {
      metadata.report(
        .init(
          .malformed,
          "The MRW's header blocks claim \(length) bytes; the file holds \(source.count - 8)."))
    }
    let limit = min(end, source.count)
    var size: (width: Int, height: Int)?
    var tiff: [UInt8]?
    var offset = 8
    var seen = 0
    while offset + 8 <= limit {
      guard seen < maximumBlocks else {
        metadata.reportTrippedBudget(
          .init(
            .unsupported, "The MRW has more than \(maximumBlocks) blocks; the rest were not read."))
        break
      }
      seen += 1
      let blockHeader = try source.bytes(at: offset, length: 8)
      guard let blockLength = be.uint32(blockHeader, at: 4) else { break }
      let tag = Array(blockHeader.prefix(4))
      let dataStart = offset + 8
      guard Int(blockLength) <= limit - dataStart else {
        metadata.report(
          .init(
            .malformed,
            "The MRW block '\(printable(tag))' at offset \(offset) claims \(blockLength) bytes; "
              + "\(limit - dataStart) are left."))
        break
      }
      if tag == dimensionsBlock, size == nil {
        let data = try source.bytes(at: dataStart, length: min(Int(blockLength), 16))
        if let height = be.uint16(data, at: 12), let width = be.uint16(data, at: 14) {
          size = (Int(width), Int(height))
        } else {
          metadata.report(.init(.malformed, "The MRW's PRD block is cut short."))
        }
      } else if tag == tiffBlock, tiff == nil {
        if Int(blockLength) > maximumTIFFLength {
          metadata.reportTrippedBudget(
            .init(
              .unsupported,
              "The MRW's TTW block is \(blockLength) bytes, more than the \(maximumTIFFLength) "
                + "read; its EXIF was not read."))
        } else {
          tiff = try source.bytes(at: dataStart, length: Int(blockLength))
        }
      }
      offset = dataStart + Int(blockLength)
    }
    if let tiff {
      EXIFBlock(tiff: tiff).read(into: &metadata, sizeFromIFD0: true)
      metadata.hasThumbnail = false  // The preview is a MakerNote JPEG, not extracted.
    } else {
      metadata.report(.init(.malformed, "The MRW has no TTW block (its EXIF)."))
    }
    if let size {
      guard size.width > 0, size.height > 0 else {
        metadata.report(
          .init(.invalidValue, "The MRW's PRD block gives \(size.width)×\(size.height) pixels."))
        return
      }
      metadata.pixelWidth = size.width
      metadata.pixelHeight = size.height
    } else {
      metadata.report(.init(.malformed, "The MRW has no PRD block (its size)."))
    }
  }

  /// A block tag as text: printable ASCII kept, other bytes as `\xNN`.
  private static func printable(_ tag: [UInt8]) -> String {
    tag.map { (0x20...0x7E).contains($0) ? String(UnicodeScalar($0)) : "\\x" + hex($0) }.joined()
  }

  private static func hex(_ byte: UInt8) -> String {
    (byte < 16 ? "0" : "") + String(byte, radix: 16)
  }
}
