extension String {
  /// The string without the Unicode scalars at its start and end that `isTrimmed`
  /// accepts (the scalars between are kept as they are).
  ///
  /// - Complexity: O(*n*), where *n* is the number of scalars trimmed.
  func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
      let last = scalars.lastIndex(where: { !isTrimmed($0) })
    else { return "" }
    if first == scalars.startIndex, last == scalars.index(before: scalars.endIndex) {
      return self
    }
    return String(scalars[first...last])
  }
}

extension String {
  /// The string with every UTF-8 byte that is not an ASCII letter or digit written as a
  /// percent escape (`%2F`, `%C3%A9`, upper-case hexadecimal), as Foundation's
  /// `addingPercentEncoding(withAllowedCharacters: .alphanumerics)` writes it here.
  var percentEncodingAllButASCIIAlphanumerics: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count * 3)
    let digits = Array("0123456789ABCDEF".utf8)
    for byte in utf8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "a")...UInt8(ascii: "z"):
        bytes.append(byte)
      default:
        bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Unicode.Scalar {
  /// Whether this is a space or a tab: general category Zs, U+0009, and U+200B (a space
  /// before Unicode 4.0.1): the set Foundation calls `whitespaces`.
  var isSpaceOrTab: Bool {
    switch value {
    case 0x09, 0x20, 0x200B: return true
    case 0...0x9F: return false
    default: return properties.generalCategory == .spaceSeparator
    }
  }

  /// Whether this is a space, a tab or a line break: general categories Zs, Zl and Zp,
  /// U+0009 to U+000D, U+0085 and U+200B (the set Foundation calls
  /// `whitespacesAndNewlines`).
  var isSpaceOrNewline: Bool {
    switch value {
    case 0x09...0x0D, 0x20, 0x85, 0x200B: return true
    case 0...0x9F: return false
    default:
      switch properties.generalCategory {
      case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
      default: return false
      }
    }
  }

  /// Whether this is a control or format character: general categories Cc and Cf (the set
  /// Foundation calls `controlCharacters`, which here also holds the variation selectors
  /// and the unassigned scalars of plane 14).
  var isControlOrFormat: Bool {
    switch properties.generalCategory {
    case .control, .format: return true
    default: return false
    }
  }
}
