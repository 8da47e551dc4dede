/// Reads a Photoshop document's size, and the EXIF and XMP Photoshop keeps among its image
/// resources (from the file's header and its image resources section).
///
/// A PSD (version 1) or PSB (version 2, "large document") starts with a 26-byte header:
/// `8BPS`, the version, six reserved bytes, the channel count, then the height and the
/// width as big-endian 32-bit numbers. Then come the color mode data and the image
/// resources, each a section whose big-endian 32-bit length comes first. An image
/// resource block is a signature (`8BIM`; older writers also used `MeSa`, `PHUT`, `AgHg`,
/// `DCSR`), a 16-bit ID, a Pascal-string name padded to an even length, a 32-bit data
/// length and the data, padded to an even length. Two are read:
/// - `0x0422` (EXIF data 1): TIFF bytes, handed to ``EXIFBlock`` for the dates, the place
///   and the orientation;
/// - `0x0424` (XMP metadata): the packet, handed to ``XMPFallback`` when the EXIF left a
///   gap (no date or no place).
///
/// The size is the header's (what exiftool's `Photoshop:ImageWidth` gives), never the
/// EXIF `PixelXDimension`. The embedded thumbnail resources (`0x0409`/`0x040C`) are not
/// read.
///
/// How it stays safe: only the block headers are read, one small read each, and only the
/// two blocks' data is loaded, at most ``maximumResourceLength`` bytes each; at most
/// ``maximumResources`` blocks are looked at; every length is checked against the section
/// and the file before anything is read. A tripped budget or a malformed section is a
/// problem, and what was read before it is kept.
enum PSDMetadataReader: MetadataReader {
  /// The bytes of the file header: signature, version, reserved, channels, height, width,
  /// depth and color mode.
  static let headerLength = 26
  /// The most resource blocks looked at; Photoshop writes a few dozen.
  static let maximumResources = 4096
  /// The largest EXIF or XMP resource loaded (real ones are a few KiB to tens of KiB).
  static let maximumResourceLength = 4 << 20
  /// The longest side believed: PSB's own limit, 300,000 pixels.
  static let maximumSide = 300_000

  /// The resource IDs read.
  static let exifResource: UInt16 = 0x0422
  static let xmpResource: UInt16 = 0x0424

  /// The signatures an image resource block may start with.
  private static let signatures: [[UInt8]] = ["8BIM", "MeSa", "PHUT", "AgHg", "DCSR"].map {
    Array($0.utf8)
  }

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    collecting { metadata throws(AssetProblem) in try read(source, into: &metadata) }
  }

  private static func read(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem)
  {
    let be = IntegerReader.bigEndian
    let header = try source.bytes(at: 0, length: headerLength + 4)
    guard header.count >= headerLength, header.starts(with: Array("8BPS".utf8)),
      let version = be.uint16(header, at: 4), version == 1 || version == 2,
      let height = be.uint32(header, at: 14), let width = be.uint32(header, at: 18)
    else {
      metadata.report(
        AssetProblem(.malformed, "The PSD header is cut short or not a version 1 or 2 header."))
      return
    }
    let (exif, xmp) = try resources(source, into: &metadata)
    if let exif {
      EXIFBlock(tiff: exif).read(into: &metadata)
      // Photoshop's thumbnail lives in its own resources, which are not read.
      metadata.hasThumbnail = false
    }
    if let xmp { XMPFallback.apply(xmp, to: &metadata) }
    guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
      metadata.pixelWidth = nil
      metadata.pixelHeight = nil
      metadata.report(AssetProblem(.invalidValue, "The PSD is \(width)×\(height) pixels."))
      return
    }
    metadata.pixelWidth = Int(width)
    metadata.pixelHeight = Int(height)
  }

  /// The data of the EXIF and XMP resources, each `nil` when absent or unreadable (with a
  /// problem then).
  private static func resources(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem) -> (exif: [UInt8]?, xmp: [UInt8]?)
  {
    let be = IntegerReader.bigEndian
    // The color mode data section's length, at the end of the file header.
    guard let colorModeLength = be.uint32(try source.bytes(at: headerLength, length: 4), at: 0)
    else {
      metadata.report(AssetProblem(.malformed, "The PSD ends inside its file header."))
      return (nil, nil)
    }
    let sectionOffset = headerLength + 4 + Int(colorModeLength)
    guard
      let sectionLength = be.uint32(try source.bytes(at: sectionOffset, length: 4), at: 0)
    else {
      metadata.report(
        AssetProblem(
          .malformed,
          "The PSD's color mode data (\(colorModeLength) bytes) runs past the end of the file."))
      return (nil, nil)
    }
    let start = sectionOffset + 4
    let end = start + Int(sectionLength)
    guard end <= source.count else {
      metadata.report(
        AssetProblem(
          .malformed,
          "The PSD's image resources (\(sectionLength) bytes at offset \(start)) run past the "
            + "end of the file."))
      return (nil, nil)
    }
    var exif: [UInt8]?
    var xmp: [UInt8]?
    var offset = start
    var seen = 0
    while offset < end {
      guard seen < maximumResources else {
        metadata.reportTrippedBudget(
          AssetProblem(
            .unsupported,
            "The PSD has more than \(maximumResources) image resources; the rest were not read."))
        break
      }
      seen += 1
      // Signature, ID and the name's length byte, then up to 255 name bytes, pad and size.
      let head = try source.bytes(at: offset, length: min(end - offset, 7 + 256 + 4))
      guard head.count >= 7, signatures.contains(where: { head.starts(with: $0) }),
        let id = be.uint16(head, at: 4)
      else {
        metadata.report(
          AssetProblem(
            .malformed, "The PSD image resource at offset \(offset) has no valid signature."))
        break
      }
      let nameLength = Int(head[6])
      let sizeOffset = 6 + ((1 + nameLength + 1) & ~1)
      guard let size = be.uint32(head, at: sizeOffset) else {
        metadata.report(
          AssetProblem(.malformed, "The PSD image resource at offset \(offset) is cut short."))
        break
      }
      let dataOffset = offset + sizeOffset + 4
      let dataEnd = dataOffset + Int(size)
      guard dataEnd <= end else {
        metadata.report(
          AssetProblem(
            .malformed,
            "The PSD image resource 0x\(hex(id)) at offset \(offset) claims \(size) bytes; "
              + "its section holds \(end - dataOffset)."))
        break
      }
      if id == exifResource || id == xmpResource {
        if Int(size) > maximumResourceLength {
          metadata.reportTrippedBudget(
            AssetProblem(
              .unsupported,
              "The PSD image resource 0x\(hex(id)) is \(size) bytes, more than the "
                + "\(maximumResourceLength) read; it was skipped."))
        } else if id == exifResource, exif == nil {
          exif = try source.bytes(at: dataOffset, length: Int(size))
        } else if id == xmpResource, xmp == nil {
          xmp = try source.bytes(at: dataOffset, length: Int(size))
        }
      }
      offset = dataEnd + (Int(size) & 1)
    }
    return (exif, xmp)
  }

  private static func hex(_ id: UInt16) -> String {
    let digits = String(id, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }
}
