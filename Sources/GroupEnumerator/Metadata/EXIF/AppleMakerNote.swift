/// A bounds-checked reader of the one Apple MakerNote tag the engine needs: the content
/// identifier (tag 0x0011) that ties a Live Photo's still to its movie.
///
/// Apple's MakerNote (iOS 7 and later) is `Apple iOS\0`, a 2-byte version, a byte-order
/// mark (`MM`, or `II`), then a TIFF-style directory at offset 14: a 2-byte entry count
/// and 12-byte entries (tag, type, count, value or offset). Offsets count from the start
/// of the MakerNote. exiv2 0.27.6 does not decode this MakerNote, so it is read here from
/// the raw bytes.
enum AppleMakerNote {
  /// The content-identifier tag (exiftool calls it `MediaGroupUUID`).
  static let contentIdentifierTag: UInt16 = 0x0011

  private static let signature = Array("Apple iOS\0".utf8)
  /// Entries read at most: a real MakerNote has about 60.
  private static let maximumEntries = 512

  /// What a MakerNote held for the content identifier.
  enum ContentIdentifier: Equatable {
    /// The identifier text (a UUID on every device seen).
    case found(String)
    /// Not an Apple MakerNote, or it has no tag 0x0011.
    case absent
    /// Tag 0x0011 is there but unusable; the reason is a sentence fragment.
    case invalid(String)
  }

  /// The content identifier in the MakerNote `bytes`.
  ///
  /// - Complexity: O(*n*) in the number of directory entries, at most 512.
  static func contentIdentifier(in bytes: [UInt8]) -> ContentIdentifier {
    guard bytes.starts(with: signature), bytes.count >= 16 else { return .absent }
    let isBigEndian: Bool
    switch (bytes[12], bytes[13]) {
    case (0x4D, 0x4D): isBigEndian = true
    case (0x49, 0x49): isBigEndian = false
    default: return .invalid("the MakerNote's byte-order mark is not MM or II")
    }
    func number(at offset: Int, size: Int) -> UInt32? {
      guard offset >= 0, size <= 4, offset <= bytes.count - size else { return nil }
      let field = bytes[offset..<(offset + size)]
      let ordered = isBigEndian ? Array(field) : field.reversed()
      return ordered.reduce(0) { $0 << 8 | UInt32($1) }
    }
    guard let entryCount = number(at: 14, size: 2) else { return .absent }
    for index in 0..<min(Int(entryCount), maximumEntries) {
      let entry = 16 + index * 12
      guard let tag = number(at: entry, size: 2), let type = number(at: entry + 2, size: 2),
        let count = number(at: entry + 4, size: 4)
      else { return .invalid("the MakerNote directory runs past its end") }
      guard tag == contentIdentifierTag else { continue }
      guard type == 2 else { return .invalid("tag 0x0011 is not ASCII") }
      guard count <= 256 else { return .invalid("tag 0x0011 is \(count) bytes long") }
      let length = Int(count)
      var start = entry + 8
      if length > 4 {
        guard let offset = number(at: entry + 8, size: 4) else {
          return .invalid("the MakerNote directory runs past its end")
        }
        start = Int(offset)
      }
      guard start <= bytes.count - length else {
        return .invalid("tag 0x0011's value lies past the MakerNote's end")
      }
      let text = bytes[start..<(start + length)].prefix { $0 != 0 }
      guard !text.isEmpty else { return .invalid("tag 0x0011 is empty") }
      guard text.allSatisfy({ (0x21..<0x7F).contains($0) }) else {
        return .invalid("tag 0x0011 is not printable ASCII")
      }
      return .found(String(decoding: text, as: UTF8.self))
    }
    return .absent
  }
}
