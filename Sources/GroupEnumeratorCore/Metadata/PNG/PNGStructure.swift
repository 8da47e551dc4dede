/// What a walk over a PNG's chunks found: the `IHDR` size and the EXIF block.
///
/// See ``PNGMetadataReader`` for what is read and the limits that keep the walk bounded.
struct PNGStructure {
  /// Where an EXIF block came from.
  enum EXIFOrigin: Equatable {
    /// An `eXIf` chunk.
    case exifChunk
    /// A text chunk holding a raw profile.
    case rawProfile(keyword: String)
  }

  /// The `IHDR` width; `nil` when there is no valid `IHDR`.
  var width: Int?
  /// The `IHDR` height; `nil` when there is no valid `IHDR`.
  var height: Int?
  /// The EXIF block.
  var exifBlock: EXIFBlock?
  /// Where ``exifBlock`` came from.
  var exifOrigin: EXIFOrigin?
  /// The XMP packet of the first text chunk with the keyword `XML:com.adobe.xmp`.
  var xmpPacket: [UInt8]?
  /// How many chunk headers were read.
  var chunkCount = 0
  /// Whether the walk stopped before `IEND` because it had what it needed (EXIF before
  /// the image data, or an `eXIf` chunk): whether the file is whole is then not known.
  var stoppedBeforeEnd = false
  /// What was wrong, in the order found.
  var problems = ProblemLog()
  /// Bytes of raw-profile text spent so far: each profile chunk's stored bytes, plus what
  /// a compressed one inflated to (its whole limit when inflating failed). Bounded by
  /// ``PNGMetadataReader/maximumTextBytesPerFile``.
  private(set) var textBytesSpent = 0
  /// Whether the text budget ran out (then no more profiles are read, and one problem
  /// says so).
  private var isTextBudgetSpent = false

  /// Walks the chunks of `source`, filling in what it finds.
  ///
  /// - Throws: An ``AssetProblem`` when the file is not a PNG or a read fails; what was
  ///   found before stays.
  mutating func walk(_ source: some ByteSource) throws(AssetProblem) {
    let count = source.count
    guard count > 0 else {
      problems.append(.init(.emptyFile, "The file is empty."))
      return
    }
    guard try source.bytes(at: 0, length: 8) == PNGChunkHeader.signature else {
      throw AssetProblem(.unrecognizedFormat, "The file does not start with the PNG signature.")
    }
    var offset = PNGChunkHeader.signature.count
    var sawImageData = false
    while true {
      guard chunkCount < PNGMetadataReader.maximumChunks else {
        problems.appendTrippedBudget(
          .init(
            .unsupported,
            "The PNG has more than \(PNGMetadataReader.maximumChunks) chunks; the rest were "
              + "not read."))
        return
      }
      guard offset < count,
        let header = try PNGChunkHeader(source.bytes(at: offset, length: 8), offset: offset)
      else {
        problems.append(
          .init(.truncated, "The PNG ends at offset \(offset) without an IEND chunk."))
        return
      }
      chunkCount += 1
      if chunkCount == 1, header.kind != .header {
        problems.append(
          .init(.malformed, "The PNG's first chunk is '\(header.name)', not IHDR."))
      }
      guard header.length <= count - header.dataOffset else {
        problems.append(
          .init(
            .truncated,
            "The PNG chunk '\(header.name)' at offset \(offset) declares \(header.length) "
              + "bytes, past the end of the file (\(count) bytes)."))
        return
      }
      switch header.kind {
      case .header where chunkCount == 1:
        readHeader(try load(header, from: source))
      case .exif where exifOrigin != .exifChunk:
        if let data = try load(header, from: source) { useEXIFChunk(data, header: header) }
      case .text, .compressedText, .internationalText:
        try readText(header, from: source)
      case .imageData where !sawImageData:
        sawImageData = true
        // The image data is never read; an eXIf after it is only looked for when no EXIF
        // came before it.
        if exifOrigin != nil {
          stoppedBeforeEnd = true
          return
        }
      case .end:
        return
      default:
        break
      }
      // With the standard EXIF found, the walk goes on (at most to the image data) only
      // for an XMP packet.
      if exifOrigin == .exifChunk, xmpPacket != nil || sawImageData {
        stoppedBeforeEnd = true
        return
      }
      offset = header.nextOffset
    }
  }

