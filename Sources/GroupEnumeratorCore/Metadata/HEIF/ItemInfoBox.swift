/// The item information box, `iinf`: one ``ItemInfoEntry`` per item of a `meta` box.
///
/// A full box: version 0 holds a
/// 16-bit `entry_count`, later versions a 32-bit one, then the `infe` boxes.
struct ItemInfoBox: Sendable {
  /// The entries that could be parsed, in file order.
  let entries: [ItemInfoEntry]
  /// Why the entries that could not be parsed were skipped.
  let skipped: [BoxParsingError]

  /// The most entries accepted: HEIF files from cameras and phones have a few hundred.
  static let maximumEntryCount = 65_536

  /// Parses an `iinf` box's whole content.
  ///
  /// An `infe` that is malformed is skipped and listed in ``skipped``; the others are
  /// still read.
  ///
  /// - Throws: ``BoxParsingError/invalidField(type:offset:field:detail:)`` when
  ///   `entry_count` is above ``maximumEntryCount``; a ``BoxParsingError`` for a
  ///   malformed child box header.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    let declared =
      version == 0
      ? UInt64(try content.uint16(at: 4))
      : try content.uint64Field(
        at: 4, width: 4)
    guard declared <= ItemInfoBox.maximumEntryCount else {
      throw content.invalid(
        "entry_count",
        "\(declared) items, more than the \(ItemInfoBox.maximumEntryCount) this reader accepts")
    }
    let children = try content.children(
      from: version == 0 ? 6 : 8, limit: ItemInfoBox.maximumEntryCount)
    var entries: [ItemInfoEntry] = []
    var skipped: [BoxParsingError] = []
    for child in children where child.header.type == .itemInfoEntry {
      if let truncation = child.header.truncation { skipped.append(truncation) }
      do {
        entries.append(try ItemInfoEntry(parsing: child))
      } catch {
        skipped.append(error)
      }
    }
    self.entries = entries
    self.skipped = skipped
  }
}

/// One item's information entry, `infe`: its identifier and type.
///
/// Versions 2 and 3 (the ones HEIF
/// uses) hold `item_ID` (16 bits in version 2, 32 in version 3),
/// `item_protection_index`, `item_type` (`hvc1`, `av01`, `grid`, `Exif`, `mime`…) and a
/// name. Versions 0 and 1 have no item type; their entries are read with ``itemType``
/// `nil`. Bit 0 of the flags marks a hidden item.
struct ItemInfoEntry: Hashable, Sendable {
  /// The item's identifier.
  let itemID: UInt32
  /// The item's type, or `nil` for a version 0 or 1 entry.
  let itemType: FourCharacterCode?
  /// The protection scheme index; 0 when the item is not protected.
  let protectionIndex: UInt16
  /// Whether the `(flags & 1)` "hidden" bit is set.
  let isHidden: Bool
  /// A `mime` item's `content_type` (`application/rdf+xml` for XMP); `nil` for other
  /// items, or when it is not a NUL-terminated string after the item's name.
  private(set) var contentType: String?

  /// Parses an `infe` box's content.
  ///
  /// - Throws: ``BoxParsingError/invalidField(type:offset:field:detail:)`` for a version
  ///   above 3; ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   the fixed fields are cut short.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    isHidden = try content.uint8(at: 3) & 1 != 0
    switch version {
    case 0, 1:
      itemID = UInt32(try content.uint16(at: 4))
      protectionIndex = try content.uint16(at: 6)
      itemType = nil
    case 2:
      itemID = UInt32(try content.uint16(at: 4))
      protectionIndex = try content.uint16(at: 6)
      itemType = try content.fourCharacterCode(at: 8)
      if itemType == .mimeItem { contentType = Self.contentType(in: content.bytes, from: 12) }
    case 3:
      itemID = try content.uint32(at: 4)
      protectionIndex = try content.uint16(at: 8)
      itemType = try content.fourCharacterCode(at: 10)
      if itemType == .mimeItem { contentType = Self.contentType(in: content.bytes, from: 14) }
    default:
      throw content.invalid("version", "\(version) is not 0, 1, 2 or 3")
    }
  }

  /// The second of the NUL-terminated strings at `start` (`item_name`, `content_type`).
  private static func contentType(in bytes: [UInt8], from start: Int) -> String? {
    guard start < bytes.count, let nameEnd = bytes[start...].firstIndex(of: 0),
      let typeEnd = bytes[(nameEnd + 1)...].firstIndex(of: 0)
    else { return nil }
    return String(validating: bytes[(nameEnd + 1)..<typeEnd], as: UTF8.self)
  }
}
