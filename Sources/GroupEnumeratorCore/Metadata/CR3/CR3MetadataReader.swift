/// Reads a Canon CR3 RAW's metadata with our own box reader and TIFF walker (exiv2 0.27.6
/// reports "corrupted image metadata" for CR3).
///
/// A CR3 is an ISO base media file of brand `crx `. Its `moov` box
/// holds a `uuid` box whose extended type is Canon's
/// `85c0b687-820f-11e0-8111-f4ce462b6a48` (a `uuid` box's 16-byte extended type follows
/// its header); that box's children include four TIFF blocks, each
/// a TIFF header and one IFD whose offsets count from the block's start:
/// - `CMT1`: IFD0 (`ImageWidth`, `ImageLength`, `Orientation`, `DateTime`, `Make`…);
/// - `CMT2`: the EXIF IFD (`DateTimeOriginal`, `OffsetTimeOriginal`, `SubSecTime…`);
/// - `CMT3`: the Canon MakerNote (not read);
/// - `CMT4`: the GPS IFD.
///
/// Sources: Laurent Clévy, *Describing the Canon Raw v3 (CR3) file format*
/// (github.com/lclevy/canon_cr3, "CR3 file structure"), and exiftool's `Canon CR3` tags
/// (`Image::ExifTool::Canon` UUID-Canon table), which name the same boxes.
///
/// Each block goes through ``TIFFDirectoryWalker/read(firstDirectoryAs:)`` into one
/// ``EXIFTagTable`` (IFD0 from `CMT1`, EXIF from `CMT2`, GPS from `CMT4`), and
/// ``EXIFInterpreter`` checks and converts the values as for every other format.
///
/// Size rule: ``MediaMetadata/pixelWidth`` and ``MediaMetadata/pixelHeight`` are IFD0's
/// `ImageWidth` × `ImageLength` (the full-size image, what exiftool's `Composite:ImageSize`
/// gives for CR3: 6000×4000 for an EOS M50 file, 5472×3648 for an EOS R6 one); without
/// them, the EXIF `PixelXDimension` × `PixelYDimension` as for other formats. Orientation
/// is IFD0's `Orientation`.
///
/// How it stays safe: at most ``maximumBoxes`` box headers are read per level and `mdat`
/// is never loaded; each TIFF block is loaded only up to ``maximumTIFFLength`` bytes and
/// walked by the bounds-checked, loop-protected ``TIFFDirectoryWalker``.
enum CR3MetadataReader {
  /// Canon's extended type of the `uuid` box inside `moov` that holds the TIFF blocks.
  static let canonUUID: [UInt8] = [
    0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
  ]
  /// The most box headers read at one level (top level, `moov`'s children, the `uuid`'s).
  static let maximumBoxes = 4096
  /// The largest TIFF block loaded; real ones are a few kilobytes (`CMT3` tens of them).
  static let maximumTIFFLength = 1 << 20

  /// The TIFF blocks read, with the directory each one's IFD is.
  static let tiffBlocks: [(type: FourCharacterCode, directory: EXIFDirectory)] = [
    (FourCharacterCode(0x43, 0x4D, 0x54, 0x31), .ifd0),  // CMT1
    (FourCharacterCode(0x43, 0x4D, 0x54, 0x32), .exif),  // CMT2
    (FourCharacterCode(0x43, 0x4D, 0x54, 0x34), .gps),  // CMT4
  ]

  /// Whether a file's first bytes are an ISO base media `ftyp` box, as a CR3's are (a
  /// TIFF-based RAW starts with `II`/`MM` instead).
  ///
  /// - Parameter header: The file's first bytes (8 are enough).
  static func isISOBaseMedia(header: [UInt8]) -> Bool {
    IntegerReader.bigEndian.uint32(header, at: 4) == FourCharacterCode.fileType.rawValue
  }

