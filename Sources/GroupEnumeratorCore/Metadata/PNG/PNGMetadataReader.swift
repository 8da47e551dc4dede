/// Reads a PNG still's metadata with our own bounds-checked chunk walk, handing only the
/// EXIF block to libexif (as for JPEG).
///
/// What it reads (chunks of the PNG format as of its third edition):
/// - `IHDR`: the pixel size. It is always the size reported, never EXIF
///   `PixelXDimension`/`PixelYDimension`.
/// - `eXIf`: the EXIF block as TIFF bytes (a leading `Exif\0\0` is tolerated).
/// - `tEXt`, `zTXt` and `iTXt` chunks with the keyword `Raw profile type exif` or
///   `Raw profile type APP1`: ImageMagick's older way of storing the same block, hex
///   encoded (``RawProfile``), with or without `Exif\0\0` in front of the TIFF header.
/// - `iTXt` with the keyword `XML:com.adobe.xmp`: the XMP packet, a fallback for the
///   date and the place (``XMPFallback``).
///
/// When a file has both an `eXIf` chunk and a raw profile, the `eXIf` chunk is used: it is
/// the standard place, and the raw profile is a legacy copy. (ExifTool instead uses
/// whichever comes first: on a file whose raw profile comes first with a damaged GPS
/// pointer, it then refuses the `eXIf` copy as a directory loop because its IFD0 sits at
/// the same offset.) The block is read by ``EXIFBlock``.
///
/// How it stays safe: chunk headers are read 8 bytes at a time and image data (`IDAT`) is
/// skipped by offset, never read; the walk ends at `IEND`, at the first `IDAT` when EXIF
/// has already been found (an `eXIf` written after the image data is still found when
/// none came before it; then one read of the file's end looks for `IEND`,
/// ``truncation(of:)``), or after ``maximumChunks`` chunks. A file that ends before
/// `IEND` gets a ``AssetProblem/Code/truncated`` problem. Only the chunks used are
/// loaded, each up to ``maximumChunkLength`` bytes; a text chunk is loaded only when its
/// keyword (read from its first 80 bytes) names an EXIF profile or XMP (a packet up to
/// ``XMPPacket/maximumSize`` bytes; with `eXIf` found, only an XMP packet before the image data is
/// looked for); compressed text is inflated up to ``maximumInflatedLength`` bytes, and all the
/// profiles of one file may take ``maximumTextBytesPerFile`` bytes, stored and inflated. Chunk CRCs
/// are checked for the chunks loaded; a mismatch is reported, and the chunk still used (ExifTool
/// does the same).
enum PNGMetadataReader {
  /// The most chunks looked at, `IDAT` chunks included (each costs one 8-byte header
  /// read). Real PNGs have a few dozen chunks; 65,536 is a 512 MiB PNG
  /// written in libpng's 8 KiB `IDAT` chunks, and walking them costs well under a second.
  /// Past it the walk ends with an `unsupported` problem.
  static let maximumChunks = 1 << 16
  /// The largest chunk loaded; real EXIF chunks are a few kilobytes.
  static let maximumChunkLength = 4 << 20
  /// The most bytes a compressed text chunk may inflate to.
  static let maximumInflatedLength = 4 << 20
  /// The most bytes of raw-profile text read from one PNG in all: the profile chunks'
  /// stored bytes plus what the compressed ones inflate to (a failed inflate counts its
  /// whole limit). A real profile holds
  /// one EXIF block of at most 64 KiB, hex encoded. This bounds a file's inflating to a
  /// fraction of a second whatever number of chunks it holds; past it, one `unsupported`
  /// problem names the first profile not read.
  static let maximumTextBytesPerFile = 16 << 20
  /// The largest EXIF block a raw profile may declare.
  static let maximumProfileLength = 4 << 20

  /// The keyword of the `iTXt` chunk that holds an XMP packet (compared exactly).
  static let xmpKeyword = "XML:com.adobe.xmp"

  /// The keywords of text chunks that hold an EXIF raw profile (compared ignoring case).
  static let exifProfileKeywords = ["raw profile type exif", "raw profile type app1"]

  /// Reads everything the engine needs from a PNG file. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size, EXIF orientation and whether the EXIF
  ///   block has a thumbnail, with the problems found.
  static func read(from source: some ByteSource) -> MediaMetadata {
    var structure = PNGStructure()
    do {
      try structure.walk(source)
    } catch {
      structure.problems.append(error)
    }
    var metadata = MediaMetadata()
    metadata.problemLog = structure.problems
    if structure.stoppedBeforeEnd,
      source.checksEnd(before: source.count, notBefore: PNGChunkHeader.signature.count),
      let problem = truncation(of: source)
    {
      metadata.report(problem)
    }
    structure.exifBlock?.read(into: &metadata)
    if let packet = structure.xmpPacket { XMPFallback.apply(packet, to: &metadata) }
    // IHDR decides, whatever EXIF said (PixelXDimension).
    metadata.pixelWidth = structure.width
    metadata.pixelHeight = structure.height
    return metadata
  }

  /// The end chunk's type, which a whole PNG holds in its last 12 bytes.
  static let endChunkType = Array("IEND".utf8)
  /// How many of a PNG's last bytes are searched for `IEND`: its own 12, and room for the
  /// few bytes some writers append after it. A PNG's image data is never read, so this
  /// stays small (writers append little or nothing after `IEND`).
  static let endCheckLength = 4096

  /// The ``AssetProblem/Code/truncated`` problem of a PNG whose walk stopped before the
  /// end (``PNGStructure/stoppedBeforeEnd``) and whose last ``endCheckLength`` bytes hold
  /// no `IEND` chunk type; bytes that are all zero are padding, not judged. The last
  /// ``FileTail/firstLookLength`` bytes are read first, the rest only when they hold no
  /// `IEND` (``FileTail/init(of:end:notBefore:length:lookingFor:)``).
  ///
  /// - Returns: The problem, or `nil` when `IEND` is there or the read failed (a failed
  ///   read is reported where the walk reads).
  static func truncation(of source: some ByteSource) -> AssetProblem? {
    guard
      let tail = try? FileTail(
        of: source, notBefore: PNGChunkHeader.signature.count, length: endCheckLength,
        lookingFor: endChunkType),
      !tail.contains(endChunkType), !tail.isZeroFilled
    else { return nil }
    return AssetProblem(
      .truncated,
      "The PNG has no IEND chunk in its last \(tail.bytes.count) bytes: it is cut short; what "
        + "comes before the cut was read.")
  }

  /// The EXIF (IFD1) thumbnail of a PNG's EXIF block, byte for byte: the thumbnail that
  /// ``read(from:)`` reports with `hasThumbnail`.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: The thumbnail's bytes, or `nil` when the file has none.
  static func thumbnail(from source: some ByteSource) -> [UInt8]? {
    var structure = PNGStructure()
    do {
      try structure.walk(source)
    } catch {
      // What was found before the fault still counts, as in read(from:).
    }
    return structure.exifBlock?.thumbnail
  }
}

extension PNGMetadataReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }

  static func thumbnail(from source: some ByteSource, format: MediaFormat) -> [UInt8]? {
    thumbnail(from: source)
  }
}
