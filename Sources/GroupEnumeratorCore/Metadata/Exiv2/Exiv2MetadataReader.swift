/// Reads the metadata of still images other than JPEG through gexiv2 (exiv2 0.27.6).
///
/// Only an allowlist of still-image formats ever reaches gexiv2
/// (``isAllowed(_:)``): Debian's exiv2 is built with its old video code enabled, which has
/// memory-corruption bugs, so no movie (or anything else) is handed to it. The file's head
/// (at most ``maximumInputLength`` bytes) is read into memory by bounded reads (never
/// mapped, never opened by path) while holding ``Exiv2Session``'s lock, parsed with
/// `gexiv2_metadata_open_buf` behind the catch-all shim, and every call is serialised by
/// ``Exiv2Session``.
///
/// gexiv2 only finds the tags; their values are checked by the same code as the JPEG
/// reader's: the tags are put into an ``EXIFTagTable`` and handed to
/// ``EXIFInterpreter`` (dates, offsets, sub-seconds, GPS rationals, orientation). Where
/// the EXIF has no date or no place, the XMP packet exiv2 found (TIFF tag 700, WebP's
/// `XMP ` chunk, a RAW's XMP) is parsed by ``XMPPacket`` and applied by ``XMPFallback``.
///
/// gexiv2 runs in-process rather than in a child process: exiv2's own crash and regression
/// files that reach this reader neither crash nor hang it, and the `std::overflow_error`
/// some of them raise becomes a problem through the shim's `catch (...)`
/// (docs/Robustness.md has the figures).
///
/// Known limits of exiv2 0.27.6: for HEIF it reports EXIF `PixelXDimension` as the pixel
/// size when present, else the first `ispe` box (a grid's tile); it ignores `iloc` extent
/// offsets, so it misses EXIF items placed that way (libheif + exiftool files); it reads
/// no EXIF from CR3 here, no size from JPEG XL, and nothing from BigTIFF.
enum Exiv2MetadataReader {
  /// The most bytes of one file gexiv2 is given: the file's head, read into memory under
  /// ``Exiv2Session``'s lock, so one such buffer at most is alive at once. exiv2 needs the header
  /// area (IFDs, maker notes, previews), not the image data after it: camera RAWs keep their IFDs
  /// and previews in their first few megabytes (docs/Robustness.md has the figures). 64 MiB leaves
  /// a wide margin, and holds the whole of most camera RAWs. A larger file is read from its head;
  /// when exiv2 then cannot parse it or finds no size, an `unsupported` problem says that its
  /// metadata may lie past the first 64 MiB.
  static let maximumInputLength = 64 << 20

  /// Whether files of `format` are read by this reader.
  ///
  /// PNG, TIFF, WebP, HEIC, AVIF, TIFF-based RAWs and CR3, and JPEG XL in its container
  /// form. GIF and BMP are not: exiv2 0.27.6 reads no metadata from them. Movies never.
  static func isAllowed(_ format: MediaFormat) -> Bool {
    switch format {
    case .png, .tiff, .webp, .heic, .avif, .raw, .jpegXL: true
    case .jpeg, .gif, .bmp, .psd, .jpeg2000, .quickTime, .mp4, .m4v, .threeGPP, .avi, .matroska,
      .mpegTransportStream, .windowsMedia:
      false
    }
  }