  /// Reads everything the engine needs from a CR3. Never throws and never traps: what
  /// cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size and orientation, with the problems found.
  static func read(from source: some ByteSource) -> MediaMetadata {
    var metadata = MediaMetadata()
    let reader = BoxReader(source: source)
    guard let canon = canonBox(reader: reader, problems: &metadata.problemLog) else {
      return metadata
    }
    if let truncation = canon.truncation { metadata.report(truncation.assetProblem) }
    var table = EXIFTagTable()
    var found: Set<FourCharacterCode> = []
    do {
      var children = try BoxIterator(
        childrenOf: canon, depth: 1, reader: reader, contentOffset: canonUUID.count)
      var seen = 0
      while seen < maximumBoxes, let child = try children.next() {
        seen += 1
        if child.type == thumbnailType, holdsJPEG(child, reader: reader) {
          metadata.hasThumbnail = true
        }
        guard let block = tiffBlocks.first(where: { $0.type == child.type }),
          found.insert(child.type).inserted
        else { continue }
        if let truncation = child.truncation { metadata.report(truncation.assetProblem) }
        let content = try reader.content(of: child, limit: maximumTIFFLength)
        read(content, as: block.directory, into: &table, problems: &metadata.problemLog)
      }
    } catch {
      metadata.report(error.assetProblem)
    }
    for (type, directory) in tiffBlocks.prefix(2) where !found.contains(type) {
      let what = directory == .ifd0 ? "IFD0: size, orientation, DateTime" : "EXIF IFD: dates"
      metadata.report(
        .init(
          .malformed,
          "The Canon 'uuid' box at offset \(canon.offset) has no '\(type)' box (\(what))."))
    }
    EXIFInterpreter.apply(table, to: &metadata, sizeFromIFD0: true)
    // What ``thumbnail(from:)`` would find, from each box's first bytes only.
    if !metadata.hasThumbnail, let preview = try? previewBox(reader: reader),
      holdsJPEG(preview, reader: reader)
    {
      metadata.hasThumbnail = true
    }
    return metadata
  }

  /// The header of the first `moov` box's Canon `uuid` child, or `nil` with a problem.
  private static func canonBox<Source: ByteSource>(
    reader: BoxReader<Source>, problems: inout ProblemLog
  ) -> BoxHeader? {
    do {
      var topLevel = BoxIterator(topLevelOf: reader)
      var seen = 0
      var movie: BoxHeader?
      while movie == nil, seen < maximumBoxes, let header = try topLevel.next() {
        seen += 1
        if header.type == .movie { movie = header }
      }
      guard let movie else {
        guard seen < maximumBoxes else {
          problems.appendTrippedBudget(
            .init(
              .unsupported,
              "The CR3 file has no 'moov' box among its first \(maximumBoxes) top-level boxes; "
                + "the rest were not read."))
          return nil
        }
        problems.append(.init(.malformed, "The CR3 file has no 'moov' box."))
        return nil
      }
      if let truncation = movie.truncation { problems.append(truncation.assetProblem) }
      var children = try BoxIterator(childrenOf: movie, depth: 0, reader: reader)
      seen = 0
      while seen < maximumBoxes, let child = try children.next() {
        seen += 1
        guard child.type == .uuid, child.contentLength >= canonUUID.count else { continue }
        let extendedType = try reader.read(
          at: child.contentRange.lowerBound, length: canonUUID.count)
        if extendedType == canonUUID { return child }
      }
      problems.append(
        .init(
          .malformed,
          "The 'moov' box at offset \(movie.offset) has no Canon 'uuid' box "
            + "(85c0b687-820f-11e0-8111-f4ce462b6a48), so no EXIF metadata."))
    } catch {
      problems.append(error.assetProblem)
    }
    return nil
  }

  /// Walks one TIFF block and adds the tags of its first IFD, read as `directory`.
  private static func read(
    _ content: BoxContent, as directory: EXIFDirectory, into table: inout EXIFTagTable,
    problems: inout ProblemLog
  ) {
    let type = content.header.type
    guard var walker = TIFFDirectoryWalker(tiff: content.bytes) else {
      problems.append(
        .init(
          .malformed,
          "The Canon '\(type)' box at offset \(content.header.offset) does not start with a "
            + "TIFF header."))
      return
    }
    let walked = walker.read(firstDirectoryAs: directory)
    table.entryCounts[directory] = walked.entryCounts[directory]
    for (key, value) in walked.values where key.directory == directory {
      table.values[key] = value
    }
    if !walker.faults.isEmpty {
      problems.append(
        .init(
          .malformed,
          "The Canon '\(type)' box at offset \(content.header.offset) is damaged: "
            + walker.faults.map(\.description).joined(separator: " ")))
    }
  }
}

extension CR3MetadataReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }

  static func thumbnail(from source: some ByteSource, format: MediaFormat) -> [UInt8]? {
    thumbnail(from: source)
  }
}

// MARK: - The embedded previews

