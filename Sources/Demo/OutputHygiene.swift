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

  /// Whether `scalar` renders as nothing (or as a blank that is no space) and so can hide
  /// in a name or change how text around it reads: bidi marks, embeddings, overrides and
  /// isolates, zero-width spaces and joiners, the BOM; the soft hyphen, the combining
  /// grapheme joiner, the Hangul and Khmer fillers, the Mongolian selectors, the line and
  /// paragraph separators, the deprecated format characters (U+206A–206F), the variation
  /// selectors, the invisible musical symbols, the blank Braille pattern and the TAG
  /// characters (U+E0000–E007F).
  static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B...0x180F,
      0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x206F, 0x2800, 0x3164,
      0xFE00...0xFE0F, 0xFEFF, 0xFFA0, 0x1D173...0x1D17A, 0xE0000...0xE007F,
      0xE0100...0xE01EF:
      true
    default:
      false
    }
  }

  /// Whether `scalar`, invisible alone, is part of the emoji `character` draws: a joiner
  /// between emoji (`👩‍💻`), the emoji-style selector after an emoji that is not ASCII
  /// (`❤️`) or in a keycap (`1️⃣`), the TAG characters of a subdivision flag (`🏴` followed
  /// by tags). Elsewhere each is marked, so that two names that look alike differ.
  private static func isPartOfEmoji(_ scalar: Unicode.Scalar, in character: Character) -> Bool {
    let scalars = character.unicodeScalars
    guard let base = scalars.first, base != scalar else { return false }
    switch scalar.value {
    case 0x200D: return scalars.contains { $0.properties.isEmojiPresentation }
    case 0xFE0E, 0xFE0F:
      return (!base.isASCII && base.properties.isEmoji) || scalars.contains { $0.value == 0x20E3 }
    case 0xE0020...0xE007F: return base.value == 0x1F3F4
    default: return false
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

  /// `text` with each invisible format character written as `<U+XXXX>`, except those
  /// that are part of an emoji (`👩‍💻`, `❤️` and a subdivision flag stay one picture).
  static func markingInvisibleFormats(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isInvisibleFormat) else { return text }
    var result = ""
    for character in text {
      let scalars = character.unicodeScalars
      guard scalars.contains(where: isInvisibleFormat) else {
        result.append(character)
        continue
      }
      for scalar in scalars {
        if isInvisibleFormat(scalar), !isPartOfEmoji(scalar, in: character) {
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
