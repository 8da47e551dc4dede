/// What an XMP packet may hold, told from its bytes before anyone parses it: a search for
/// the local names of the properties that could fill a gap (``ByteSearch``).
///
/// Element and attribute names cannot be written with character references, so a packet
/// that holds a property holds its local name as plain bytes, whatever prefix it binds;
/// a packet without the name cannot hold the property, and parsing it would fill
/// nothing. The converse does not hold (`Make` is also the start of `MakerNote`), so a
/// match only means the packet is worth parsing. A UTF-16 packet is not searched: its
/// names are not these bytes, so it is always worth parsing.
enum XMPMarkers {
  /// The local names of the date properties (``XMPDateProperty``).
  static let date = ["DateTimeOriginal", "DateCreated", "CreateDate"].map { Array($0.utf8) }
  /// The local names of the position properties: either alone is reported when it is
  /// incomplete.
  static let place = ["GPSLatitude", "GPSLongitude"].map { Array($0.utf8) }
  /// The local names of the camera properties (`tiff:Make`, `tiff:Model`).
  static let camera = ["Make", "Model"].map { Array($0.utf8) }

  /// Whether parsing `packet` may fill one of `gaps`: it holds the name of a property
  /// for a missing field, or it is UTF-16.
  ///
  /// - Complexity: O(*n*) for a packet of *n* bytes, at most one search per name.
  static func mayFill(_ gaps: XMPFallback.Gaps, from packet: [UInt8]) -> Bool {
    if isUTF16(packet) { return true }
    return (gaps.needsDate && ByteSearch.containsAny(packet, date))
      || (gaps.needsPlace && ByteSearch.containsAny(packet, place))
      || (gaps.needsCamera && ByteSearch.containsAny(packet, camera))
  }

  /// Whether `packet` starts as ``XMPPacket/utf8Text(_:)`` reads UTF-16: a byte-order
  /// mark, or `<` as a 16-bit unit.
  static func isUTF16(_ packet: [UInt8]) -> Bool {
    packet.starts(with: [0xFE, 0xFF]) || packet.starts(with: [0x00, 0x3C])
      || packet.starts(with: [0xFF, 0xFE]) || packet.starts(with: [0x3C, 0x00])
  }
}
