/// One value of a metadata item: a `data` box inside an `ilst` item.
///
/// In QuickTime's layout the
/// content is a 32-bit type indicator (a reserved byte 0, then a 24-bit well-known type:
/// 1 is UTF-8, 2 is UTF-16 big-endian), a 32-bit locale indicator, then the value.
struct MetadataDataBox: Hashable, Sendable {
  /// The well-known type: 1 for UTF-8 text, 2 for UTF-16, 23 for a float…
  let typeIndicator: UInt32
  /// The locale indicator (0 for the default locale).
  let locale: UInt32
  /// The value's bytes.
  let value: [UInt8]

  /// The most value bytes the reader loads; the items it reads are short strings.
  static let maximumLength = 4096

  /// Parses a `data` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   the type and locale are missing.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    try content.require(8)
    typeIndicator = try content.uint32(at: 0) & 0x00FF_FFFF
    locale = try content.uint32(at: 4)
    value = try content.slice(at: 8, length: content.count - 8)
  }

  /// The value as text, when the type says UTF-8 or UTF-16 and the bytes are valid.
  var text: String? {
    switch typeIndicator {
    case 1: return String(validating: value, as: UTF8.self)
    case 2:
      guard value.count % 2 == 0 else { return nil }
      let units = stride(from: 0, to: value.count, by: 2).compactMap {
        IntegerReader.bigEndian.uint16(value, at: $0)
      }
      return String(validating: units, as: UTF16.self)
    default: return nil
    }
  }
}

/// The metadata item list box, `ilst`, of an Apple `mdta` metadata box.
///
/// Each child is an item whose
/// box type is the 1-based index of its key in the `keys` box, and which holds one or
/// more `data` boxes. This type names the items; the reader walks them with a
/// ``BoxIterator`` so that no more than one item is loaded at a time.
enum MetadataItemListBox {
  /// The keys whose values the reader keeps.
  enum Key: String, CaseIterable, Sendable {
    /// Local capture time with UTC offset, `2021-06-01T19:00:00+0900`.
    case creationDate = "com.apple.quicktime.creationdate"
    /// Where the movie was shot, as an ISO 6709 string.
    case location = "com.apple.quicktime.location.ISO6709"
    /// The Live Photo pairing identifier.
    case contentIdentifier = "com.apple.quicktime.content.identifier"
    /// The camera's maker, `Apple`.
    case make = "com.apple.quicktime.make"
    /// The camera's model, `iPhone 12 Pro`.
    case model = "com.apple.quicktime.model"
  }

  /// The key index an item box's type encodes.
  static func keyIndex(of item: BoxHeader) -> UInt32 { item.type.rawValue }
}
