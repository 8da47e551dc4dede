/// The text of a camera's make, model or lens name as stored in a file (EXIF `Make`,
/// `Model`, `LensModel`; QuickTime's `com.apple.quicktime.make` and `.model`; CRW's 0x080a;
/// XMP's `tiff:Make` and `tiff:Model`), cleaned
/// the way exiftool shows it, and checked.
///
/// The text ends at its first NUL (EXIF ASCII is NUL-terminated; writers pad with more),
/// and trailing white space is dropped (EXIF fills unknown text with spaces).
/// What is left must be valid UTF-8 without control characters and at most
/// ``maximumLength`` bytes; otherwise it is rejected, never shown half-cleaned.
enum CameraText {
  /// The most bytes kept: longer than any real camera or lens name, short enough for a
  /// table cell.
  static let maximumLength = 255

  /// Why a value was rejected.
  enum Rejection: Error, Equatable {
    /// The bytes are not valid UTF-8.
    case invalidUTF8
    /// The text holds a control character (C0, DEL or C1).
    case controlCharacter
    /// The text is longer than ``CameraText/maximumLength`` bytes.
    case tooLong(Int)

    /// A phrase for a problem message.
    var reason: String {
      switch self {
      case .invalidUTF8: "is not valid UTF-8"
      case .controlCharacter: "holds a control character"
      case .tooLong(let length):
        "is \(length) bytes long, more than \(CameraText.maximumLength)"
      }
    }
  }

  /// The cleaned text of `bytes`.
  ///
  /// - Returns: `nil` when nothing but padding is left (the value is then absent).
  /// - Throws: A ``Rejection`` when what is left is not acceptable text.
  static func parse(_ bytes: some Collection<UInt8>) throws(Rejection) -> String? {
    var text = Array(bytes.prefix { $0 != 0 })
    while let last = text.last, last == 0x20 || (0x09...0x0D).contains(last) {
      text.removeLast()
    }
    guard !text.isEmpty else { return nil }
    guard text.count <= maximumLength else { throw .tooLong(text.count) }
    guard let string = String(validating: text, as: UTF8.self) else { throw .invalidUTF8 }
    guard !string.unicodeScalars.contains(where: isControl) else { throw .controlCharacter }
    return string
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }
}
