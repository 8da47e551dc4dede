/// Reads a JPEG 2000 file's size and EXIF with the box layer of the JP2 file
/// format, and a bare codestream's size (from its `SIZ` marker segment).
///
/// A JP2 file is a sequence of boxes, each a 32-bit length (1: a 64-bit length follows; 0:
/// to the end of the file) and a type, the same layout as the ISO base media file format's. Read:
/// - `jp2h`, the header superbox, and its `ihdr` child: the height, then the width, as
///   big-endian 32-bit numbers;
/// - a `uuid` box whose 16-byte identifier is `JpgTiffExif->JP2` in ASCII (what exiv2,
///   exiftool and Adobe write), or an `Exif` box (4-byte offset of the TIFF header, as
///   JPX and JPEG XL define it): TIFF bytes, possibly after `Exif\0\0`, handed
///   to ``EXIFBlock`` for the dates, the place and the orientation;
/// - a `uuid` box with Adobe's XMP identifier (`be7acfcb-97a9-42e8-9c71-999491e3afac`):
///   the packet, handed to ``XMPFallback`` when the EXIF left a gap.
///
/// The codestream box (`jp2c`) is never read. A bare codestream (`FF 4F FF 51`, `.j2k`)
/// gives only its size: `Xsiz − XOsiz` by `Ysiz − YOsiz`.
///
/// How it stays safe: at most ``maximumBoxes`` box headers at each level, superboxes one
/// level deep only, EXIF and XMP loaded only up to ``maximumMetadataLength`` bytes; every
/// box length is checked by ``BoxHeader`` against its parent and the file.
enum JPEG2000MetadataReader: MetadataReader {
  /// The most box headers read at one level.
  static let maximumBoxes = 4096
  /// The largest EXIF or XMP box loaded.
  static let maximumMetadataLength = 4 << 20
  /// The longest side believed (`Xsiz` is 32-bit, but no real picture is this wide).
  static let maximumSide = 1 << 24

