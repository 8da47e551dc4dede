internal import FoundationEssentials

/// What an XMP packet says that the engine uses: capture dates, a place, and whether the
/// file is a motion photo (a still with its video appended).
///
/// XMP is RDF/XML. A property can be written as an attribute of
/// `rdf:Description` or as a child element holding text, under any prefix the packet
/// binds to the property's namespace, so properties are matched by namespace URI and
/// local name, never by prefix.
///
/// The packet is read by ``XMPReader``, a small namespace-aware XML reader of our own that
/// checks well-formedness and never resolves an entity other than XML's five predefined
/// ones and character references (Foundation's `XMLParser` would link libxml2 and, through
/// it, ICU into every process). Before it reads a packet: one larger than ``maximumSize``
/// and one that is not UTF-8 or UTF-16 text are refused; the packet is read as UTF-8 with
/// its XML declaration blanked, so a declared encoding (`encoding="UTF-7"`) changes
/// nothing; and ``Markup/scan(_:)`` refuses, on exactly those bytes, any DTD or other `<!`
/// declaration (XMP never has one; entity bombs do), more than
/// ``maximumNamespaceDeclarations`` namespace declarations and more than
/// ``maximumAttributes`` attributes. A packet that is not well-formed XML is refused with
/// the line of the fault.
struct XMPPacket: Sendable, Equatable {
  /// The largest packet read: a JPEG carries at most 64 KiB of main XMP, while
  /// Lightroom and darktable sidecars with a long edit history reach a few hundred KiB.
  static let maximumSize = 2 << 20
  /// The most namespace declarations (`xmlns…=`) a packet may hold: XMP writers declare
  /// a few dozen (darktable ~10, Lightroom ~20).
  static let maximumNamespaceDeclarations = 4096
  /// The most attributes (namespace declarations included) a packet may hold: properties
  /// written as attributes of `rdf:Description`, a few hundred in a long edit history.
  static let maximumAttributes = 32768

  /// The capture dates the packet holds, best first (see ``XMPDateProperty``).
  var dates: [XMPDate] = []
  /// `exif:GPSLatitude`/`exif:GPSLongitude` (and `exif:GPSAltitude` with its ref).
  var location: Location?
  /// The camera's maker and model (`tiff:Make`, `tiff:Model`), trimmed; `nil` when absent
  /// or not usable text (then a problem).
  var make: String?
  var model: String?
  /// The motion-photo description, when the packet says the file is one.
  var motionPhoto: MotionPhotoDescription?
  /// What was wrong with the packet or one of its values.
  var problems: [AssetProblem] = []

  /// The best capture date: the first of ``dates``.
  var bestDate: XMPDate? { dates.first { !$0.isDateOnly } ?? dates.first }

  /// Parses a packet.
  ///
  /// - Parameter bytes: The packet (`<?xpacket …?>` wrapper optional), UTF-8 or UTF-16.
  /// - Returns: What it says; problems for a packet or value that could not be read.
  static func parse(_ bytes: [UInt8]) -> XMPPacket {
    var packet = XMPPacket()
    guard bytes.count <= maximumSize else {
      packet.problems.append(
        AssetProblem(
          .malformed,
          "The XMP packet is \(bytes.count) bytes, more than the \(maximumSize) read; ignored."))
      return packet
    }
    // The reader is only ever given checked UTF-8 (``utf8Text(_:)``), so every name and
    // value it reads is valid text.
    guard let text = utf8Text(bytes) else {
      packet.problems.append(
        AssetProblem(.malformed, "The XMP packet is neither UTF-8 nor UTF-16 text; ignored."))
      return packet
    }
    let plain = Markup.withoutDeclaration(text)
    switch Markup.scan(plain) {
    case .usable: break
    case .declaration:
      packet.problems.append(
        AssetProblem(.malformed, "The XMP packet declares a DOCTYPE, which XMP never has; ignored.")
      )
      return packet
    case .tooManyNamespaces:
      packet.problems.append(
        AssetProblem(
          .malformed,
          "The XMP packet declares more than \(maximumNamespaceDeclarations) namespaces;"
            + " ignored."))
      return packet
    case .tooManyAttributes:
      packet.problems.append(
        AssetProblem(
          .malformed, "The XMP packet has more than \(maximumAttributes) attributes; ignored."))
      return packet
    }
    switch XMPReader.read(plain) {
    case .read(let properties, let items):
      packet.interpret(properties, items: items)
    case .notWellFormed(let line):
      packet.problems.append(
        AssetProblem(.malformed, "The XMP packet is not well-formed XML (line \(line)); ignored."))
    }
    return packet
  }

