/// The item location box, `iloc`: where each item's bytes are — in this file, in the
/// `meta` box's `idat`, or (unsupported here) in other items.
///
/// A full box of version 0, 1 or 2:
/// four 4-bit sizes (`offset_size`, `length_size`, `base_offset_size`, and from version 1
/// `index_size`), each 0, 4 or 8 bytes; `item_count` (16 bits, 32 in version 2); then per
/// item `item_ID` (16 or 32 bits), from version 1 a 4-bit `construction_method`,
/// `data_reference_index`, `base_offset`, `extent_count`, and the extents
/// (`extent_index` when `index_size` > 0, `extent_offset`, `extent_length`).
struct ItemLocationBox: Sendable {
  /// Where one item's data lies.
  struct Location: Hashable, Sendable {
    /// How extent offsets are to be read: from the file, from `idat`, or from another item.
    enum ConstructionMethod: Hashable, Sendable {
      /// 0: offsets into the file named by `data_reference_index` (0 is this file).
      case fileOffset
      /// 1: offsets into the content of the `meta` box's `idat`.
      case itemDataOffset
      /// 2: offsets into other items; not followed by this reader.
      case itemOffset
      /// Any other value, which the specification reserves.
      case reserved(UInt8)
    }

    /// One contiguous run of the item's bytes.
    struct Extent: Hashable, Sendable {
      /// `extent_index`, used only by construction method 2; 0 when absent.
      let index: UInt64
      /// `extent_offset`, to which `base_offset` is added.
      let offset: UInt64
      /// `extent_length`; 0 means "to the end of the data the offset points into".
      let length: UInt64
    }

    /// The item's identifier.
    let itemID: UInt32
    /// How the offsets are to be read; always ``ConstructionMethod/fileOffset`` in
    /// version 0.
    let constructionMethod: ConstructionMethod
    /// 0 for this file; other values name an external file, which is not followed.
    let dataReferenceIndex: UInt16
    /// Added to every extent's offset.
    let baseOffset: UInt64
    /// The item's data, in order.
    let extents: [Extent]
  }

  /// The box version, 0, 1 or 2.
  let version: UInt8
  /// The items in file order; an identifier listed twice keeps its first location.
  let locations: [Location]

  /// The most items accepted (`item_count`).
  static let maximumItemCount = 65_536
  /// The most extents accepted over all items. Extents may take no bytes at all (every
  /// size 0), so their number is bounded here rather than by the box's size.
  static let maximumExtentCount = 1 << 18

  /// Parses an `iloc` box's whole content.
  ///
  /// - Throws: ``BoxParsingError/invalidField(type:offset:field:detail:)`` for a version
  ///   above 2, a field size other than 0, 4 or 8, more than ``maximumItemCount`` items or
  ///   more than ``maximumExtentCount`` extents;
  ///   ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when the items
  ///   run past the end of the box.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    guard version <= 2 else { throw content.invalid("version", "\(version) is not 0, 1 or 2") }
    self.version = version
    let sizes = try content.uint16(at: 4)
    let offsetSize = try Self.fieldSize(sizes >> 12, named: "offset_size", in: content)
    let lengthSize = try Self.fieldSize(sizes >> 8 & 0xF, named: "length_size", in: content)
    let baseOffsetSize = try Self.fieldSize(
      sizes >> 4 & 0xF, named: "base_offset_size", in: content)
    let indexSize =
      version == 0 ? 0 : try Self.fieldSize(sizes & 0xF, named: "index_size", in: content)
    let idSize = version == 2 ? 4 : 2
    var position = 6
    let itemCount = try content.uint64Field(at: position, width: idSize)
    position += idSize
    guard itemCount <= Self.maximumItemCount else {
      throw content.invalid(
        "item_count",
        "\(itemCount) items, more than the \(Self.maximumItemCount) this reader accepts")
    }
    var locations: [Location] = []
    var seen: Set<UInt32> = []
    var extentTotal = 0
    for _ in 0..<itemCount {
      let itemID = UInt32(truncatingIfNeeded: try content.uint64Field(at: position, width: idSize))
      position += idSize
      var method = Location.ConstructionMethod.fileOffset
      if version >= 1 {
        switch try content.uint16(at: position) & 0xF {
        case 0: method = .fileOffset
        case 1: method = .itemDataOffset
        case 2: method = .itemOffset
        case let other: method = .reserved(UInt8(other))
        }
        position += 2
      }
      let dataReferenceIndex = try content.uint16(at: position)
      position += 2
      let baseOffset = try content.uint64Field(at: position, width: baseOffsetSize)
      position += baseOffsetSize
      let extentCount = Int(try content.uint16(at: position))
      position += 2
      extentTotal += extentCount
      guard extentTotal <= Self.maximumExtentCount else {
        throw content.invalid(
          "extent_count",
          "more than \(Self.maximumExtentCount) extents in all, more than this "
            + "reader accepts")
      }
      var extents: [Location.Extent] = []
      for _ in 0..<extentCount {
        let index = try content.uint64Field(at: position, width: indexSize)
        position += indexSize
        let offset = try content.uint64Field(at: position, width: offsetSize)
        position += offsetSize
        let length = try content.uint64Field(at: position, width: lengthSize)
        position += lengthSize
        extents.append(Location.Extent(index: index, offset: offset, length: length))
      }
      guard seen.insert(itemID).inserted else { continue }
      locations.append(
        Location(
          itemID: itemID, constructionMethod: method, dataReferenceIndex: dataReferenceIndex,
          baseOffset: baseOffset, extents: extents))
    }
    self.locations = locations
  }

  /// The location of item `itemID`, or `nil` when the box does not list it.
  ///
  /// - Complexity: O(*n*) in the number of items.
  func location(of itemID: UInt32) -> Location? {
    locations.first { $0.itemID == itemID }
  }

  /// A 4-bit size field as a byte count, which must be 0, 4 or 8.
  private static func fieldSize(_ value: UInt16, named name: String, in content: BoxContent)
    throws(BoxParsingError) -> Int
  {
    switch value {
    case 0, 4, 8: return Int(value)
    default: throw content.invalid(name, "\(value) is not 0, 4 or 8")
    }
  }
}
