extension HEIFMetadataReader {
  // MARK: - Metadata

  static func metadata(of structure: Structure, source: some ByteSource) -> MediaMetadata {
    var metadata = MediaMetadata()
    metadata.problemLog = structure.problems
    let primary = structure.primaryItemID
    if !structure.items.isEmpty, !structure.items.contains(where: { $0.itemID == primary }) {
      metadata.report(
        .init(.malformed, "The primary item \(primary) has no entry in 'iinf'."))
    }
    var size: ImageSpatialExtentsProperty?
    var transform = HEIFTransform()
    var isTransformed = false
    for property in structure.properties?.properties(of: primary) ?? [] {
      switch property {
      case .spatialExtents(let extents) where size == nil: size = extents
      case .rotation(let rotation):
        transform.apply(rotation)
        isTransformed = true
      case .mirror(let mirror):
        transform.apply(mirror)
        isTransformed = true
      case .malformed(let error): metadata.report(error.assetProblem)
      default: break
      }
    }
    let width = size.flatMap { Int(exactly: $0.width) }.flatMap { $0 > 0 ? $0 : nil }
    let height = size.flatMap { Int(exactly: $0.height) }.flatMap { $0 > 0 ? $0 : nil }
    if width == nil || height == nil {
      metadata.report(
        .init(
          .malformed,
          "The primary item \(primary) has no 'ispe' property with a non-zero size; its size "
            + "is unknown."))
    }
    let orientation = isTransformed ? transform.exifOrientation : nil
    if let exifItem = exifItemID(in: structure) {
      readEXIF(item: exifItem, structure: structure, source: source, into: &metadata)
    }
    readXMP(structure: structure, source: source, into: &metadata)
    // The item's own size decides, whatever EXIF said (PixelXDimension). Its `irot`/`imir`
    // decide the orientation when it has any; without them, EXIF Orientation does, as
    // Apple's ImageIO and photo servers apply it (Samsung phones write only the EXIF tag).
    metadata.pixelWidth = width
    metadata.pixelHeight = height
    if isTransformed { metadata.orientation = orientation }
    return metadata
  }

  /// The XMP item (`mime`, `application/rdf+xml`): the one describing (`cdsc`) the
  /// primary item, else the first.
  static func xmpItemID(in structure: Structure) -> UInt32? {
    let xmpItems = structure.items.filter {
      $0.itemType == .mimeItem && $0.contentType == "application/rdf+xml"
    }.map(\.itemID)
    guard !xmpItems.isEmpty else { return nil }
    let describing = structure.references.first { reference in
      reference.type == .contentDescribes && xmpItems.contains(reference.fromItemID)
        && reference.toItemIDs.contains(structure.primaryItemID)
    }
    return describing?.fromItemID ?? xmpItems.first
  }

