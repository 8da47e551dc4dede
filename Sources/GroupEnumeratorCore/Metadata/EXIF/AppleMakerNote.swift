/// A bounds-checked reader of the one Apple MakerNote tag the engine needs: the content
/// identifier (tag 0x0011) that ties a Live Photo's still to its movie.
///
/// Apple's MakerNote (iOS 7 and later) is `Apple iOS\0`, a 2-byte version, a byte-order
/// mark (`MM`, or `II`), then a TIFF directory at offset 14 (read with
/// ``TIFFDirectoryWalker``): a 2-byte entry count
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
    guard let reader = IntegerReader(tiffByteOrderMark: bytes[12], bytes[13]) else {
      return .invalid("the MakerNote's byte-order mark is not MM or II")
    }
    // A classic TIFF directory at offset 14, without a TIFF header of its own.
    let walker = TIFFDirectoryWalker(
      source: ArrayByteSource(bytes), layout: .classic, reader: reader, firstDirectoryOffset: 14)
    guard
      let directory = try? walker.entries(
        inDirectoryAt: walker.firstDirectoryOffset, limit: maximumEntries)
    else { return .absent }
    guard let entry = directory.entries.first(where: { $0.tag == contentIdentifierTag }) else {
      let cut = min(directory.declared, UInt64(maximumEntries)) > UInt64(directory.entries.count)
      return cut ? .invalid("the MakerNote directory runs past its end") : .absent
    }
    guard entry.type == 2 else { return .invalid("tag 0x0011 is not ASCII") }
    guard entry.count <= 256 else { return .invalid("tag 0x0011 is \(entry.count) bytes long") }
    guard case .ascii(let value)? = walker.value(of: entry) else {
      return .invalid("tag 0x0011's value lies past the MakerNote's end")
    }
    let text = value.prefix { $0 != 0 }
    guard !text.isEmpty else { return .invalid("tag 0x0011 is empty") }
    guard text.allSatisfy({ (0x21..<0x7F).contains($0) }) else {
      return .invalid("tag 0x0011 is not printable ASCII")
    }
    return .found(String(decoding: text, as: UTF8.self))
  }
}