extension CR3MetadataReader {
  /// The extended type of the top-level `uuid` box that holds the `PRVW` preview.
  static let previewUUID: [UInt8] = [
    0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16,
  ]
  /// `PRVW`: the preview JPEG (1620 × 1080 on the cameras described), in the preview
  /// `uuid` box after its extended type and 8 more bytes.
  static let previewType = FourCharacterCode(0x50, 0x52, 0x56, 0x57)
  /// `THMB`: the thumbnail JPEG (160 × 120), among the Canon `uuid` box's children.
  static let thumbnailType = FourCharacterCode(0x54, 0x48, 0x4D, 0x42)
  /// The largest preview box loaded (a 1620 × 1080 JPEG is a few hundred kilobytes).
  static let maximumPreviewLength = 16 << 20
  /// How far into a `PRVW` or `THMB` box's content its JPEG may start: both hold a few
  /// fields (sizes, the JPEG's length) before it, 16 bytes on the cameras described.
  static let maximumPreviewHeader = 64

  /// The largest JPEG a CR3 embeds: its `PRVW` preview, else its `THMB` thumbnail; `nil`
  /// when it has neither (its full-size JPEG render sits in `mdat` and is not read).
  ///
  /// Each is the part of the box's content from the first JPEG start of image (`FF D8
  /// FF`) within ``maximumPreviewHeader`` bytes to the box's end: the box holds nothing
  /// after its JPEG, and the fields before it are not trusted for its length. A box that
  /// is longer than ``maximumPreviewLength``, cut short or holds no JPEG start is passed
  /// over.
  static func thumbnail(from source: some ByteSource) -> [UInt8]? {
    let reader = BoxReader(source: source)
    var ignored = ProblemLog()
    if let preview = try? previewBox(reader: reader), let jpeg = jpeg(in: preview, reader: reader) {
      return jpeg
    }
    guard let canon = canonBox(reader: reader, problems: &ignored),
      var children = try? BoxIterator(
        childrenOf: canon, depth: 1, reader: reader, contentOffset: canonUUID.count)
    else { return nil }
    var seen = 0
    while seen < maximumBoxes, let child = try? children.next() {
      seen += 1
      if child.type == thumbnailType { return jpeg(in: child, reader: reader) }
    }
    return nil
  }

  /// The `PRVW` box of the top-level preview `uuid` box, if there is one.
  private static func previewBox<Source: ByteSource>(
    reader: BoxReader<Source>
  ) throws(BoxParsingError) -> BoxHeader? {
    var topLevel = BoxIterator(topLevelOf: reader)
    var seen = 0
    while seen < maximumBoxes, let header = try topLevel.next() {
      seen += 1
      guard header.type == .uuid, header.contentLength >= previewUUID.count + 8,
        try reader.read(at: header.contentRange.lowerBound, length: previewUUID.count)
          == previewUUID
      else { continue }
      var children = try BoxIterator(
        childrenOf: header, depth: 0, reader: reader, contentOffset: previewUUID.count + 8)
      var inside = 0
      while inside < maximumBoxes, let child = try children.next() {
        inside += 1
        if child.type == previewType { return child }
      }
      return nil
    }
    return nil
  }

  /// The JPEG a `PRVW` or `THMB` box holds (see ``thumbnail(from:)``).
  private static func jpeg<Source: ByteSource>(
    in box: BoxHeader, reader: BoxReader<Source>
  ) -> [UInt8]? {
    guard box.truncation == nil, box.contentLength <= maximumPreviewLength,
      let content = try? reader.content(of: box, limit: maximumPreviewLength),
      let start = jpegStart(in: content.bytes)
    else { return nil }
    return Array(content.bytes[start...])
  }

  /// Whether ``jpeg(in:reader:)`` finds a JPEG in `box`, reading only its first bytes
  /// (the listing's ``MediaMetadata/hasThumbnail``).
  private static func holdsJPEG<Source: ByteSource>(
    _ box: BoxHeader, reader: BoxReader<Source>
  ) -> Bool {
    guard box.truncation == nil, box.contentLength <= maximumPreviewLength,
      let content = try? reader.content(of: box, prefix: maximumPreviewHeader + 3)
    else { return false }
    return jpegStart(in: content.bytes) != nil
  }

  /// Where a JPEG's start of image (`FF D8 FF`) begins within the first
  /// ``maximumPreviewHeader`` bytes of `bytes`.
  private static func jpegStart(in bytes: [UInt8]) -> Int? {
    let last = min(maximumPreviewHeader, bytes.count - 3)
    guard last >= 0 else { return nil }
    return (0...last).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD8 && bytes[$0 + 2] == 0xFF }
  }
}
