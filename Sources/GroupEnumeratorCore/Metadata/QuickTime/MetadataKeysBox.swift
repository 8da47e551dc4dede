/// The metadata item keys box, `keys`, of an Apple `mdta` metadata box: the names that
/// `ilst` items refer to by 1-based index.
///
/// A full box with
/// `entry_count`, then per key a 32-bit `key_size` (counting itself and the namespace),
/// a four-character `key_namespace` (`mdta` for reverse-DNS names) and the key's bytes.
struct MetadataKeysBox: Hashable, Sendable {
  /// The keys in file order; `nil` where a key is not an `mdta` UTF-8 name.
  let keys: [String?]

  /// The most content the reader loads for a `keys` box.
  static let maximumLength = 1 << 20

  /// Parses a `keys` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   an entry runs past the content; ``BoxParsingError/invalidField(type:offset:field:detail:)``
  ///   when a `key_size` is below 8.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let count = try content.uint32(at: 4)
    var keys: [String?] = []
    var offset = 8
    // Never trust entry_count for allocation: each entry takes at least 8 bytes.
    for _ in 0..<count {
      let size = try content.uint32(at: offset)
      guard size >= 8, let length = Int(exactly: size) else {
        throw content.invalid("key_size", "\(size) is less than 8")
      }
      let namespace = try content.fourCharacterCode(at: offset + 4)
      let name = try content.slice(at: offset + 8, length: length - 8)
      keys.append(namespace == .metadataHandler ? String(validating: name, as: UTF8.self) : nil)
      offset += length  // Cannot overflow: `slice` just proved offset + length <= count.
    }
    self.keys = keys
  }

  /// The key an `ilst` item's index refers to, or `nil` for index 0 or one past the end.
  func key(forIndex index: UInt32) -> String? {
    guard index >= 1, let position = Int(exactly: index - 1), position < keys.count else {
      return nil
    }
    return keys[position]
  }
}
