/// How many terminal columns text takes: East Asian wide and fullwidth characters and
/// emoji take two, combining marks and format characters none, everything else one.
///
/// This covers the common ranges of Unicode's East Asian Width property (UAX #11), not
/// every ambiguous character; ambiguous ones count as narrow, as most terminals draw
/// them outside East Asian locales.
enum DisplayWidth {
  /// The columns `text` takes.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func of(_ text: String) -> Int {
    text.reduce(0) { $0 + of($1) }
  }

  /// The columns one character (grapheme cluster) takes: its first scalar decides,
  /// except that an emoji presentation selector makes it wide.
  static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if scalars.contains("\u{FE0F}") { return 2 }
    return of(first)
  }

  /// The columns one scalar takes on its own.
  static func of(_ scalar: Unicode.Scalar) -> Int {
    switch scalar.properties.generalCategory {
    case .control, .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if isWide(scalar.value) || scalar.properties.isEmojiPresentation { return 2 }
    return 1
  }

  /// Whether `value` is East Asian Wide or Fullwidth, in the common ranges.
  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F,  // Hangul Jamo initial consonants
      0x2E80...0x303E,  // CJK radicals, Kangxi, CJK symbols and punctuation
      0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, compatibility Jamo, CJK compatibility
      0x3400...0x4DBF,  // CJK Extension A
      0x4E00...0x9FFF,  // CJK Unified Ideographs
      0xA000...0xA4CF,  // Yi
      0xA960...0xA97F,  // Hangul Jamo Extended-A
      0xAC00...0xD7A3,  // Hangul syllables
      0xF900...0xFAFF,  // CJK compatibility ideographs
      0xFE10...0xFE19,  // vertical forms
      0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
      0xFF00...0xFF60,  // fullwidth forms
      0xFFE0...0xFFE6,  // fullwidth signs
      0x1B000...0x1B2FF,  // Kana supplement and extensions
      0x1F200...0x1F2FF,  // enclosed ideographic supplement
      0x20000...0x3FFFD:  // CJK Extensions B and later, planes 2 and 3
      true
    default:
      false
    }
  }

  /// `text` with control characters (which would move the cursor or break a line)
  /// replaced by `?`, so one cell stays on one line of its column.
  static func printable(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      result.append(scalar.properties.generalCategory == .control ? "?" : scalar)
    }
    return String(result)
  }

  /// `text` followed by spaces up to `width` columns.
  static func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - of(text)))
  }

  /// Spaces up to `width` columns, then `text`.
  static func rightAligned(_ text: String, to width: Int) -> String {
    String(repeating: " ", count: max(0, width - of(text))) + text
  }
}

extension DisplayWidth {
  /// The ellipsis that marks where text was cut.
  static let ellipsis: Character = "…"

  /// `text` cut to at most `width` columns by replacing its middle with `…`, keeping the
  /// end — a file's extension — visible: `IMG_20240202_1….MP.jpg`. Text that fits is
  /// returned unchanged; a width below 1 gives empty text.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func truncatedMiddle(_ text: String, to width: Int) -> String {
    guard of(text) > width else { return text }
    guard width > 1 else { return width == 1 ? String(ellipsis) : "" }
    let characters = Array(text)
    let available = width - 1
    // The tail is at least the extension (`.jpg`), when that leaves a character or more
    // for the head; otherwise the columns are shared about evenly, head first.
    let extensionWidth = characters.lastIndex(of: ".").map { of(String(characters[$0...])) }
    var tailWidth = available / 2
    if let extensionWidth, extensionWidth < available { tailWidth = max(tailWidth, extensionWidth) }
    var tail: [Character] = []
    var used = 0
    for character in characters.reversed() {
      let next = of(character)
      guard used + next <= tailWidth else { break }
      tail.append(character)
      used += next
    }
    var head = ""
    var headWidth = 0
    for character in characters {
      let next = of(character)
      guard headWidth + next <= available - used else { break }
      head.append(character)
      headWidth += next
    }
    return head + String(ellipsis) + String(tail.reversed())
  }

  /// `text` cut to at most `width` columns at its end, with `…` as its last column.
  /// Text that fits is returned unchanged; a width below 1 gives empty text.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func truncatedEnd(_ text: String, to width: Int) -> String {
    guard of(text) > width else { return text }
    guard width > 0 else { return "" }
    var head = ""
    var used = 0
    for character in text {
      let next = of(character)
      guard used + next <= width - 1 else { break }
      head.append(character)
      used += next
    }
    return head + String(ellipsis)
  }
}
