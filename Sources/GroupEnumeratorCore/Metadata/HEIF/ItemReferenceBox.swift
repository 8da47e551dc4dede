/// The item reference box, `iref`: typed links from one item to others — `cdsc` from a
/// metadata item to the image it describes, `dimg` from a grid to its tiles, `thmb` from
/// a thumbnail to its master.
///
/// A full box whose children are
/// `SingleItemTypeReferenceBox`es: the box type is the reference type, then
/// `from_item_ID`, `reference_count` (16 bits) and the `to_item_ID`s. Identifiers are 16
/// bits in version 0 and 32 bits in version 1.
struct ItemReferenceBox: Sendable {
  /// One typed link.
  struct Reference: Hashable, Sendable {
    /// The reference type: `cdsc`, `dimg`, `thmb`, `auxl`…
    let type: FourCharacterCode
    /// The item the reference is from.
    let fromItemID: UInt32
    /// The items it points to, in order.
    let toItemIDs: [UInt32]
  }

  /// The references in file order.
  let references: [Reference]

  /// The most child boxes accepted.
  static let maximumReferenceCount = 65_536

  /// Parses an `iref` box's whole content.
  ///
  /// - Throws: ``BoxParsingError/invalidField(type:offset:field:detail:)`` for a version above 1 or
  ///   too many children; ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when a
  ///   reference's identifiers run past the end of its box.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    guard version <= 1 else { throw content.invalid("version", "\(version) is not 0 or 1") }
    let idSize = version == 0 ? 2 : 4
    var references: [Reference] = []
    for child in try content.children(from: 4, limit: Self.maximumReferenceCount) {
      let from = UInt32(truncatingIfNeeded: try child.uint64Field(at: 0, width: idSize))
      let count = Int(try child.uint16(at: idSize))
      try child.require(idSize + 2 + count * idSize)
      var to: [UInt32] = []
      for index in 0..<count {
        to.append(
          UInt32(
            truncatingIfNeeded: try child.uint64Field(
              at: idSize + 2 + index * idSize, width: idSize)))
      }
      references.append(Reference(type: child.header.type, fromItemID: from, toItemIDs: to))
    }
    self.references = references
  }
}
