/// The rules that keep names and strings from files from acting on a terminal or a
/// spreadsheet (docs/Robustness.md, "Output hygiene").
///
/// Names and strings read from files can hold anything: terminal escape sequences (screen
/// clear, an OSC 52 clipboard write, a title change, BEL, the one-character C1 CSI
/// `U+009B`), bidi overrides that reverse what follows, and spreadsheet formulas. Every
/// human output and the CSV pass them through these functions.
enum OutputHygiene {
  /// Whether `scalar` is a control character: C0 (U+0000–U+001F), DEL (U+007F) or C1
  /// (U+0080–U+009F).
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// Whether `scalar` is invisible and changes how text around it reads: bidi marks,
  /// embeddings, overrides and isolates, zero-width spaces and joiners, the BOM.
  static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF:
      true
    default:
      false
    }
  }

  /// `text` with every control character written as `%XX` per UTF-8 byte (`ESC` is `%1B`,
  /// `U+009B` is `%C2%9B`), the escaping paths that are not UTF-8 already use; `keeping`
  /// names control characters left as they are (a tab in a CSV field).
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func escapingControls(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
    guard text.unicodeScalars.contains(where: { isControl($0) && !kept.contains($0) }) else {
      return text
    }
    var result = ""
    for scalar in text.unicodeScalars {
      guard isControl(scalar), !kept.contains(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      for byte in String(scalar).utf8 { result += percentEscape(byte) }
    }
    return result
  }

  /// A one-line message for standard error: control characters escaped (a newline in a
  /// file name cannot start a fake line), invisible format characters shown as `<U+202E>`.
  static func message(_ text: String) -> String {
    markingInvisibleFormats(escapingControls(text))
  }

  /// Several lines for standard error (usage errors): each line as ``message(_:)``, the
  /// line breaks kept.
  static func lines(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { message(String($0)) }.joined(separator: "\n")
  }

  /// A table cell: control characters as `?` (one cell stays on one line), invisible
  /// format characters shown as `<U+202E>` so a name cannot reverse or hide its end.
  static func tableCell(_ text: String) -> String {
    markingInvisibleFormats(DisplayWidth.printable(text))
  }

  /// `text` with each invisible format character written as `<U+XXXX>`, except a
  /// zero-width joiner inside an emoji sequence (`👩‍💻` stays one picture).
  static func markingInvisibleFormats(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isInvisibleFormat) else { return text }
    var result = ""
    for character in text {
      let scalars = character.unicodeScalars
      guard scalars.contains(where: isInvisibleFormat) else {
        result.append(character)
        continue
      }
      let isEmojiSequence = scalars.contains { $0.properties.isEmojiPresentation }
      for scalar in scalars {
        if isInvisibleFormat(scalar), !(isEmojiSequence && scalar.value == 0x200D) {
          result += "<U+" + hex(scalar.value, digits: 4) + ">"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
  }

  /// The first characters that make a spreadsheet treat a cell as a formula (OWASP's
  /// CSV injection list): `=`, `+`, `-`, `@`, tab and carriage return.
  static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

  /// A CSV field holding text from a name or a file: prefixed with `'` when it starts
  /// like a formula, then control characters escaped (tabs kept).
  static func csvText(_ text: String) -> String {
    let neutralised =
      text.unicodeScalars.first.map(formulaStarts.contains) == true ? "'" + text : text
    return escapingControls(neutralised, keeping: ["\t"])
  }

  private static func percentEscape(_ byte: UInt8) -> String {
    "%" + hex(UInt32(byte), digits: 2)
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
