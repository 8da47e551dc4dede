/// The primary item box, `pitm`: which item of a `meta` box is the one to show.
///
/// A full box: version 0 holds a 16-bit
/// `item_ID`, version 1 a 32-bit one.
struct PrimaryItemBox: Hashable, Sendable {
  /// The primary item's identifier.
  let itemID: UInt32

  /// The most content bytes the box needs: version and flags, then a 32-bit identifier.
  static let loadLength = 8

  /// Parses a `pitm` box's content.
  ///
  /// - Throws: ``BoxParsingError/unsupportedVersion(type:offset:version:)`` for versions
  ///   other than 0 and 1; ``BoxParsingError/contentTooShort(type:offset:needed:available:)``
  ///   when the identifier is cut short.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    switch version {
    case 0: itemID = UInt32(try content.uint16(at: 4))
    case 1: itemID = try content.uint32(at: 4)
    default:
      throw .unsupportedVersion(
        type: content.header.type, offset: content.header.offset, version: version)
    }
  }
}
