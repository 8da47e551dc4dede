/// The GoPro Metadata Format entries of a GoPro movie's `udta/GPMF` box, as far as the
/// camera model: GoPro's GPMF layout, each entry a four-character key, a type byte, a
/// structure size byte and a big-endian 16-bit repeat count, then size × repeat bytes of
/// data padded to a multiple of 4. Type 0 holds nested entries (`DEVC`, `STRM`).
enum GoProMetadata {
  /// The most bytes of the box read: the global settings GoPro cameras write there are a
  /// few KiB.
  static let maximumLength = 64 * 1024
  /// The most entries looked at, and the deepest nesting followed.
  static let maximumEntries = 4096
  static let maximumDepth = 4

  /// The text of the first `MINF` entry of type `c` (characters), trailing NULs removed;
  /// `nil` when there is none or the entries run past the bytes.
  static func model(in bytes: ArraySlice<UInt8>) -> [UInt8]? {
    var entries = 0
    return find(in: bytes, depth: 0, entries: &entries)
  }

  private static func find(in bytes: ArraySlice<UInt8>, depth: Int, entries: inout Int)
    -> [UInt8]?
  {
    var index = bytes.startIndex
    while bytes.endIndex - index >= 8 {
      entries += 1
      guard entries <= maximumEntries else { return nil }
      let key = bytes[index..<(index + 4)]
      let type = bytes[index + 4]
      let length = Int(bytes[index + 5]) * (Int(bytes[index + 6]) << 8 | Int(bytes[index + 7]))
      let start = index + 8
      guard length <= bytes.endIndex - start else { return nil }
      let data = bytes[start..<(start + length)]
      if type == 0, depth < maximumDepth,
        let found = find(in: data, depth: depth + 1, entries: &entries)
      {
        return found
      }
      if key.elementsEqual("MINF".utf8), type == UInt8(ascii: "c") {
        var text = Array(data)
        while text.last == 0 { text.removeLast() }
        return text
      }
      // Data is padded to a multiple of 4 bytes; the padding may be cut at the end.
      index = start + min((length + 3) / 4 * 4, bytes.endIndex - start)
    }
    return nil
  }
}
