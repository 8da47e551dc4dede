/// Turns the tags a reader found into ``MediaMetadata`` fields, checking every value.
///
/// Works on an ``EXIFTagTable``, so it is the same for tags read through libexif and
/// for tags read by ``TIFFDirectoryWalker``. A value of the wrong type, count or range
/// is left out and reported as an ``AssetProblem/Code/invalidValue`` problem.
///
/// The rules every format shares live here once: the dates, the location, the
/// orientation, the size (EXIF `PixelXDimension` × `PixelYDimension` when the format gave
/// none; IFD0's `ImageWidth` × `ImageLength` for TIFF-structured files), the thumbnail
/// flag, the camera's make, model and lens (``CameraText``), and Apple's content
/// identifier from the MakerNote.
enum EXIFInterpreter {
  /// Fills the EXIF-derived fields of `metadata` from `table`.
  ///
  /// - Parameter sizeFromIFD0: Whether IFD0's `ImageWidth` × `ImageLength` is the stored
  ///   size, whatever was set before: true for files that are TIFF structures themselves
  ///   (BigTIFF, Canon CR3), where it is what exiftool's `Composite:ImageSize` gives.
  static func apply(
    _ table: EXIFTagTable, to metadata: inout MediaMetadata, sizeFromIFD0: Bool = false
  ) {
    applyDates(table, to: &metadata)
    applyLocation(table, to: &metadata)
    applyOrientation(table, to: &metadata)
    if metadata.pixelWidth == nil, metadata.pixelHeight == nil,
      let width = table[.exif, EXIFTag.pixelXDimension]?.singleInteger,
      let height = table[.exif, EXIFTag.pixelYDimension]?.singleInteger, width > 0, height > 0
    {
      metadata.pixelWidth = width
      metadata.pixelHeight = height
    }
    metadata.hasThumbnail = metadata.hasThumbnail || table.hasThumbnail
    if let length = table.nonJPEGThumbnailLength {
      metadata.report(
        .init(
          .invalidValue,
          "The IFD1 thumbnail (\(length) bytes) is not a JPEG (no FF D8 at its start); "
            + "it is not offered as a thumbnail."))
    }
    applyContentIdentifier(table, to: &metadata)
    applyCamera(table, to: &metadata)
    if sizeFromIFD0, let width = table[.ifd0, EXIFTag.imageWidth]?.singleInteger,
      let height = table[.ifd0, EXIFTag.imageLength]?.singleInteger, width > 0, height > 0
    {
      metadata.pixelWidth = width
      metadata.pixelHeight = height
    }
  }

  /// Apple's content identifier (a Live Photo's link to its movie) from the MakerNote.
  private static func applyContentIdentifier(
    _ table: EXIFTagTable, to metadata: inout MediaMetadata
  ) {
    guard metadata.contentIdentifier == nil,
      case .undefined(let makerNote)? = table[.exif, EXIFTag.makerNote]
    else { return }
    switch AppleMakerNote.contentIdentifier(in: makerNote) {
    case .found(let identifier): metadata.contentIdentifier = identifier
    case .absent: break
    case .invalid(let reason):
      metadata.report(
        .init(.invalidValue, "Apple MakerNote: \(reason); content identifier ignored."))
    }
  }

  // MARK: - Camera

  /// IFD0 `Make` and `Model`, and the EXIF IFD's `LensModel`.
  private static func applyCamera(_ table: EXIFTagTable, to metadata: inout MediaMetadata) {
    if let make = cameraText(table[.ifd0, EXIFTag.make], name: "Make", into: &metadata) {
      metadata.make = make
    }
    if let model = cameraText(table[.ifd0, EXIFTag.model], name: "Model", into: &metadata) {
      metadata.model = model
    }
    if let lens = cameraText(table[.exif, EXIFTag.lensModel], name: "LensModel", into: &metadata) {
      metadata.lensModel = lens
    }
  }