  /// Reads everything the engine needs from a still image. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameters:
  ///   - source: The file's bytes.
  ///   - format: The format the content sniffed as.
  /// - Returns: Dates, location, stored pixel size, orientation, whether an EXIF
  ///   thumbnail exists and Apple's content identifier, with the problems found.
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    var metadata = MediaMetadata()
    guard isAllowed(format) else {
      metadata.report(
        .init(.unsupported, "Metadata of \(format.rawValue) files is not read by exiv2."))
      return metadata
    }
    if format == .jpegXL {
      do {
        if try source.bytes(at: 0, length: 2) == [0xFF, 0x0A] {
          return metadata  // A bare JPEG XL codestream has no place for metadata.
        }
      } catch {
        metadata.report(error)
        return metadata
      }
    }
    let isCut = source.count > maximumInputLength
    do {
      let packet: [UInt8]?
      (metadata, packet) = try Exiv2Session.withImage(loading: { () throws(AssetProblem) in
        try head(of: source)
      }) { image in
        read(image)
      }
      // Parsed after gexiv2's lock is released: our own parser needs no serialising.
      if let packet { XMPFallback.apply(packet, to: &metadata) }
    } catch {
      switch error {
      case .unreadable(let problem): metadata.report(problem)
      case .exiv2(let failure):
        metadata.report(problem(for: failure, format: format))
        if isCut { metadata.reportTrippedBudget(cutProblem(count: source.count)) }
      }
      return metadata
    }
    if requiresPixelSize(format), metadata.pixelWidth == nil || metadata.pixelHeight == nil {
      if isCut {
        metadata.reportTrippedBudget(cutProblem(count: source.count))
        return metadata
      }
      metadata.report(
        .init(
          .malformed,
          "exiv2 found no image size in this \(format.rawValue) file; it is damaged."))
    }
    return metadata
  }

  /// The problem of a file larger than ``maximumInputLength`` whose head did not hold
  /// what exiv2 needs.
  static func cutProblem(count: Int) -> AssetProblem {
    AssetProblem(
      .unsupported,
      "The file is \(count) bytes; exiv2 reads only its first \(maximumInputLength >> 20) "
        + "MiB, and its metadata may lie past them.")
  }

  /// Whether every readable file of `format` has a pixel size exiv2 finds: TIFF and the
  /// TIFF-based RAWs (`ImageWidth` and `ImageLength` are required in IFD0)
  /// and WebP (every `VP8`/`VP8L`/`VP8X` chunk holds one). Not JPEG XL, whose size
  /// exiv2 0.27.6 never reports, nor the formats the engine gives our own readers.
  static func requiresPixelSize(_ format: MediaFormat) -> Bool {
    switch format {
    case .tiff, .raw, .webp: true
    default: false
    }
  }

  /// The largest JPEG preview embedded in a still image (a camera RAW's full-size or
  /// reduced preview, or the EXIF thumbnail), byte for byte; without one, the EXIF
  /// thumbnail's bytes whatever they hold.
  ///
  /// - Parameters:
  ///   - source: The file's bytes.
  ///   - format: The format the content sniffed as; only allowlisted formats are read.
  /// - Returns: The preview's bytes and the size exiv2 reports for it, or `nil` when the
  ///   file has neither (or is not allowlisted).
  /// - Throws: An ``AssetProblem`` when the file cannot be read or parsed.
  static func largestJPEGPreview(
    from source: some ByteSource, format: MediaFormat
  ) throws(AssetProblem) -> (bytes: [UInt8], width: Int, height: Int)? {
    guard isAllowed(format) else { return nil }
    do {
      return try Exiv2Session.withImage(loading: { () throws(AssetProblem) in
        try head(of: source)
      }) { image in
        if case .value(let preview) = image.largestJPEGPreview { return preview }
        // No JPEG preview, yet an EXIF thumbnail that is not one (exiv2 lists only
        // valid previews): returned unchanged, as for a JPEG's IFD1.
        if case .value(let thumbnail) = image.exifThumbnail { return (thumbnail, 0, 0) }
        return nil
      }
    } catch {
      switch error {
      case .unreadable(let problem): throw problem
      case .exiv2(let failure): throw problem(for: failure, format: format)
      }
    }
  }

  /// The first ``maximumInputLength`` bytes of `source` (all of a smaller file), read in
  /// bounded chunks.
  private static func head(of source: some ByteSource) throws(AssetProblem) -> [UInt8] {
    guard source.count > 0 else { throw AssetProblem(.emptyFile, "The file is empty.") }
    let count = min(source.count, maximumInputLength)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count < count {
      let chunk = try source.bytes(at: bytes.count, length: min(8 << 20, count - bytes.count))
      if chunk.isEmpty { break }  // The file shrank while being read: parse what is there.
      bytes += chunk
    }
    return bytes
  }

  /// The problem for a gexiv2 failure: gexiv2 missing means this format cannot be read here;
  /// "unknown image type" means the content is not a format exiv2 knows; anything else is a
  /// malformed file.
  private static func problem(for failure: Exiv2Failure, format: MediaFormat) -> AssetProblem {
    let text = failure.message
    if failure.isUnavailable {
      return AssetProblem(
        .unsupported, "exiv2, which reads this \(format.rawValue) file, is not available: \(text).")
    }
    let unknown = ["unknown image type", "not supported", "not an image"].contains {
      text.lowercased().contains($0)
    }
    return AssetProblem(
      unknown ? .unrecognizedFormat : .malformed,
      "exiv2 could not read this \(format.rawValue) file: \(text).")
  }

  // MARK: - Fields

  /// Everything the engine needs from an opened image, and its XMP packet when the EXIF
  /// left a gap the packet may fill (``XMPFallback``).
  private static func read(_ image: borrowing Exiv2Image) -> (MediaMetadata, [UInt8]?) {
    var metadata = MediaMetadata()
    if let size = image.pixelSize {
      metadata.pixelWidth = size.width
      metadata.pixelHeight = size.height
    }
    var table = EXIFTagTable()
    for key in EXIFTag.interpreted {
      guard let name = keyName(key) else { continue }
      switch value(of: key.tag, named: name, in: image) {
      case .value(let value):
        table.values[key] = value
        table.entryCounts[key.directory, default: 0] += 1
      case .absent, .wrongShape: break
      case .failed(let message):
        metadata.report(.init(.malformed, "exiv2 could not read \(name): \(message)."))
      }
    }
    // `hasThumbnail` means "AssetsLibrary.thumbnail(for:) returns bytes": for these
    // formats that is the largest JPEG preview exiv2 lists (the EXIF thumbnail among them).
    table.hasThumbnail = image.hasThumbnail || image.hasJPEGPreview
    EXIFInterpreter.apply(table, to: &metadata)
    if metadata.orientation == nil, table[.ifd0, EXIFTag.orientation] == nil {
      metadata.orientation = image.orientation  // XMP tiff:Orientation, for PNG and WebP.
    }
    guard !XMPFallback.gaps(in: metadata).isEmpty else { return (metadata, nil) }
    switch image.xmpPacket {
    case .value(let packet): return (metadata, packet)
    case .absent, .wrongShape: return (metadata, nil)
    case .failed(let message):
      metadata.report(.init(.malformed, "exiv2 could not read the XMP packet: \(message)."))
      return (metadata, nil)
    }
  }

  /// exiv2's key for a tag: `Exif.Photo.0x9003` (exiv2 reads the number and matches it
  /// whatever the tag's name).
  private static func keyName(_ key: EXIFTagTable.Key) -> String? {
    let group: String
    switch key.directory {
    case .ifd0: group = "Image"
    case .exif: group = "Photo"
    case .gps: group = "GPSInfo"
    case .ifd1: return nil
    }
    let hex = String(key.tag, radix: 16)
    return "Exif.\(group).0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }

  /// The kinds of value the interpreter expects, by tag.
  private enum Kind {
    case ascii, cameraText, rationals, short, byte, long, undefined
  }

  private static func kind(of tag: UInt16, named name: String) -> Kind {
    switch tag {
    case EXIFTag.gpsLatitude where name.hasPrefix("Exif.GPSInfo"),
      EXIFTag.gpsLongitude where name.hasPrefix("Exif.GPSInfo"),
      EXIFTag.gpsAltitude where name.hasPrefix("Exif.GPSInfo"):
      .rationals
    case EXIFTag.gpsAltitudeRef where name.hasPrefix("Exif.GPSInfo"): .byte
    case EXIFTag.orientation: .short
    case EXIFTag.pixelXDimension, EXIFTag.pixelYDimension: .long
    case EXIFTag.makerNote: .undefined
    case EXIFTag.make where name.hasPrefix("Exif.Image"),
      EXIFTag.model where name.hasPrefix("Exif.Image"),
      EXIFTag.lensModel where name.hasPrefix("Exif.Photo"):
      .cameraText
    default: .ascii
    }
  }

  /// One tag's value as an ``TIFFValue`` of the type the interpreter expects, or of
  /// another type (`.other`) when exiv2's value is not of that shape.
  private static func value(
    of tag: UInt16, named name: String, in image: borrowing Exiv2Image
  ) -> Exiv2Image.Lookup<TIFFValue> {
    switch kind(of: tag, named: name) {
    case .ascii:
      return map(image.bytes(name)) { .ascii($0) }
    case .cameraText:
      // exiv2 0.27.6 hands out another entry's bytes for an entry whose value lies past
      // the end of the file (a cut Sony ARW's LensModel came back as its PrintIM block):
      // text followed by anything but padding after its NUL is not this tag's value.
      switch image.bytes(name) {
      case .value(let bytes):
        let afterText = bytes.drop { $0 != 0 }
        guard afterText.allSatisfy({ $0 == 0 || $0 == 0x20 }) else {
          return .failed("its value holds bytes after the text's NUL, not text")
        }
        return .value(.ascii(bytes))
      case .absent: return .absent
      case .wrongShape: return .wrongShape
      case .failed(let message): return .failed(message)
      }
    case .undefined:
      return map(image.bytes(name)) {
        .undefined(Array($0.prefix(TIFFValue.maximumUndefinedLength)))
      }
    case .rationals:
      switch image.rationals(name) {
      case .value(let parts): return .value(rationalValue(parts))
      case .wrongShape: return .value(.other(type: 0))
      case .absent: return .absent
      case .failed(let message): return .failed(message)
      }
    case .short:
      return map(image.string(name)) { text in
        integers(text).flatMap { UInt16(exactly: $0) }.map { .short([$0]) } ?? .other(type: 0)
      }
    case .byte:
      return map(image.string(name)) { text in
        integers(text).flatMap { UInt8(exactly: $0) }.map { .byte([$0]) } ?? .other(type: 0)
      }
    case .long:
      return map(image.string(name)) { text in
        integers(text).flatMap { UInt32(exactly: $0) }.map { .long([$0]) } ?? .other(type: 0)
      }
    }
  }

  private static func map(
    _ lookup: Exiv2Image.Lookup<[UInt8]>, _ transform: ([UInt8]) -> TIFFValue
  ) -> Exiv2Image.Lookup<TIFFValue> {
    switch lookup {
    case .value(let bytes): .value(transform(bytes))
    case .absent: .absent
    case .wrongShape: .wrongShape
    case .failed(let message): .failed(message)
    }
  }

  /// The single unsigned decimal integer `text` holds, or `nil`.
  private static func integers(_ text: [UInt8]) -> UInt64? {
    guard !text.isEmpty, text.count <= 19,
      text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else { return nil }
    return text.reduce(0) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
  }

  /// A rational value: `RATIONAL` when every part fits an unsigned 32-bit integer,
  /// `SRATIONAL` when a part is negative (the interpreter then rejects it), else `.other`.
  private static func rationalValue(
    _ parts: [(numerator: Int64, denominator: Int64)]
  ) -> TIFFValue {
    let unsigned = parts.compactMap { part -> TIFFRational? in
      guard let top = UInt32(exactly: part.numerator),
        let bottom = UInt32(exactly: part.denominator)
      else { return nil }
      return TIFFRational(numerator: top, denominator: bottom)
    }
    if unsigned.count == parts.count { return .rational(unsigned) }
    let signed = parts.compactMap { part -> TIFFSignedRational? in
      guard let top = Int32(exactly: part.numerator), let bottom = Int32(exactly: part.denominator)
      else { return nil }
      return TIFFSignedRational(numerator: top, denominator: bottom)
    }
    return signed.count == parts.count ? .signedRational(signed) : .other(type: 0)
  }

}

extension Exiv2MetadataReader: MetadataReader {
  /// The largest JPEG preview exiv2 finds (``largestJPEGPreview(from:format:)``).
  static func thumbnail(from source: some ByteSource, format: MediaFormat) throws(AssetProblem)
    -> [UInt8]?
  {
    try largestJPEGPreview(from: source, format: format)?.bytes
  }
}
