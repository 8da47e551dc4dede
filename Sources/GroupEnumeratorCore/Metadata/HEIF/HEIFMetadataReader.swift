/// Reads a HEIF still's (HEIC, HEIF, AVIF) metadata with our own bounds-checked box
/// reader, handing only the EXIF block to libexif (as for JPEG).
///
/// What it reads, all from the top-level `meta` box:
/// - the primary item (`pitm`) and its properties (`iprp`): the size is its `ispe`,
///   which for a `grid` is the whole canvas; `irot` and `imir` become
///   ``MediaMetadata/orientation``.
/// - the EXIF item (`iinf` item type `Exif`; the one whose `cdsc` reference points to the
///   primary item, else the first): its bytes are found through `iloc` (in the file or in
///   `idat`), its first 4 bytes give the TIFF header's offset, and the TIFF bytes go to
///   ``EXIFBlock`` (libexif, the TIFF walker, ``EXIFInterpreter``).
/// - Apple's content identifier from the EXIF MakerNote (``AppleMakerNote``).
/// - the XMP item (`mime`, content type `application/rdf+xml`, found through `iloc` like
///   the EXIF item, read up to ``XMPPacket/maximumSize`` bytes): a fallback for the date
///   and the place (``XMPFallback``), and a motion photo's description.
///
/// Size and orientation rule: ``MediaMetadata/pixelWidth`` and
/// ``MediaMetadata/pixelHeight`` are the primary item's `ispe` (the stored size, which is
/// what exiftool reports as `ImageWidth`/`ImageHeight`), never EXIF `PixelXDimension`;
/// ``MediaMetadata/orientation`` is what the primary item's `irot`/`imir` describe when it
/// has them (in HEIF the transformative properties are what a reader applies for display;
/// iPhones write both, and they agree), else EXIF `Orientation` (Samsung phones write only
/// that, and ImageIO and photo servers apply it). So ``MediaMetadata/displayedWidth`` and
/// ``MediaMetadata/displayedHeight`` are the `ispe` swapped when `irot`, or without transformative
/// properties the EXIF tag, turns the image a quarter. This agrees with exiftool's size swapped for
/// its `Rotation` 90/270, except on a file with two `irot` boxes, where exiftool's `Rotation` is
/// the one that belongs to another item (a gain map).
///
/// How it stays safe: only the top level is walked (at most ``maximumTopLevelBoxes``
/// headers, never loading `mdat`); `meta` is loaded whole only up to
/// ``maximumMetaLength``; item, extent, property and reference counts are bounded by each
/// box type; every offset sum is overflow-checked and every extent checked against the
/// file (or `idat`) before it is read; the EXIF item is read only up to
/// ``maximumEXIFLength``.
enum HEIFMetadataReader {
  /// The most top-level boxes looked at before `meta`.
  static let maximumTopLevelBoxes = 1 << 16
  /// The largest `meta` box content loaded; real ones are a few kilobytes.
  static let maximumMetaLength = 4 << 20
  /// The largest EXIF item read; real ones are a few kilobytes.
  static let maximumEXIFLength = 1 << 20
  /// The most children of `meta` looked at.
  static let maximumMetaChildren = 4096

  /// Reads everything the engine needs from a HEIF still. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size, orientation, whether the EXIF block
  ///   has a thumbnail and Apple's content identifier, with the problems found.
  static func read(from source: some ByteSource) -> MediaMetadata {
    switch readStructure(from: source) {
    case .success(let structure): return metadata(of: structure, source: source)
    case .failure(let missing):
      var metadata = MediaMetadata()
      metadata.problemLog = missing.problems
      return metadata
    }
  }

  /// Reads a file that sniffed as HEIC or AVIF, or returns `nil` when it has no top-level
  /// `meta` box or no primary item, so that the caller may try another reader.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: What ``read(from:)`` returns, or `nil`.
  static func readIfStructured(from source: some ByteSource) -> MediaMetadata? {
    switch readStructure(from: source) {
    case .success(let structure): return metadata(of: structure, source: source)
    case .failure: return nil
    }
  }

  /// The EXIF (IFD1) thumbnail stored in a HEIF still's Exif item, byte for byte.
  ///
  /// Only that JPEG is returned. A HEIF file's own thumbnail items (`thmb` references)
  /// are coded like the image itself, HEVC or AV1, not JPEG;
  /// they would have to be decoded and re-encoded, so they are never returned.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: The thumbnail, or `nil` when the file has no Exif item or its EXIF block
  ///   has no thumbnail (or cannot be read).
  static func thumbnail(from source: some ByteSource) -> [UInt8]? {
    guard case .success(let structure) = readStructure(from: source),
      let item = exifItemID(in: structure),
      let block = try? itemBytes(
        item, structure: structure, source: source, limit: maximumEXIFLength)
    else { return nil }
    var problems = ProblemLog()
    guard let tiff = tiffBlock(inEXIFItem: block, itemID: item, problems: &problems) else {
      return nil
    }
    return EXIFBlock(tiff: tiff).thumbnail
  }