  /// The cleaned text of a make, model or lens tag; `nil` (with a problem when the value
  /// was unusable) otherwise. Like exiftool, `UNDEFINED` text is read as well as `ASCII`.
  private static func cameraText(
    _ value: TIFFValue?, name: String, into metadata: inout MediaMetadata
  ) -> String? {
    let bytes: [UInt8]
    switch value {
    case nil: return nil
    case .ascii(let text)?, .undefined(let text)?: bytes = text
    default:
      metadata.report(.init(.invalidValue, "\(name) is not text; ignored."))
      return nil
    }
    do {
      return try CameraText.parse(bytes)
    } catch {
      metadata.report(.init(.invalidValue, "\(name) \(error.reason); ignored."))
      return nil
    }
  }

  // MARK: - Dates

  private static func applyDates(_ table: EXIFTagTable, to metadata: inout MediaMetadata) {
    if let value = table[.ifd0, EXIFTag.dateTime] {
      let zone = zone(table[.exif, EXIFTag.offsetTime], name: "OffsetTime", into: &metadata)
      let subsecond = subsecond(table[.exif, EXIFTag.subSecTime], name: "SubSecTime", &metadata)
      if let date = captureDate(
        value, name: "DateTime", zone: zone, subsecond: subsecond, source: .exifDateTime,
        into: &metadata)
      {
        metadata.modificationDateTime = date
        metadata.dateTime = rawText(value)
      }
    }
    // DateTimeOriginal belongs in the EXIF IFD; some writers put it in IFD0 (exiftool reads it).
    let originalDirectory: EXIFDirectory =
      table[.exif, EXIFTag.dateTimeOriginal] == nil ? .ifd0 : .exif
    if let value = table[originalDirectory, EXIFTag.dateTimeOriginal] {
      let zone = zone(
        table[.exif, EXIFTag.offsetTimeOriginal] ?? table[.ifd0, EXIFTag.offsetTimeOriginal],
        name: "OffsetTimeOriginal", into: &metadata)
      let subsecond = subsecond(
        table[.exif, EXIFTag.subSecTimeOriginal] ?? table[.ifd0, EXIFTag.subSecTimeOriginal],
        name: "SubSecTimeOriginal", &metadata)
      metadata.dateTimeOriginal = captureDate(
        value, name: "DateTimeOriginal", zone: zone, subsecond: subsecond,
        source: .exifDateTimeOriginal, into: &metadata)
    }
    if let value = table[.exif, EXIFTag.dateTimeDigitized] {
      let zone = zone(
        table[.exif, EXIFTag.offsetTimeDigitized], name: "OffsetTimeDigitized", into: &metadata)
      let subsecond = subsecond(
        table[.exif, EXIFTag.subSecTimeDigitized], name: "SubSecTimeDigitized", &metadata)
      metadata.dateTimeDigitized = captureDate(
        value, name: "DateTimeDigitized", zone: zone, subsecond: subsecond,
        source: .exifDateTimeDigitized, into: &metadata)
    }
  }

  private static func captureDate(
    _ value: TIFFValue, name: String, zone: CaptureDate.Zone, subsecond: String?,
    source: CaptureDate.Source, into metadata: inout MediaMetadata
  ) -> CaptureDate? {
    guard case .ascii(let bytes) = value else {
      metadata.report(.init(.invalidValue, "\(name) is not ASCII text."))
      return nil
    }
    switch EXIFDateText.parseDate(bytes) {
    case .blank:
      metadata.report(.init(.invalidValue, "\(name) is blank."))
      return nil
    case .invalid:
      metadata.report(
        .init(.invalidValue, "\(name) '\(printable(bytes))' is not a YYYY:MM:DD HH:MM:SS date."))
      return nil
    case .date(
      let year, let month, let day, let hour, let minute, let second, let ownSubsecond, let text,
      let ownZone):
      guard
        let date = CaptureDate(
          year: year, month: month, day: day, hour: hour, minute: minute, second: second,
          subsecond: subsecond ?? ownSubsecond, zone: ownZone ?? zone, source: source)
      else {
        metadata.report(.init(.invalidValue, "\(name) '\(text)' is not a real date."))
        return nil
      }
      return date
    }
  }

  /// The text of an ASCII value without its padding, as stored.
  private static func rawText(_ value: TIFFValue) -> String? {
    guard case .ascii(let bytes) = value else { return nil }
    var end = bytes.endIndex
    while end > bytes.startIndex, bytes[end - 1] == 0 || bytes[end - 1] == UInt8(ascii: " ") {
      end -= 1
    }
    return String(validating: bytes[..<end], as: UTF8.self)
  }