  /// Where the HEIF's own data ends: after the `meta` box and every item's extents in the
  /// file; a motion photo's video lies after it.
  static func imageEnd(of structure: Structure, fileSize: Int) -> Int {
    var end = structure.metaHeader.end
    for location in structure.locations?.locations ?? []
    where location.constructionMethod == .fileOffset {
      for extent in location.extents {
        let (start, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
        guard !overflow, extent.length > 0 else { return fileSize }
        let (last, tooFar) = start.addingReportingOverflow(extent.length)
        guard !tooFar, let last = Int(exactly: last) else { return fileSize }
        end = max(end, last)
      }
    }
    return end
  }

  /// Reads the XMP item: a fallback for the date and the place (``XMPFallback``), and
  /// whether the file is a motion photo, and where its video is.
  ///
  /// An XMP item that cannot be read is reported only when the file's EXIF left a gap
  /// the packet could have filled; a motion photo's description alone is not worth a
  /// problem on every still whose XMP is damaged.
  private static func readXMP(
    structure: Structure, source: some ByteSource, into metadata: inout MediaMetadata
  ) {
    guard let item = xmpItemID(in: structure) else { return }
    let packet: [UInt8]
    do {
      packet = try itemBytes(
        item, structure: structure, source: source, limit: XMPPacket.maximumSize,
        kind: "XMP")
    } catch {
      if !XMPFallback.gaps(in: metadata).isEmpty { metadata.report(error) }
      return
    }
    let parsed = XMPFallback.apply(packet, to: &metadata)
    // A HEIC motion photo keeps its video in a top-level `mpvd` box, which the XMP's
    // lengths do not describe; only without one is the video looked for at the end.
    if MotionPhotoLocator.mayDescribeMotionPhoto(packet),
      let video = motionPhotoVideoBox(in: source)
    {
      switch video {
      case .success(let range): metadata.embeddedVideoRange = range
      case .failure(let problem): metadata.report(problem)
      }
      return
    }
    MotionPhotoLocator.apply(
      packet, parsed: parsed, in: source,
      imageEnd: imageEnd(of: structure, fileSize: source.count), to: &metadata)
  }

  /// The content of the first top-level `mpvd` box, when it holds an MP4 (its first box is
  /// `ftyp`) and lies whole in the file; a problem when it does not; `nil` when there is
  /// no such box among the first ``maximumTopLevelBoxes``. One header read per box.
  static func motionPhotoVideoBox(in source: some ByteSource) -> Result<Range<Int>, AssetProblem>? {
    var boxes = BoxIterator(topLevelOf: BoxReader(source: source))
    for _ in 0..<maximumTopLevelBoxes {
      guard let header = try? boxes.next() else { return nil }
      guard header.type == .motionPhotoVideo else { continue }
      let range = header.contentRange
      let start = (try? source.bytes(at: range.lowerBound, length: 8)) ?? []
      guard header.truncation == nil, range.count >= 8, start.count == 8,
        Array(start[4..<8]) == Array("ftyp".utf8)
      else {
        return .failure(
          AssetProblem(
            .malformed,
            "The motion photo's 'mpvd' box at offset \(header.offset) does not hold a whole MP4; "
              + "no video was paired."))
      }
      return .success(range)
    }
    return nil
  }

  /// The EXIF item to read: the one describing (`cdsc`) the primary item, else the first.
  static func exifItemID(in structure: Structure) -> UInt32? {
    let exifItems = structure.items.filter { $0.itemType == .exifItem }.map(\.itemID)
    let describing = structure.references.first { reference in
      reference.type == .contentDescribes && exifItems.contains(reference.fromItemID)
        && reference.toItemIDs.contains(structure.primaryItemID)
    }
    return describing?.fromItemID ?? exifItems.first
  }

  private static func readEXIF(
    item: UInt32, structure: Structure, source: some ByteSource,
    into metadata: inout MediaMetadata
  ) {
    let block: [UInt8]
    do {
      block = try itemBytes(item, structure: structure, source: source, limit: maximumEXIFLength)
    } catch {
      metadata.report(error)
      return
    }
    guard let tiff = tiffBlock(inEXIFItem: block, itemID: item, problems: &metadata.problemLog)
    else { return }
    // The MakerNote is also looked up directly: libexif skips one stored as BYTE.
    EXIFBlock(tiff: tiff).read(into: &metadata, locatesMakerNote: true)
  }

  /// The TIFF block inside an EXIF item's bytes: after the 4-byte big-endian offset to the
  /// TIFF header that starts the item, skipping an `Exif\0\0`
  /// identifier that some writers leave in front of it.
  static func tiffBlock(inEXIFItem block: [UInt8], itemID: UInt32, problems: inout ProblemLog)
    -> [UInt8]?
  {
    guard let offset = IntegerReader.bigEndian.uint32(block, at: 0) else {
      problems.append(
        .init(
          .malformed,
          "The Exif item \(itemID) is \(block.count) bytes, too short for its "
            + "4-byte TIFF header offset."))
      return nil
    }
    guard let skip = Int(exactly: offset), skip < block.count - 4 else {
      problems.append(
        .init(
          .malformed,
          "The Exif item \(itemID)'s TIFF header offset \(offset) lies past its "
            + "\(block.count - 4) bytes of data."))
      return nil
    }
    let tiff = block[(4 + skip)...]
    let identifier = EXIFBlock.identifier
    return Array(tiff.starts(with: identifier) ? tiff.dropFirst(identifier.count) : tiff)
  }

  /// An item's bytes, gathered from its extents in the file or in `idat`.
  ///
  /// - Throws: An ``AssetProblem`` when the item has no location, its data lies elsewhere
  ///   (another file, other items), an extent lies outside the file or `idat`, an offset
  ///   overflows, or the item is longer than `limit`.
  static func itemBytes(
    _ itemID: UInt32, structure: Structure, source: some ByteSource, limit: Int,
    kind: String = "Exif"
  ) throws(AssetProblem) -> [UInt8] {
    let name = "The \(kind) item \(itemID)"
    guard let location = structure.locations?.location(of: itemID) else {
      throw AssetProblem(.malformed, "\(name) has no entry in 'iloc'.")
    }
    // The byte range the offsets count into, in file offsets.
    let space: Range<Int>
    switch location.constructionMethod {
    case .fileOffset:
      guard location.dataReferenceIndex == 0 else {
        throw AssetProblem(
          .unsupported,
          "\(name) lies in another file (data_reference_index \(location.dataReferenceIndex)); "
            + "it was not read.")
      }
      space = 0..<max(0, source.count)
    case .itemDataOffset:
      guard let itemData = structure.itemData else {
        throw AssetProblem(.malformed, "\(name) lies in 'idat', but the 'meta' box has none.")
      }
      let start = itemData.header.contentRange.lowerBound
      space = start..<(start + itemData.count)
    case .itemOffset:
      throw AssetProblem(
        .unsupported, "\(name) is built from other items (construction method 2); not read.")
    case .reserved(let method):
      throw AssetProblem(
        .malformed, "\(name) has construction method \(method), which is reserved.")
    }
    guard !location.extents.isEmpty else {
      throw AssetProblem(.malformed, "\(name) has no extents.")
    }
    var ranges: [Range<Int>] = []
    var total = 0
    for extent in location.extents {
      let (relative, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
      guard !overflow, let offset = Int(exactly: relative),
        offset <= space.count
      else {
        throw AssetProblem(
          .malformed,
          "\(name)'s extent offset \(location.baseOffset) + \(extent.offset) lies past the "
            + "end of its data (\(space.count) bytes).")
      }
      let available = space.count - offset
      let length: Int
      if extent.length == 0 {
        length = available
      } else {
        guard let declared = Int(exactly: extent.length), declared <= available else {
          throw AssetProblem(
            .malformed,
            "\(name)'s extent at \(relative), \(extent.length) bytes long, runs past the end "
              + "of its data (\(space.count) bytes).")
        }
        length = declared
      }
      guard length <= limit - total else {
        throw AssetProblem(
          .unsupported,
          "\(name) is more than \(limit) bytes long; only \(kind) items up to that size are read.")
      }
      total += length
      let start = space.lowerBound + offset
      ranges.append(start..<(start + length))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(total)
    for range in ranges {
      if let itemData = structure.itemData, location.constructionMethod == .itemDataOffset {
        let base = itemData.header.contentRange.lowerBound
        bytes += itemData.bytes[(range.lowerBound - base)..<(range.upperBound - base)]
        continue
      }
      let chunk: [UInt8]
      do {
        chunk = try BoxReader(source: source).read(at: range.lowerBound, length: range.count)
      } catch {
        throw error.assetProblem
      }
      guard chunk.count == range.count else {
        throw AssetProblem(
          .malformed,
          "\(name)'s extent at offset \(range.lowerBound) could only be read for \(chunk.count) "
            + "of \(range.count) bytes.")
      }
      bytes += chunk
    }
    return bytes
  }
}
