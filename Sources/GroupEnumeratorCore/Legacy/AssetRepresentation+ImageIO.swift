extension AssetRepresentation {
  /// The file's metadata under ImageIO's key names (`metadata`).
  ///
  /// Top level: `PixelWidth`, `PixelHeight` (the stored size, as ImageIO reports it) and
  /// `Orientation` when recorded; then, each only when it has a value:
  /// - `{TIFF}`: `DateTime` (the raw text), `Orientation`;
  /// - `{Exif}`: `DateTimeOriginal`, `OffsetTimeOriginal`, `SubsecTimeOriginal`,
  ///   `DateTimeDigitized`, `OffsetTimeDigitized`, `SubsecTimeDigitized` (dates as
  ///   `YYYY:MM:DD HH:MM:SS` text), and `PixelXDimension`, `PixelYDimension` (here the
  ///   stored pixel size, which is what the EXIF tags say in an unedited file);
  /// - `{GPS}`: `Latitude`, `Longitude`, `Altitude` as unsigned `Double`s, with
  ///   `LatitudeRef` (`N`/`S`), `LongitudeRef` (`E`/`W`) and `AltitudeRef` (`0` above sea
  ///   level, `1` below).
  ///
  /// Values are `String`, `Int` or `Double`.
  public var metadata: [String: any Sendable] {
    AssetRepresentation.imageIOProperties(of: mediaMetadata)
  }

  /// ImageIO's property dictionary for what a reader found.
  static func imageIOProperties(of metadata: MediaMetadata) -> [String: any Sendable] {
    var top: [String: any Sendable] = [:]
    if let width = metadata.pixelWidth, let height = metadata.pixelHeight {
      top["PixelWidth"] = width
      top["PixelHeight"] = height
    }
    var tiff: [String: any Sendable] = [:]
    if let orientation = metadata.orientation {
      top["Orientation"] = orientation
      tiff["Orientation"] = orientation
    }
    if let dateTime = metadata.dateTime { tiff["DateTime"] = dateTime }
    var exif: [String: any Sendable] = [:]
    if let original = metadata.dateTimeOriginal {
      add(
        original, keys: ("DateTimeOriginal", "OffsetTimeOriginal", "SubsecTimeOriginal"), to: &exif)
    }
    if let digitized = metadata.dateTimeDigitized {
      add(
        digitized, keys: ("DateTimeDigitized", "OffsetTimeDigitized", "SubsecTimeDigitized"),
        to: &exif)
    }
    if !exif.isEmpty, let width = metadata.pixelWidth, let height = metadata.pixelHeight {
      exif["PixelXDimension"] = width
      exif["PixelYDimension"] = height
    }
    var gps: [String: any Sendable] = [:]
    if let location = metadata.location {
      gps["Latitude"] = location.unsignedLatitude.degrees
      gps["LatitudeRef"] = location.unsignedLatitude.reference
      gps["Longitude"] = location.unsignedLongitude.degrees
      gps["LongitudeRef"] = location.unsignedLongitude.reference
      if let altitude = location.altitude {
        gps["Altitude"] = abs(altitude)
        gps["AltitudeRef"] = altitude < 0 ? 1 : 0
      }
    }
    for (key, sub) in [("{TIFF}", tiff), ("{Exif}", exif), ("{GPS}", gps)] where !sub.isEmpty {
      top[key] = sub
    }
    return top
  }

  /// Adds a date's text, offset and sub-second digits under ImageIO's keys.
  private static func add(
    _ date: CaptureDate, keys: (date: String, offset: String, subsecond: String),
    to dictionary: inout [String: any Sendable]
  ) {
    dictionary[keys.date] = date.exifText
    if let offset = date.zone.offsetText { dictionary[keys.offset] = offset }
    if let subsecond = date.subsecond { dictionary[keys.subsecond] = subsecond }
  }
}