  private static func zone(
    _ value: TIFFValue?, name: String, into metadata: inout MediaMetadata
  ) -> CaptureDate.Zone {
    guard let value else { return .unknown }
    if case .ascii(let bytes) = value, let parsed = EXIFDateText.parseOffset(bytes) {
      return parsed.map { .offset(seconds: $0) } ?? .unknown
    }
    metadata.report(.init(.invalidValue, "\(name) is not a ±HH:MM offset; zone unknown."))
    return .unknown
  }

  private static func subsecond(
    _ value: TIFFValue?, name: String, _ metadata: inout MediaMetadata
  ) -> String? {
    guard let value else { return nil }
    if case .ascii(let bytes) = value, let parsed = EXIFDateText.parseSubsecond(bytes) {
      return parsed
    }
    metadata.report(.init(.invalidValue, "\(name) is not digits; ignored."))
    return nil
  }

  // MARK: - Location

  private static func applyLocation(_ table: EXIFTagTable, to metadata: inout MediaMetadata) {
    guard table[.gps, EXIFTag.gpsLatitude] != nil || table[.gps, EXIFTag.gpsLongitude] != nil
    else { return }
    do {
      metadata.location = try location(table, problems: &metadata.problemLog)
    } catch {
      metadata.report(.init(.invalidValue, "GPS \(error.reason); location ignored."))
    }
  }

  private static func location(
    _ table: EXIFTagTable, problems: inout ProblemLog
  ) throws(GPSCoordinate.Rejection) -> Location {
    func labelled<T>(_ result: Result<T, GPSCoordinate.Rejection>, _ label: String)
      throws(GPSCoordinate.Rejection) -> T
    {
      switch result {
      case .success(let value): return value
      case .failure(let rejection):
        throw GPSCoordinate.Rejection(reason: label + " " + rejection.reason)
      }
    }
    let latitudeSign = try labelled(
      GPSCoordinate.sign(of: table[.gps, EXIFTag.gpsLatitudeRef], positive: "N", negative: "S"),
      "latitude")
    let longitudeSign = try labelled(
      GPSCoordinate.sign(of: table[.gps, EXIFTag.gpsLongitudeRef], positive: "E", negative: "W"),
      "longitude")
    let latitude = try labelled(GPSCoordinate.degrees(table[.gps, EXIFTag.gpsLatitude]), "latitude")
    let longitude = try labelled(
      GPSCoordinate.degrees(table[.gps, EXIFTag.gpsLongitude]), "longitude")
    guard latitude <= 90, longitude <= 180 else {
      throw GPSCoordinate.Rejection(reason: "position \(latitude), \(longitude) is out of range")
    }
    var altitude: Double?
    switch GPSCoordinate.altitude(
      reference: table[.gps, EXIFTag.gpsAltitudeRef], value: table[.gps, EXIFTag.gpsAltitude])
    {
    case .success(let metres): altitude = metres
    case .failure(let rejection):
      problems.append(.init(.invalidValue, "GPS \(rejection.reason); altitude ignored."))
    }
    guard
      let location = Location(
        latitude: latitudeSign * latitude, longitude: longitudeSign * longitude,
        altitude: altitude)
    else { throw GPSCoordinate.Rejection(reason: "position is out of range") }
    return location
  }

  // MARK: - Orientation

  private static func applyOrientation(_ table: EXIFTagTable, to metadata: inout MediaMetadata) {
    guard let value = table[.ifd0, EXIFTag.orientation] else { return }
    // The spec says SHORT; some writers store LONG or SLONG, which say the same thing.
    // 0 is what several editors write for "not set": absent, and not worth a problem.
    switch value.singleInteger {
    case .some(let orientation) where (1...8).contains(orientation):
      metadata.orientation = orientation
    case .some(0):
      break
    default:
      metadata.report(.init(.invalidValue, "Orientation is not a number from 1 to 8."))
    }
  }

  /// ASCII bytes for a message: printable characters kept, others as `\xNN`, at most 40.
  private static func printable(_ bytes: [UInt8]) -> String {
    bytes.prefix(40).map { byte in
      (0x20..<0x7F).contains(byte)
        ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
    }.joined()
  }
}
