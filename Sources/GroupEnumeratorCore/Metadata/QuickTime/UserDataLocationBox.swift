/// The `©xyz` user data item: a location as an ISO 6709 string, written by QuickTime
/// and by Android's and many cameras' MP4 writers inside `moov/udta`.
///
/// Laid out as QuickTime's user data text strings are: a 16-bit string length, a 16-bit packed
/// language code, then the text.
struct UserDataLocationBox: Hashable, Sendable {
  /// The text, e.g. `+27.2939+112.6932/`.
  let text: String

  /// The most content the reader loads.
  static let maximumLength = 1024

  /// Parses a `©xyz` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when the
  ///   string runs past the content; ``BoxParsingError/invalidField(type:offset:field:detail:)``
  ///   when it is not UTF-8.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let length = Int(try content.uint16(at: 0))
    let bytes = try content.slice(at: 4, length: length)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw content.invalid("text", "not UTF-8")
    }
    self.text = text
  }
}
