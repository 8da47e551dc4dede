internal import FoundationEssentials

/// What the parser would see of a packet's markup, found in one pass over its bytes.
enum Markup {
  /// What ``scan(_:)`` found.
  enum Finding: Equatable {
    /// Nothing that is refused.
    case usable
    /// A `<!` that is neither a comment nor a CDATA section: a DOCTYPE, an ENTITY….
    case declaration
    case tooManyNamespaces
    case tooManyAttributes
  }

  /// `text` (checked UTF-8) without what could say it is in another encoding: a UTF-8
  /// byte-order mark is dropped, and an XML declaration at the start
  /// (`<?xml version="1.0" encoding="UTF-7"?>`) is turned into spaces (its line breaks
  /// kept, so line numbers stay), which XML allows before the root element. What is left
  /// is read as UTF-8, whatever the declaration said.
  ///
  /// - Complexity: O(*n*).
  static func withoutDeclaration(_ text: [UInt8]) -> [UInt8] {
    var bytes = text.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(text.dropFirst(3)) : text
    let opening = Array("<?xml".utf8)
    guard bytes.starts(with: opening), bytes.count > opening.count,
      isSpace(bytes[opening.count]),
      let end = firstIndex(of: Array("?>".utf8), in: bytes, from: opening.count)
    else { return bytes }
    for index in 0..<(end + 2) where bytes[index] != 0x0A && bytes[index] != 0x0D {
      bytes[index] = 0x20
    }
    return bytes
  }

  /// Walks the markup of `text` as XML's grammar splits it — comments, CDATA sections and
  /// processing instructions are skipped whole, attribute values are skipped between
  /// their quotes — and counts the attributes and namespace declarations of every tag.
  ///
  /// - Complexity: O(*n*): each byte is looked at a bounded number of times.
  static func scan(_ text: [UInt8]) -> Finding {
    let lessThan = UInt8(ascii: "<")
    var attributes = 0
    var namespaces = 0
    var index = 0
    let count = text.count
    while index < count {
      guard text[index] == lessThan else {
        index += 1
        continue
      }
      let next = index + 1 < count ? text[index + 1] : 0
      if next == UInt8(ascii: "!") {
        if matches(text, at: index, "<!--") {
          index = skip(text, past: "-->", from: index + 4)
        } else if matches(text, at: index, "<![CDATA[") {
          index = skip(text, past: "]]>", from: index + 9)
        } else {
          return .declaration
        }
      } else if next == UInt8(ascii: "?") {
        index = skip(text, past: "?>", from: index + 2)
      } else {
        // A start or end tag: up to the `>` outside quotes.
        index += 1
        var quote: UInt8?
        var afterSpace = false
        while index < count {
          let byte = text[index]
          if let open = quote {
            if byte == open { quote = nil }
          } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            quote = byte
          } else if byte == UInt8(ascii: ">") || byte == lessThan {
            break
          } else if byte == UInt8(ascii: "=") {
            attributes += 1
            guard attributes <= XMPPacket.maximumAttributes else { return .tooManyAttributes }
          } else if afterSpace, matches(text, at: index, "xmlns") {
            namespaces += 1
            guard namespaces <= XMPPacket.maximumNamespaceDeclarations else {
              return .tooManyNamespaces
            }
          }
          afterSpace = quote == nil && isSpace(byte)
          index += 1
        }
        if index < count, text[index] == UInt8(ascii: ">") { index += 1 }
      }
    }
    return .usable
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  private static func matches(_ text: [UInt8], at index: Int, _ literal: StaticString) -> Bool {
    let length = literal.utf8CodeUnitCount
    guard index <= text.count - length else { return false }
    return literal.withUTF8Buffer { buffer in
      (0..<length).allSatisfy { text[index + $0] == buffer[$0] }
    }
  }

  /// The index just past the first `terminator` at or after `start`, or the end.
  private static func skip(_ text: [UInt8], past terminator: StaticString, from start: Int) -> Int {
    var index = start
    while index < text.count {
      if matches(text, at: index, terminator) { return index + terminator.utf8CodeUnitCount }
      index += 1
    }
    return text.count
  }

  private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
    return (start...(bytes.count - needle.count)).first {
      bytes[$0..<($0 + needle.count)].elementsEqual(needle)
    }
  }
}
