internal import CDeferredLibraries
internal import CLibExif
internal import CLibExifArena

/// Reads an EXIF block through libexif and copies the interpreted tags out as Swift values.
///
/// libexif is loaded with its "follow the specification" and "ignore unknown tags" options
/// off: with them on, it adds tags that are not in the file and drops a `DateTimeOriginal`
/// stored in IFD0. Values are read from each entry's raw bytes, bounded by the entry's
/// size, and decoded with the block's byte order; `exif_entry_get_value` is never called,
/// nor anything in a MakerNote.
enum LibExifReader {
  /// Why libexif cannot be used, or `nil` when it can: it is opened with dlopen on first
  /// use (`CDeferredLibraries`), once for the process.
  static let unavailable: String? = CDeferredLibraries_libexif().map { String(cString: $0) }

  /// Decodes the tags listed in ``EXIFTag/interpreted`` from an `APP1` payload.
  ///
  /// - Parameter payload: The payload starting with `Exif\0\0`, at most 65,533 bytes.
  /// - Returns: The tags found; an empty table when libexif could not load anything.
  ///   The corresponding C functions are `exif_data_new` and `exif_data_load_data`.
  static func read(payload: [UInt8]) -> EXIFTagTable {
    withLoaded(payload: payload) { data in
      data.map(table(of:)) ?? EXIFTagTable()
    }
  }

  /// The bytes of the IFD1 thumbnail (a JPEG), exactly as stored.
  ///
  /// - Parameter payload: The payload starting with `Exif\0\0`.
  /// - Returns: The thumbnail, or `nil` when the block has none, or when its bytes do not
  ///   start like a JPEG (`FF D8`).
  static func thumbnail(payload: [UInt8]) -> [UInt8]? {
    withLoaded(payload: payload) { data in
      guard let data, let bytes = data.pointee.data, data.pointee.size >= 2,
        bytes[0] == 0xFF, bytes[1] == 0xD8
      else { return nil }
      return Array(UnsafeBufferPointer(start: bytes, count: Int(data.pointee.size)))
    }
  }

  /// Loads `payload` into a fresh `ExifData` with the inventing options off, runs `body`,
  /// and releases the data on every path. `body` gets `nil` when libexif has no memory.
  private static func withLoaded<Result>(
    payload: [UInt8], _ body: (UnsafeMutablePointer<ExifData>?) -> Result
  ) -> Result {
    // The thread's arena holds every block libexif allocates for the data (no malloc
    // per entry); `body` copies what it needs out before the data is released.
    guard let data = CLibExifArena_data_new() else { return body(nil) }
    defer { CLibExifArena_data_free(data) }
    exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
    exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
    payload.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress, let size = UInt32(exactly: buffer.count) else { return }
      exif_data_load_data(data, base, size)
    }
    return body(data)
  }

  private static func table(of data: UnsafeMutablePointer<ExifData>) -> EXIFTagTable {
    var table = EXIFTagTable()
    let order = exif_data_get_byte_order(data)
    for directory in EXIFDirectory.allCases {
      table.entryCounts[directory] = Int(CLibExif_entry_count(data, directory.libExifIFD))
    }
    for key in EXIFTag.interpreted {
      guard
        let entry = CLibExif_entry(
          data, key.directory.libExifIFD, ExifTag(rawValue: UInt32(key.tag)))
      else { continue }
      table.values[key] = value(of: entry.pointee, order: order)
    }
    // Only bytes that start like a JPEG are a thumbnail (`exiftool -b -ThumbnailImage`
    // refuses the others without -m); other IFD1 bytes are reported, not offered.
    if let bytes = data.pointee.data, data.pointee.size > 0 {
      if data.pointee.size >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 {
        table.hasThumbnail = true
      } else {
        table.nonJPEGThumbnailLength = Int(data.pointee.size)
      }
    }
    return table
  }

  /// The most components decoded for a numeric value; the interpreted tags need at most 3.
  private static let maximumComponents = 16

  /// Decodes one entry's raw bytes, after checking that its size covers its components.
  private static func value(of entry: ExifEntry, order: ExifByteOrder) -> TIFFValue? {
    guard let bytes = entry.data, let components = Int(exactly: entry.components) else {
      return nil
    }
    let size = Int(entry.size)
    let type = UInt16(truncatingIfNeeded: entry.format.rawValue)
    let unit = Int(exif_format_get_size(entry.format))
    guard unit > 0 else { return .other(type: type) }
    let (needed, overflow) = components.multipliedReportingOverflow(by: unit)
    guard !overflow, needed <= size else { return nil }
    let numericCount = min(components, maximumComponents)
    switch entry.format {
    case EXIF_FORMAT_ASCII:
      return .ascii(Array(UnsafeBufferPointer(start: bytes, count: components)))
    case EXIF_FORMAT_BYTE:
      return .byte(Array(UnsafeBufferPointer(start: bytes, count: numericCount)))
    case EXIF_FORMAT_SHORT:
      return .short((0..<numericCount).map { exif_get_short(bytes + $0 * unit, order) })
    case EXIF_FORMAT_LONG:
      return .long((0..<numericCount).map { exif_get_long(bytes + $0 * unit, order) })
    case EXIF_FORMAT_UNDEFINED:
      let kept = min(components, TIFFValue.maximumUndefinedLength)
      return .undefined(Array(UnsafeBufferPointer(start: bytes, count: kept)))
    case EXIF_FORMAT_SLONG:
      return .signedLong((0..<numericCount).map { exif_get_slong(bytes + $0 * unit, order) })
    case EXIF_FORMAT_RATIONAL:
      return .rational(
        (0..<numericCount).map {
          let rational = exif_get_rational(bytes + $0 * unit, order)
          return TIFFRational(numerator: rational.numerator, denominator: rational.denominator)
        })
    case EXIF_FORMAT_SRATIONAL:
      return .signedRational(
        (0..<numericCount).map {
          let rational = exif_get_srational(bytes + $0 * unit, order)
          return TIFFSignedRational(
            numerator: rational.numerator, denominator: rational.denominator)
        })
    default:
      return .other(type: type)
    }
  }
}

extension EXIFDirectory {
  /// libexif's index for this directory.
  fileprivate var libExifIFD: ExifIfd {
    switch self {
    case .ifd0: EXIF_IFD_0
    case .exif: EXIF_IFD_EXIF
    case .gps: EXIF_IFD_GPS
    case .ifd1: EXIF_IFD_1
    }
  }
}