  // MARK: - Chunks

  /// The chunk's data, read with its CRC and checked against it; `nil` (and a problem)
  /// when it is longer than ``PNGMetadataReader/maximumChunkLength`` or cannot be read.
  private mutating func load(_ header: PNGChunkHeader, from source: some ByteSource)
    throws(AssetProblem) -> [UInt8]?
  {
    guard header.length <= PNGMetadataReader.maximumChunkLength else {
      problems.append(
        .init(
          .unsupported,
          "The PNG chunk '\(header.name)' at offset \(header.offset) is \(header.length) bytes; "
            + "only chunks up to \(PNGMetadataReader.maximumChunkLength) bytes are read."))
      return nil
    }
    let bytes = try source.bytes(at: header.dataOffset, length: header.length + 4)
    guard bytes.count >= header.length else {
      problems.append(
        .init(
          .malformed,
          "The PNG chunk '\(header.name)' at offset \(header.offset) could only be read for "
            + "\(bytes.count) of \(header.length) bytes."))
      return nil
    }
    let data = Array(bytes.prefix(header.length))
    if let stored = IntegerReader.bigEndian.uint32(bytes, at: header.length) {
      if stored != CRC32.checksum(header.type, data) {
        problems.append(
          .init(
            .malformed,
            "The PNG chunk '\(header.name)' at offset \(header.offset) fails its CRC; it was "
              + "read anyway."))
      }
    } else {
      problems.append(
        .init(
          .malformed,
          "The PNG chunk '\(header.name)' at offset \(header.offset) has no CRC (the file "
            + "ends); it was read anyway."))
    }
    return data
  }

  /// Takes the size from `IHDR`'s data: width and height, each 1 to 2^31 − 1.
  private mutating func readHeader(_ data: [UInt8]?) {
    guard let data else { return }
    guard data.count == 13, let width = IntegerReader.bigEndian.uint32(data, at: 0),
      let height = IntegerReader.bigEndian.uint32(data, at: 4)
    else {
      problems.append(
        .init(.malformed, "The PNG's IHDR chunk is \(data.count) bytes, not 13."))
      return
    }
    let limit = UInt32(PNGChunkHeader.maximumLength)
    guard (1...limit).contains(width), (1...limit).contains(height) else {
      problems.append(
        .init(
          .invalidValue,
          "The PNG's IHDR gives a size of \(width) × \(height); its size is unknown."))
      return
    }
    self.width = Int(width)
    self.height = Int(height)
  }

  /// Takes an `eXIf` chunk's TIFF bytes as the EXIF block.
  private mutating func useEXIFChunk(_ data: [UInt8], header: PNGChunkHeader) {
    guard let tiff = Self.exifTIFF(data) else {
      problems.append(
        .init(
          .malformed,
          "The PNG eXIf chunk at offset \(header.offset) does not start with a TIFF header."))
      return
    }
    exifBlock = EXIFBlock(tiff: tiff)
    exifOrigin = .exifChunk
  }