  /// The `uuid` identifier of an EXIF box: `JpgTiffExif->JP2` in ASCII.
  static let exifUUID: [UInt8] = Array("JpgTiffExif->JP2".utf8)
  /// The `uuid` identifier of an XMP box, as Adobe's XMP defines it for JPEG 2000.
  static let xmpUUID: [UInt8] = [
    0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
  ]
  /// The start of a bare codestream: `SOC` then `SIZ`.
  static let codestreamStart: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]

  private static let header = FourCharacterCode(0x6A, 0x70, 0x32, 0x68)  // jp2h
  private static let imageHeader = FourCharacterCode(0x69, 0x68, 0x64, 0x72)  // ihdr
  private static let exifBox = FourCharacterCode(0x45, 0x78, 0x69, 0x66)  // Exif

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    var metadata = MediaMetadata()
    do {
      if try source.bytes(at: 0, length: 4) == codestreamStart {
        try readCodestream(source, into: &metadata)
      } else {
        readBoxes(source, into: &metadata)
      }
    } catch {
      metadata.report(error)
    }
    return metadata
  }

  /// The size from a bare codestream's `SIZ` segment.
  private static func readCodestream(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem)
  {
    let be = IntegerReader.bigEndian
    let siz = try source.bytes(at: 0, length: 24)
    guard let xsiz = be.uint32(siz, at: 8), let ysiz = be.uint32(siz, at: 12),
      let xosiz = be.uint32(siz, at: 16), let yosiz = be.uint32(siz, at: 20)
    else {
      metadata.report(
        AssetProblem(.malformed, "The JPEG 2000 codestream's SIZ segment is cut short."))
      return
    }
    setSize(
      width: Int(xsiz) - Int(xosiz), height: Int(ysiz) - Int(yosiz), into: &metadata,
      what: "codestream's SIZ segment")
  }

  private static func readBoxes<Source: ByteSource>(
    _ source: Source, into metadata: inout MediaMetadata
  ) {
    let reader = BoxReader(source: source)
    var exif: [UInt8]?
    var xmp: [UInt8]?
    var size: (width: Int, height: Int)?
    do {
      var topLevel = BoxIterator(topLevelOf: reader)
      var seen = 0
      while let box = try topLevel.next() {
        seen += 1
        guard seen <= maximumBoxes else {
          metadata.reportTrippedBudget(
            .init(
              .unsupported,
              "The JPEG 2000 file has more than \(maximumBoxes) boxes; the rest were not read."))
          break
        }
        if let truncation = box.truncation { metadata.report(truncation.assetProblem) }
        switch box.type {
        case header where size == nil:
          size = try imageSize(in: box, reader: reader, problems: &metadata.problemLog)
        case .uuid where box.contentLength >= exifUUID.count && (exif == nil || xmp == nil):
          let identifier = try reader.read(at: box.contentRange.lowerBound, length: 16)
          if identifier == exifUUID, exif == nil {
            exif = try metadataBytes(of: box, after: 16, reader: reader, problems: &metadata)
          } else if identifier == xmpUUID, xmp == nil {
            xmp = try metadataBytes(of: box, after: 16, reader: reader, problems: &metadata)
          }
        case exifBox where exif == nil:
          exif = try metadataBytes(of: box, after: 0, reader: reader, problems: &metadata)
        default: break
        }
      }
    } catch {
      metadata.report(error.assetProblem)
    }
    if let exif {
      if let tiff = tiffBytes(exif) {
        EXIFBlock(tiff: tiff).read(into: &metadata)
        metadata.hasThumbnail = false  // No thumbnail is extracted from a JPEG 2000 file.
      } else {
        metadata.report(
          .init(.malformed, "The JPEG 2000 EXIF box holds no TIFF header."))
      }
    }
    if let xmp { XMPFallback.apply(xmp, to: &metadata) }
    metadata.pixelWidth = nil
    metadata.pixelHeight = nil
    if let size {
      setSize(width: size.width, height: size.height, into: &metadata, what: "'ihdr' box")
    } else if !metadata.problems.contains(where: { $0.code == .malformed }) {
      metadata.report(.init(.malformed, "The JPEG 2000 file has no 'jp2h' box with an 'ihdr' box."))
    }
  }

  /// The width and height of the `ihdr` box inside `jp2h`, or `nil` (with a problem when
  /// the box is damaged).
  private static func imageSize<Source: ByteSource>(
    in box: BoxHeader, reader: BoxReader<Source>, problems: inout ProblemLog
  ) throws(BoxParsingError) -> (width: Int, height: Int)? {
    var children = try BoxIterator(childrenOf: box, depth: 0, reader: reader)
    var seen = 0
    while seen < maximumBoxes, let child = try children.next() {
      seen += 1
      guard child.type == imageHeader else { continue }
      let content = try reader.content(of: child, prefix: 8)
      let height = try content.uint32(at: 0)
      let width = try content.uint32(at: 4)
      return (Int(width), Int(height))
    }
    return nil
  }

  /// A metadata box's content after its first `skip` bytes, or `nil` (with a problem) when
  /// it is larger than ``maximumMetadataLength``.
  private static func metadataBytes<Source: ByteSource>(
    of box: BoxHeader, after skip: Int, reader: BoxReader<Source>,
    problems metadata: inout MediaMetadata
  ) throws(BoxParsingError) -> [UInt8]? {
    let length = box.contentLength - skip
    guard length <= maximumMetadataLength else {
      metadata.reportTrippedBudget(
        .init(
          .unsupported,
          "The JPEG 2000 '\(box.type)' box at offset \(box.offset) holds \(length) bytes, more "
            + "than the \(maximumMetadataLength) read; it was skipped."))
      return nil
    }
    return try reader.read(at: box.contentRange.lowerBound + skip, length: length)
  }

  /// The TIFF bytes of an EXIF box's content: as they are when they start with a TIFF
  /// byte-order mark, after `Exif\0\0`, or after a 4-byte offset to the TIFF header.
  static func tiffBytes(_ content: [UInt8]) -> [UInt8]? {
    func isTIFF(_ bytes: ArraySlice<UInt8>) -> Bool {
      bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
    }
    if isTIFF(content[...]) { return content }
    if content.starts(with: EXIFBlock.identifier), isTIFF(content.dropFirst(6)) {
      return Array(content.dropFirst(6))
    }
    if let offset = IntegerReader.bigEndian.uint32(content, at: 0), offset <= content.count - 4,
      isTIFF(content.dropFirst(4 + Int(offset)))
    {
      return Array(content.dropFirst(4 + Int(offset)))
    }
    return nil
  }

  private static func setSize(
    width: Int, height: Int, into metadata: inout MediaMetadata, what: String
  ) {
    guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
      metadata.report(
        .init(.invalidValue, "The JPEG 2000 \(what) gives \(width)×\(height) pixels."))
      return
    }
    metadata.pixelWidth = width
    metadata.pixelHeight = height
  }
}
