/// Fills what a file's own metadata left out — the capture date and the place — from the
/// other places that may know: XMP embedded in the file, then an `.xmp` sidecar beside it,
/// then a Google Takeout `.json` sidecar. This is the one place that decides precedence:
///
/// 1. the file's own EXIF or QuickTime metadata (its readers fill those fields);
/// 2. XMP embedded in the file (JPEG `APP1`, PNG `iTXt`, HEIF `mime` item, TIFF tag 700,
///    WebP `XMP ` chunk) → ``MediaMetadata/xmpDate`` (`xmp:…` sources);
/// 3. an `.xmp` sidecar → ``MediaMetadata/sidecarDate`` (`sidecar:xmp:…` sources);
/// 4. a Google Takeout `.json` sidecar → ``MediaMetadata/sidecarDate``
///    (`takeout:photoTakenTime`);
/// 5. the file's modification time (chosen by the asset, when all of these are silent).
///
/// Every step only fills a gap: a date when no earlier step gave one, a place when no
/// earlier step gave one. Embedded XMP also names the camera (`tiff:Make`, `tiff:Model`)
/// when the file's own metadata names neither maker nor model; the lens stays EXIF's
/// `LensModel` alone. Each reader calls ``apply(_:to:)`` after reading its own
/// metadata; the engine applies the sidecars after the reader, in that order. A packet is
/// parsed only when there is a gap to fill and it names a property that could fill it,
/// so a camera file with complete EXIF pays nothing for its XMP, and its sidecars are not
/// even opened.
enum XMPFallback {
  /// What is still missing from a file's metadata.
  struct Gaps: Equatable {
    /// Whether no date has been found yet.
    var needsDate: Bool
    /// Whether no place has been found yet.
    var needsPlace: Bool
    /// Whether the file names no camera (neither maker nor model): only embedded XMP
    /// fills that gap (a sidecar describes an edit, not the camera).
    var needsCamera = false

    /// Whether a date or a place is missing: what sidecars may fill.
    var needsDateOrPlace: Bool { needsDate || needsPlace }

    /// Whether anything embedded XMP may fill is missing.
    var isEmpty: Bool { !needsDate && !needsPlace && !needsCamera }
  }

  /// What `metadata` still misses: a date when neither the file's own metadata nor any
  /// fallback applied so far gave one; a place likewise.
  static func gaps(in metadata: MediaMetadata) -> Gaps {
    let hasDate =
      metadata.dateTimeOriginal != nil || metadata.dateTimeDigitized != nil
      || metadata.modificationDateTime != nil || metadata.quickTimeCreationDate != nil
      || metadata.movieHeaderCreationDate != nil || metadata.xmpDate != nil
      || metadata.sidecarDate != nil
    return Gaps(
      needsDate: !hasDate, needsPlace: metadata.location == nil,
      needsCamera: metadata.make == nil && metadata.model == nil)
  }

  /// Applies the XMP packet embedded in a file to `metadata`, where its own metadata has
  /// no date or no place. The packet is parsed only when it names a property that could
  /// fill the gap (``XMPMarkers/mayFill(_:from:)``) or may describe a motion photo.
  ///
  /// - Returns: The parsed packet when it was parsed, so that the caller need not parse it
  ///   again (for a motion photo's description); `nil` when there was no gap to fill.
  @discardableResult
  static func apply(_ packet: [UInt8], to metadata: inout MediaMetadata) -> XMPPacket? {
    let gaps = gaps(in: metadata)
    // A packet that names no property for a missing field is not parsed, unless it may
    // describe a motion photo (then it is parsed anyway, and its problems are reported).
    guard !gaps.isEmpty,
      XMPMarkers.mayFill(gaps, from: packet) || MotionPhotoLocator.mayDescribeMotionPhoto(packet)
    else { return nil }
    let read = XMPPacket.parse(packet)
    for problem in read.problems { metadata.report(problem) }
    if gaps.needsDate, let best = read.bestDate {
      metadata.xmpDate = best.captureDate(
        source: embeddedSource(of: best.property, isDateOnly: best.isDateOnly))
    }
    if gaps.needsPlace, let location = read.location { metadata.location = location }
    if gaps.needsCamera {
      metadata.make = read.make
      metadata.model = read.model
    }
    return read
  }

  /// Applies an `.xmp` sidecar's packet to `metadata`, where neither the file nor its
  /// embedded XMP has a date or a place. The sidecar's problems are reported on the asset,
  /// each naming the sidecar.
  ///
  /// - Parameters:
  ///   - packet: The sidecar's bytes.
  ///   - name: The sidecar's name, for messages.
  static func applySidecar(_ packet: [UInt8], named name: String, to metadata: inout MediaMetadata)
  {
    let gaps = gaps(in: metadata)
    guard gaps.needsDateOrPlace else { return }
    let read = XMPPacket.parse(packet)
    for problem in read.problems {
      metadata.report(AssetProblem(problem.code, "The sidecar '\(name)': \(problem.message)"))
    }
    if gaps.needsDate, let best = read.bestDate {
      metadata.sidecarDate = best.captureDate(
        source: sidecarSource(of: best.property, isDateOnly: best.isDateOnly))
    }
    if gaps.needsPlace, let location = read.location { metadata.location = location }
  }

  /// Applies a Google Takeout sidecar to `metadata`, where neither the file, its embedded
  /// XMP nor an `.xmp` sidecar has a date or a place.
  ///
  /// - Parameters:
  ///   - json: The sidecar's bytes.
  ///   - name: The sidecar's name, for messages.
  static func applyTakeout(_ json: [UInt8], named name: String, to metadata: inout MediaMetadata) {
    let gaps = gaps(in: metadata)
    guard gaps.needsDateOrPlace else { return }
    let read = TakeoutSidecar.parse(json)
    for problem in read.problems {
      metadata.report(AssetProblem(problem.code, "The sidecar '\(name)': \(problem.message)"))
    }
    if gaps.needsDate, let taken = read.takenTime {
      metadata.sidecarDate = CaptureDate(utc: taken, source: .takeoutPhotoTakenTime)
    }
    if gaps.needsPlace, let location = read.location { metadata.location = location }
  }

  /// The capture-date source of an embedded XMP property.
  static func embeddedSource(of property: XMPDateProperty, isDateOnly: Bool = false)
    -> CaptureDate.Source
  {
    switch property {
    case .xmpDateTimeOriginal: .xmpDateTimeOriginal
    case .exifDateTimeOriginal: .xmpEXIFDateTimeOriginal
    case .photoshopDateCreated:
      isDateOnly ? .xmpPhotoshopDateCreatedDateOnly : .xmpPhotoshopDateCreated
    case .xmpCreateDate: isDateOnly ? .xmpCreateDateDateOnly : .xmpCreateDate
    }
  }

  /// The capture-date source of a property of an `.xmp` sidecar.
  static func sidecarSource(of property: XMPDateProperty, isDateOnly: Bool = false)
    -> CaptureDate.Source
  {
    switch property {
    case .xmpDateTimeOriginal: .sidecarXMPDateTimeOriginal
    case .exifDateTimeOriginal: .sidecarXMPEXIFDateTimeOriginal
    case .photoshopDateCreated:
      isDateOnly ? .sidecarXMPPhotoshopDateCreatedDateOnly : .sidecarXMPPhotoshopDateCreated
    case .xmpCreateDate: isDateOnly ? .sidecarXMPCreateDateDateOnly : .sidecarXMPCreateDate
    }
  }
}
