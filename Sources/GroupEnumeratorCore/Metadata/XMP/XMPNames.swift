internal import FoundationEssentials

/// A capture date read from XMP, with the property it came from.
struct XMPDate: Sendable, Equatable {
  /// The property.
  var property: XMPDateProperty
  /// The date's components as written (the `source` of a ``CaptureDate`` is chosen by
  /// the caller, which knows whether the packet was embedded or a sidecar).
  var components: XMPValueText.DateComponents
  /// Whether the property gave only a day (its time reads as midnight).
  var isDateOnly = false

  /// The date as a ``CaptureDate`` from `source`.
  func captureDate(source: CaptureDate.Source) -> CaptureDate? {
    CaptureDate(
      year: components.year, month: components.month, day: components.day,
      hour: components.hour, minute: components.minute, second: components.second,
      subsecond: components.subsecond, zone: components.zone, source: source)
  }
}

/// The XMP properties that can say when a shot was taken, best first: the moment the
/// shutter fired (`DateTimeOriginal`, in the XMP basic or the EXIF schema), the date the
/// photographer gave (`photoshop:DateCreated`), then when the file was first made
/// (`xmp:CreateDate`).
enum XMPDateProperty: String, Sendable, CaseIterable {
  case xmpDateTimeOriginal = "xmp:DateTimeOriginal"
  case exifDateTimeOriginal = "exif:DateTimeOriginal"
  case photoshopDateCreated = "photoshop:DateCreated"
  case xmpCreateDate = "xmp:CreateDate"

  /// Whether a day alone (`2019-09-02`) is taken from the property: the dates of a
  /// creation, not the `DateTimeOriginal`s, which name a moment.
  var takesDay: Bool { self == .photoshopDateCreated || self == .xmpCreateDate }

  /// The property's namespace and local name.
  var name: XMPPropertyName {
    switch self {
    case .xmpDateTimeOriginal: .xmp("DateTimeOriginal")
    case .exifDateTimeOriginal: .exif("DateTimeOriginal")
    case .photoshopDateCreated:
      XMPPropertyName(namespace: XMPNamespace.photoshop, name: "DateCreated")
    case .xmpCreateDate: .xmp("CreateDate")
    }
  }
}

/// A property's namespace URI and local name.
struct XMPPropertyName: Sendable, Hashable {
  var namespace: String
  var name: String

  static func exif(_ name: String) -> XMPPropertyName {
    XMPPropertyName(namespace: XMPNamespace.exif, name: name)
  }

  static func xmp(_ name: String) -> XMPPropertyName {
    XMPPropertyName(namespace: XMPNamespace.xmp, name: name)
  }

  /// The name with the namespace's usual prefix, for messages (`exif:GPSLatitude`).
  var qualified: String {
    let prefix = XMPNamespace.usualPrefixes[namespace] ?? namespace
    return prefix + ":" + name
  }
}

/// The namespace URIs the engine reads.
enum XMPNamespace {
  static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  static let xmp = "http://ns.adobe.com/xap/1.0/"
  static let exif = "http://ns.adobe.com/exif/1.0/"
  static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
  static let tiff = "http://ns.adobe.com/tiff/1.0/"
  static let googleCamera = "http://ns.google.com/photos/1.0/camera/"
  static let container = "http://ns.google.com/photos/1.0/container/"
  static let containerItem = "http://ns.google.com/photos/1.0/container/item/"

  static let usualPrefixes: [String: String] = [
    rdf: "rdf", xmp: "xmp", exif: "exif", photoshop: "photoshop", tiff: "tiff",
    googleCamera: "GCamera",
    container: "Container", containerItem: "Item",
  ]
}