  // MARK: - Structure

  /// The parts of `meta` the reader uses.
  struct Structure {
    var metaHeader: BoxHeader
    var primaryItemID: UInt32
    var handler: FourCharacterCode?
    var items: [ItemInfoEntry] = []
    var locations: ItemLocationBox?
    var properties: ItemPropertiesBox?
    var references: [ItemReferenceBox.Reference] = []
    var itemData: BoxContent?
    var problems = ProblemLog()
  }

  /// Why a file has no HEIF structure to read, with the problems found on the way.
  struct MissingStructure: Error {
    var problems: ProblemLog
  }

  /// The `meta` box's parts, or the problems that mean there is no HEIF structure to read
  /// (no `meta`, no `pitm`).
  static func readStructure(from source: some ByteSource) -> Result<Structure, MissingStructure> {
    let reader = BoxReader(source: source)
    var problems = ProblemLog()
    var boxes = BoxIterator(topLevelOf: reader)
    var metaHeader: BoxHeader?
    var seen = 0
    while metaHeader == nil, seen < maximumTopLevelBoxes {
      do {
        guard let header = try boxes.next() else { break }
        seen += 1
        if header.type == .metadata { metaHeader = header }
      } catch {
        problems.append(error.assetProblem)
        break
      }
    }
    guard let metaHeader else {
      if seen == maximumTopLevelBoxes {
        problems.appendTrippedBudget(
          .init(
            .unsupported,
            "The file has no 'meta' box among its first \(maximumTopLevelBoxes) top-level "
              + "boxes; the rest were not read."))
        return .failure(MissingStructure(problems: problems))
      }
      problems.append(.init(.malformed, "The file has no top-level 'meta' box, so no HEIF items."))
      return .failure(MissingStructure(problems: problems))
    }
    if let truncation = metaHeader.truncation { problems.append(truncation.assetProblem) }
    let children: [BoxContent]
    do {
      let meta = try reader.content(of: metaHeader, limit: maximumMetaLength)
      children = try meta.children(from: 4, limit: maximumMetaChildren)
    } catch {
      problems.append(error.assetProblem)
      return .failure(MissingStructure(problems: problems))
    }
    guard
      let pitm = children.first(where: { $0.header.type == .primaryItem }),
      let primary = parse(pitm, problems: &problems, PrimaryItemBox.init(parsing:))
    else {
      problems.append(
        .init(.malformed, "The 'meta' box at offset \(metaHeader.offset) names no primary item."))
      return .failure(MissingStructure(problems: problems))
    }
    var structure = Structure(metaHeader: metaHeader, primaryItemID: primary.itemID)
    structure.problems = problems
    for child in children {
      if let truncation = child.header.truncation {
        structure.problems.append(truncation.assetProblem)
      }
      switch child.header.type {
      case .handler where structure.handler == nil:
        structure.handler =
          parse(child, problems: &structure.problems, HandlerBox.init(parsing:))?.handlerType
      case .itemInfo where structure.items.isEmpty:
        if let box = parse(child, problems: &structure.problems, ItemInfoBox.init(parsing:)) {
          structure.items = box.entries
          structure.problems.append(contentsOf: box.skipped.lazy.map(\.assetProblem))
        }
      case .itemLocation where structure.locations == nil:
        structure.locations = parse(
          child, problems: &structure.problems, ItemLocationBox.init(parsing:))
      case .itemProperties where structure.properties == nil:
        structure.properties = parse(
          child, problems: &structure.problems, ItemPropertiesBox.init(parsing:))
        structure.problems.append(
          contentsOf: structure.properties?.skipped.map(\.assetProblem) ?? [])
      case .itemReference where structure.references.isEmpty:
        structure.references =
          parse(child, problems: &structure.problems, ItemReferenceBox.init(parsing:))?
          .references ?? []
      case .itemData where structure.itemData == nil:
        structure.itemData = child
      default: break
      }
    }
    if let handler = structure.handler, handler != .pictureHandler {
      structure.problems.append(
        .init(
          .malformed,
          "The 'meta' box's handler is '\(handler)', not 'pict'; its items were read anyway."))
    }
    return .success(structure)
  }

  /// Parses one box, reporting a failure as a problem.
  private static func parse<Box>(
    _ content: BoxContent, problems: inout ProblemLog,
    _ parse: (BoxContent) throws(BoxParsingError) -> Box
  ) -> Box? {
    do {
      return try parse(content)
    } catch {
      problems.append(error.assetProblem)
      return nil
    }
  }
}

extension HEIFMetadataReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }

  static func thumbnail(from source: some ByteSource, format: MediaFormat) -> [UInt8]? {
    thumbnail(from: source)
  }
}