  /// The packet as valid UTF-8 without NULs, or `nil` when it is not text.
  ///
  /// XMP is UTF-8 almost everywhere, but a packet may be UTF-16 (the format allows it; a
  /// few writers use it in JPEG): one that starts with a byte-order mark or with `<` as a
  /// 16-bit unit is decoded as UTF-16 and re-encoded as UTF-8. Trailing NULs (padding some
  /// writers leave) are dropped; any other NUL, and any sequence that is not valid, makes
  /// the packet not text.
  ///
  /// - Complexity: O(*n*) for *n* bytes.
  static func utf8Text(_ bytes: [UInt8]) -> [UInt8]? {
    let isBigEndian: Bool
    if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x3C]) {
      isBigEndian = true
    } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0x3C, 0x00]) {
      isBigEndian = false
    } else {
      let text = bytes[..<(bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)]
      guard !text.contains(0), String(validating: text, as: UTF8.self) != nil else { return nil }
      return Array(text)
    }
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var index = 0
    while index + 1 < bytes.count {
      let (high, low) =
        isBigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
      units.append(UInt16(high) << 8 | UInt16(low))
      index += 2
    }
    while units.last == 0 { units.removeLast() }
    guard !units.contains(0), let text = String(validating: units, as: UTF16.self) else {
      return nil
    }
    return Array(text.utf8)
  }

  private mutating func interpret(
    _ properties: [XMPPropertyName: String], items: [[String: String]]
  ) {
    for property in XMPDateProperty.allCases {
      guard let text = properties[property.name] else { continue }
      if let date = XMPValueText.date(text) {
        dates.append(XMPDate(property: property, components: date))
      } else if property.takesDay, let day = XMPValueText.day(text) {
        // `photoshop:DateCreated` is often just a day, and some writers give
        // `xmp:CreateDate` so: kept as a day (``XMPDate/isDateOnly``), used only when no
        // property gives a time.
        dates.append(XMPDate(property: property, components: day, isDateOnly: true))
      } else if XMPValueText.isDateWithoutTime(text) {
        // Valid XMP, but a year or a month alone (or a day where a moment is meant) says
        // too little to date a shot: not a capture time, and not a fault either.
        continue
      } else {
        problems.append(
          AssetProblem(
            .invalidValue,
            "XMP \(property.name.qualified) is not a date and time: \(Self.quoted(text))."))
      }
    }
    interpretLocation(properties)
    make = cameraText(properties, .init(namespace: XMPNamespace.tiff, name: "Make"))
    model = cameraText(properties, .init(namespace: XMPNamespace.tiff, name: "Model"))
    motionPhoto = MotionPhotoDescription(properties: properties, items: items)
  }

  private mutating func interpretLocation(_ properties: [XMPPropertyName: String]) {
    let latitudeText = properties[.exif("GPSLatitude")]
    let longitudeText = properties[.exif("GPSLongitude")]
    guard latitudeText != nil || longitudeText != nil else { return }
    guard let latitudeText, let longitudeText,
      let latitude = XMPValueText.coordinate(latitudeText, positive: "N", negative: "S"),
      let longitude = XMPValueText.coordinate(longitudeText, positive: "E", negative: "W")
    else {
      problems.append(
        AssetProblem(
          .invalidValue,
          "XMP GPS position is incomplete or not in DDD,MM,SSk / DDD,MM.mmk form: "
            + "latitude \(Self.quoted(latitudeText ?? "none")), "
            + "longitude \(Self.quoted(longitudeText ?? "none"))."))
      return
    }
    var altitude: Double?
    if let altitudeText = properties[.exif("GPSAltitude")] {
      if let value = XMPValueText.rational(altitudeText) {
        let below = properties[.exif("GPSAltitudeRef")]?.trimmingXMPSpaces() == "1"
        altitude = below ? -value : value
      } else {
        problems.append(
          AssetProblem(
            .invalidValue,
            "XMP exif:GPSAltitude is not a number: \(Self.quoted(altitudeText)); ignored."))
      }
    }
    guard let location = Location(latitude: latitude, longitude: longitude, altitude: altitude)
    else {
      problems.append(
        AssetProblem(
          .invalidValue,
          "XMP GPS position \(latitude), \(longitude) is out of range; ignored."))
      return
    }
    self.location = location
  }

  /// A maker or model property's text, trimmed and checked as EXIF's (``CameraText``):
  /// `nil` when absent or blank, and when rejected (then a problem).
  private mutating func cameraText(
    _ properties: [XMPPropertyName: String], _ name: XMPPropertyName
  ) -> String? {
    guard let raw = properties[name] else { return nil }
    do {
      return try CameraText.parse(Array(raw.trimmingXMPSpaces().utf8))
    } catch {
      problems.append(
        AssetProblem(.invalidValue, "XMP \(name.qualified) \(error.reason); ignored."))
      return nil
    }
  }

  /// A value from a file, quoted for a problem message and cut to 64 characters.
  static func quoted(_ text: String) -> String {
    let cut = text.count > 64 ? String(text.prefix(64)) + "…" : text
    return "\"" + cut + "\""
  }
}
