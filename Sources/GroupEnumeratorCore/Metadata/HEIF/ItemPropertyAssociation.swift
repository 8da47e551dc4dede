/// The item property association box, `ipma`: which properties of the `ipco` box
/// belong to which item, in the order they apply.
///
/// A full box: `entry_count` (32
/// bits), then per entry `item_ID` (16 bits in version 0, 32 in version 1),
/// `association_count` (8 bits) and the associations. Each association is one byte — an
/// `essential` bit and a 7-bit `property_index` — or, when `flags & 1`, two bytes with a
/// 15-bit index. Indexes count from 1 in `ipco` order; 0 means "no property".
struct ItemPropertyAssociation: Sendable {
  /// One property of one item.
  struct Association: Hashable, Sendable {
    /// The 1-based index into the `ipco` box's children; 0 means none.
    let propertyIndex: Int
    /// Whether a reader must understand the property to show the item.
    let isEssential: Bool
  }

  /// Each item's associations, in file order; an item listed twice keeps its first entry.
  let associations: [UInt32: [Association]]

  /// The most entries accepted.
  static let maximumEntryCount = 65_536

  /// Parses an `ipma` box's whole content.
  ///
  /// - Throws: ``BoxParsingError/invalidField(type:offset:field:detail:)`` for a version
  ///   above 1 or more than ``maximumEntryCount`` entries;
  ///   ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when the entries
  ///   run past the end of the box.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    guard version <= 1 else { throw content.invalid("version", "\(version) is not 0 or 1") }
    let isWide = try content.uint8(at: 3) & 1 == 1
    let entryCount = try content.uint32(at: 4)
    guard entryCount <= Self.maximumEntryCount else {
      throw content.invalid(
        "entry_count",
        "\(entryCount) entries, more than the \(Self.maximumEntryCount) this reader accepts")
    }
    let idSize = version == 0 ? 2 : 4
    var position = 8
    var associations: [UInt32: [Association]] = [:]
    for _ in 0..<entryCount {
      let itemID = UInt32(truncatingIfNeeded: try content.uint64Field(at: position, width: idSize))
      position += idSize
      let count = Int(try content.uint8(at: position))
      position += 1
      var list: [Association] = []
      for _ in 0..<count {
        if isWide {
          let value = try content.uint16(at: position)
          list.append(
            Association(propertyIndex: Int(value & 0x7FFF), isEssential: value >> 15 == 1))
          position += 2
        } else {
          let value = try content.uint8(at: position)
          list.append(Association(propertyIndex: Int(value & 0x7F), isEssential: value >> 7 == 1))
          position += 1
        }
      }
      if associations[itemID] == nil { associations[itemID] = list }
    }
    self.associations = associations
  }
}
