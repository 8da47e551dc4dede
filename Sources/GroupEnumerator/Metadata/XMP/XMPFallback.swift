/// Fills what a file's EXIF left out from the XMP packet embedded in it: the capture date
/// and the place. The file's own EXIF always wins; XMP only fills a gap.
///
/// The packet is parsed only when there is a gap to fill (no EXIF date, or no EXIF
/// place), so a camera JPEG with complete EXIF pays nothing for its XMP.
enum XMPFallback {
  /// Applies `packet` to `metadata` where its EXIF has no date or no place.
  ///
  /// - Returns: The parsed packet when it was parsed, so that the caller need not parse it
  ///   again (for a motion photo's description); `nil` when there was no gap to fill.
  @discardableResult
  static func apply(_ packet: [UInt8], to metadata: inout MediaMetadata) -> XMPPacket? {
    let needsDate =
      metadata.dateTimeOriginal == nil && metadata.dateTimeDigitized == nil
      && metadata.modificationDateTime == nil
    let needsPlace = metadata.location == nil
    guard needsDate || needsPlace else { return nil }
    let read = XMPPacket.parse(packet)
    for problem in read.problems { metadata.report(problem) }
    if needsDate, let best = read.bestDate {
      metadata.xmpDate = best.captureDate(source: source(of: best.property))
    }
    if needsPlace, let location = read.location { metadata.location = location }
    return read
  }

  /// The capture-date source of an embedded XMP property.
  static func source(of property: XMPDateProperty) -> CaptureDate.Source {
    switch property {
    case .xmpDateTimeOriginal: .xmpDateTimeOriginal
    case .exifDateTimeOriginal: .xmpEXIFDateTimeOriginal
    case .photoshopDateCreated: .xmpPhotoshopDateCreated
    case .xmpCreateDate: .xmpCreateDate
    }
  }
}
