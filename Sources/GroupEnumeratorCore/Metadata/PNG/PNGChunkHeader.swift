/// The 8 bytes in front of a PNG chunk's data: its length and type.
///
/// A chunk is `length` (a big-endian `UInt32`, at most 2^31 − 1), a 4-byte type, `length`
/// bytes of data and a 4-byte CRC over the type and the data.
struct PNGChunkHeader: Equatable {
  /// The chunk types the metadata reader looks at.
  enum Kind: Equatable {
    case header, imageData, end, exif, text, compressedText, internationalText, other
  }

  /// The eight bytes every PNG file starts with.
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  /// The largest chunk length PNG allows: 2^31 − 1.
  static let maximumLength = Int(Int32.max)

  /// Where the chunk starts in the file (at its length field).
  var offset: Int
  /// The declared length of the data.
  var length: Int
  /// The 4 type bytes.
  var type: [UInt8]

  /// Parses the 8 header bytes of the chunk at `offset`.
  ///
  /// - Returns: `nil` when `bytes` holds fewer than 8 bytes.
  /// - Throws: An ``AssetProblem`` when the length is over 2^31 − 1 or the type is not
  ///   four ASCII letters.
  init?(_ bytes: [UInt8], offset: Int) throws(AssetProblem) {
    guard bytes.count >= 8, let length = IntegerReader.bigEndian.uint32(bytes, at: 0) else {
      return nil
    }
    self.offset = offset
    self.type = Array(bytes[4..<8])
    guard let length = Int(exactly: length), length <= Self.maximumLength else {
      throw AssetProblem(
        .malformed,
        "The PNG chunk at offset \(offset) declares \(length) bytes, more than PNG allows.")
    }
    self.length = length
    guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
      throw AssetProblem(
        .malformed,
        "The PNG chunk at offset \(offset) has type bytes \(type.map(Self.hex).joined()), "
          + "which are not four letters.")
    }
  }

  /// The chunk's type as text, for messages.
  var name: String { String(decoding: type, as: Unicode.ASCII.self) }

  /// What the reader makes of this chunk type.
  var kind: Kind {
    switch name {
    case "IHDR": .header
    case "IDAT": .imageData
    case "IEND": .end
    case "eXIf": .exif
    case "tEXt": .text
    case "zTXt": .compressedText
    case "iTXt": .internationalText
    default: .other
    }
  }

  /// Where the data starts.
  var dataOffset: Int { offset + 8 }

  /// Where the next chunk starts: after the data and the 4-byte CRC.
  var nextOffset: Int { offset + 12 + length }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