  /// Reads a text chunk's keyword and, when it names an EXIF raw profile, the profile.
  private mutating func readText(_ header: PNGChunkHeader, from source: some ByteSource)
    throws(AssetProblem)
  {
    let prefix = try source.bytes(
      at: header.dataOffset, length: min(header.length, PNGTextChunk.maximumKeywordLength + 1))
    guard let keyword = PNGTextChunk.keyword(in: prefix) else { return }
    let keywordText = String(decoding: keyword, as: Unicode.ASCII.self)
    let subject = "The PNG \(header.name) chunk '\(keywordText)' at offset \(header.offset)"
    if keywordText == PNGMetadataReader.xmpKeyword {
      if xmpPacket == nil { try readXMP(header, from: source, subject: subject) }
      return
    }
    guard exifOrigin == nil,
      PNGMetadataReader.exifProfileKeywords.contains(keywordText.lowercased()),
      !isTextBudgetSpent
    else { return }
    let budget = PNGMetadataReader.maximumTextBytesPerFile
    guard header.length < budget - textBytesSpent else {
      isTextBudgetSpent = true
      problems.appendTrippedBudget(
        .init(
          .unsupported,
          "\(subject) and any raw profile after it were not read: one PNG's raw profiles may "
            + "take \(budget >> 20) MiB in all, stored and inflated, and \(textBytesSpent) "
            + "bytes were spent."))
      return
    }
    guard let data = try load(header, from: source) else { return }
    textBytesSpent += data.count
    let limit = min(PNGMetadataReader.maximumInflatedLength, budget - textBytesSpent)
    let text: [UInt8]
    do {
      text = try PNGTextChunk(data: data, kind: header.kind, limit: limit).text
    } catch {
      // A failed inflate may have produced up to its limit before failing.
      if header.kind != .text { textBytesSpent += limit }
      guard limit < PNGMetadataReader.maximumInflatedLength else {
        problems.append(.init(error.code, "\(subject): \(error.message)"))
        return
      }
      problems.appendTrippedBudget(
        .init(
          error.code,
          "\(subject): \(error.message.dropLast()) (only \(limit) bytes were left of the "
            + "file's \(budget >> 20) MiB raw-profile budget)."))
      return
    }
    if header.kind != .text { textBytesSpent += text.count }
    let profile: RawProfile
    do {
      profile = try RawProfile(decoding: text, limit: PNGMetadataReader.maximumProfileLength)
    } catch {
      problems.append(.init(.malformed, "\(subject) is not a valid raw profile: \(error)."))
      return
    }
    if profile.trailingBytes > 0 {
      problems.append(
        .init(
          .malformed,
          "\(subject) has \(profile.trailingBytes) bytes after its declared \(profile.bytes.count) "
            + "bytes of hex; they were ignored."))
    }
    guard let tiff = Self.exifTIFF(profile.bytes) else {
      // An APP1 profile may hold XMP instead; only an exif profile must hold EXIF.
      guard keywordText.lowercased() == PNGMetadataReader.exifProfileKeywords[0] else { return }
      problems.append(
        .init(.malformed, "\(subject) holds no EXIF block (no Exif header or TIFF header)."))
      return
    }
    exifBlock = EXIFBlock(tiff: tiff)
    exifOrigin = .rawProfile(keyword: keywordText)
  }

  /// Reads the XMP packet of a text chunk with the keyword `XML:com.adobe.xmp`, up to
  /// ``XMPPacket/maximumSize`` bytes. XMP's rules for PNG put it in an uncompressed
  /// `iTXt` chunk; a compressed one, or a `tEXt`/`zTXt` one, is read all the same.
  private mutating func readXMP(
    _ header: PNGChunkHeader, from source: some ByteSource, subject: String
  ) throws(AssetProblem) {
    guard header.length <= XMPPacket.maximumSize else {
      problems.appendTrippedBudget(
        .init(
          .unsupported,
          "\(subject) is \(header.length) bytes; XMP packets are read up to "
            + "\(XMPPacket.maximumSize) bytes."))
      return
    }
    guard let data = try load(header, from: source) else { return }
    do {
      xmpPacket = try PNGTextChunk(data: data, kind: header.kind, limit: XMPPacket.maximumSize)
        .text
    } catch {
      problems.append(.init(error.code, "\(subject): \(error.message)"))
    }
  }

  /// The TIFF bytes of an EXIF block that is TIFF bytes, or `Exif\0\0` and TIFF bytes;
  /// `nil` when neither starts it.
  static func exifTIFF(_ block: [UInt8]) -> [UInt8]? {
    let identifier = EXIFBlock.identifier
    let tiff = block.starts(with: identifier) ? Array(block.dropFirst(identifier.count)) : block
    let littleEndian: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
    let bigEndian: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A]
    guard tiff.starts(with: littleEndian) || tiff.starts(with: bigEndian) else { return nil }
    return tiff
  }
}
