internal import CZlib

/// The PNG files of the picture cache: their structure checked and their text chunks read,
/// and text chunks added to a PNG libvips encoded.
///
/// A PNG is the 8-byte signature, then chunks: a big-endian length (at most 2^31 − 1), a
/// four-letter type, the data, and a CRC-32 over the type and the data. An entry is
/// well-formed here when it starts with an `IHDR` of 13 bytes and a non-zero size, every
/// chunk lies within the file and carries the right CRC, an `IEND` closes it, and it has at
/// most ``maximumChunks`` chunks. Text chunks (`tEXt`) are a Latin-1 key of 1…79 bytes, a
/// zero byte and a Latin-1 value.
enum ThumbnailPNG {
  /// The PNG file signature.
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  /// The largest cache entry read: 32 MiB (a 1024 × 1024 RGBA picture of noise is 4 MiB).
  static let maximumFileSize = 32 << 20
  /// The most chunks an entry may have; past it the entry is corrupt (a flood of tiny
  /// chunks costs nothing more than this many steps).
  static let maximumChunks = 4096
  /// The longest text chunk whose value is kept; longer ones are skipped.
  static let maximumTextLength = 64 << 10

  /// What a well-formed entry holds.
  struct Contents: Equatable {
    var width: Int
    var height: Int
    /// The text chunks, by key; the first of two with one key wins.
    var text: [String: String]
  }

  /// Why bytes are not a well-formed PNG: a sentence's end, for messages and tests.
  struct Corrupt: Error, Equatable {
    var reason: String
  }

  /// Checks the structure of `bytes` and reads its size and text chunks.
  ///
  /// - Parameters:
  ///   - bytes: The whole file.
  ///   - checksImageData: Whether the image data's chunks (`IDAT`) have their CRCs checked
  ///     too. Every other chunk's always is. Off only for bytes handed on as they are to
  ///     something that decodes them itself (a browser, which checks the image data's own
  ///     zlib checksums): the structure, the size and the text are still checked.
  static func read(_ bytes: [UInt8], checksImageData: Bool = true) throws(Corrupt) -> Contents {
    guard bytes.count >= 8, bytes[0..<8].elementsEqual(signature) else {
      throw Corrupt(reason: "it does not start with the PNG signature")
    }
    var offset = 8
    var chunks = 0
    var size: (width: Int, height: Int)?
    var text: [String: String] = [:]
    while true {
      guard chunks < maximumChunks else {
        throw Corrupt(reason: "it has more than \(maximumChunks) chunks")
      }
      chunks += 1
      guard bytes.count - offset >= 12 else {
        throw Corrupt(reason: "it ends inside a chunk at offset \(offset), before IEND")
      }
      let length = Int(bigEndian(bytes, offset))
      let (dataEnd, overflow) = (offset + 8).addingReportingOverflow(length)
      guard length <= Int(Int32.max), !overflow, dataEnd <= bytes.count - 4 else {
        throw Corrupt(reason: "the chunk at offset \(offset) claims \(length) bytes, past the end")
      }
      let type = bigEndian(bytes, offset + 4)
      guard (0..<4).allSatisfy({ isLetter(UInt8(truncatingIfNeeded: type >> ($0 * 8))) }) else {
        throw Corrupt(reason: "the chunk at offset \(offset) has no four-letter type")
      }
      if checksImageData || type != ChunkType.imageData {
        let stored = bigEndian(bytes, dataEnd)
        guard checksum(bytes, (offset + 4)..<dataEnd) == stored else {
          throw Corrupt(reason: "the chunk at offset \(offset) fails its CRC")
        }
      }
      try take(
        bytes, type: type, data: (offset + 8)..<dataEnd, isFirst: chunks == 1, size: &size,
        text: &text)
      if chunks > 1, type == ChunkType.end { break }
      offset = dataEnd + 4
    }
    guard let size else { throw Corrupt(reason: "it has no IHDR") }
    return Contents(width: size.width, height: size.height, text: text)
  }

  /// Checks an entry handed on undecoded from its first and last bytes only: `head` is the
  /// file's first bytes, `tail` its last 12, `fileSize` its length. The signature, a
  /// 13-byte `IHDR` first and every chunk before the first image data (`IDAT`) are checked
  /// as ``read(_:checksImageData:)`` checks them, CRCs included, and the file must end
  /// with an `IEND` chunk; the chunks from the first `IDAT` on are not read (a browser
  /// decodes them). Text chunks after the image data are not seen.
  ///
  /// - Returns: `nil` when `head` ends before the first `IDAT` (read the whole file).
  static func readHead(_ head: [UInt8], tail: [UInt8], fileSize: Int) throws(Corrupt)
    -> Contents?
  {
    guard head.count >= 8, head[0..<8].elementsEqual(signature) else {
      throw Corrupt(reason: "it does not start with the PNG signature")
    }
    let end: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    guard fileSize >= head.count, tail.elementsEqual(end) else {
      throw Corrupt(reason: "it does not end with IEND")
    }
    var offset = 8
    var chunks = 0
    var size: (width: Int, height: Int)?
    var text: [String: String] = [:]
    while true {
      guard chunks < maximumChunks else {
        throw Corrupt(reason: "it has more than \(maximumChunks) chunks")
      }
      chunks += 1
      guard head.count - offset >= 8 else { return nil }
      let length = Int(bigEndian(head, offset))
      let type = bigEndian(head, offset + 4)
      let (dataEnd, overflow) = (offset + 8).addingReportingOverflow(length)
      guard length <= Int(Int32.max), !overflow, dataEnd <= fileSize - 4 else {
        throw Corrupt(reason: "the chunk at offset \(offset) claims \(length) bytes, past the end")
      }
      guard (0..<4).allSatisfy({ isLetter(UInt8(truncatingIfNeeded: type >> ($0 * 8))) }) else {
        throw Corrupt(reason: "the chunk at offset \(offset) has no four-letter type")
      }
      if type == ChunkType.imageData {
        guard let size else { throw Corrupt(reason: "its first chunk is not a 13-byte IHDR") }
        return Contents(width: size.width, height: size.height, text: text)
      }
      guard type != ChunkType.end else {
        throw Corrupt(reason: "it has no image data before IEND")
      }
      guard dataEnd <= head.count - 4 else { return nil }
      guard checksum(head, (offset + 4)..<dataEnd) == bigEndian(head, dataEnd) else {
        throw Corrupt(reason: "the chunk at offset \(offset) fails its CRC")
      }
      try take(
        head, type: type, data: (offset + 8)..<dataEnd, isFirst: chunks == 1, size: &size,
        text: &text)
      offset = dataEnd + 4
    }
  }

  /// Keeps what one checked chunk says: the size from the `IHDR`, which must be the first
  /// chunk and 13 bytes, and a `tEXt` chunk's key and value (the first of each key).
  private static func take(
    _ bytes: [UInt8], type: UInt32, data: Range<Int>, isFirst: Bool,
    size: inout (width: Int, height: Int)?, text: inout [String: String]
  ) throws(Corrupt) {
    if isFirst {
      guard type == ChunkType.header, data.count == 13 else {
        throw Corrupt(reason: "its first chunk is not a 13-byte IHDR")
      }
      let width = Int(bigEndian(bytes, data.lowerBound))
      let height = Int(bigEndian(bytes, data.lowerBound + 4))
      guard width > 0, height > 0 else { throw Corrupt(reason: "its size is zero") }
      size = (width, height)
    } else if type == ChunkType.text, data.count <= maximumTextLength,
      let zero = bytes[data].firstIndex(of: 0), (1...79).contains(zero - data.lowerBound)
    {
      let key = latin1(bytes[data.lowerBound..<zero])
      if text[key] == nil { text[key] = latin1(bytes[(zero + 1)..<data.upperBound]) }
    }
  }

  /// The chunk types read here, as their four ASCII letters read big-endian.
  private enum ChunkType {
    static let header: UInt32 = 0x4948_4452  // IHDR
    static let imageData: UInt32 = 0x4944_4154  // IDAT
    static let text: UInt32 = 0x7445_5874  // tEXt
    static let end: UInt32 = 0x4945_4E44  // IEND
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  /// `png` with a `tEXt` chunk for each of `text` (keys and values in order) inserted after
  /// its `IHDR`; `nil` when `png` does not start with a signature and an `IHDR`, or a key is
  /// not 1…79 bytes. Values are written as Latin-1: characters past U+00FF become `?`.
  static func inserting(text: [(key: String, value: String)], into png: [UInt8]) -> [UInt8]? {
    let headerEnd = 8 + 12 + 13
    guard png.count >= headerEnd, Array(png[0..<8]) == signature,
      bigEndian(png, 8) == 13, Array(png[12..<16]) == Array("IHDR".utf8)
    else { return nil }
    var chunks: [UInt8] = []
    for (key, value) in text {
      let keyBytes = latin1Bytes(key)
      guard (1...79).contains(keyBytes.count), !keyBytes.contains(0) else { return nil }
      let data = keyBytes + [0] + latin1Bytes(value).filter { $0 != 0 }
      guard let length = UInt32(exactly: data.count), length <= UInt32(Int32.max) else {
        return nil
      }
      let body = Array("tEXt".utf8) + data
      chunks += bigEndianBytes(length) + body + bigEndianBytes(checksum(body, 0..<body.count))
    }
    return Array(png[0..<headerEnd]) + chunks + Array(png[headerEnd...])
  }

  /// The CRC-32 of `bytes[range]`, by zlib.
  private static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return 0 }
      var crc = crc32(0, nil, 0)
      var start = range.lowerBound
      // zlib takes a 32-bit length; a chunk is at most 2^31 − 1 bytes, but stay general.
      while start < range.upperBound {
        let step = min(range.upperBound - start, 1 << 30)
        crc = crc32(crc, base + start, uInt(step))
        start += step
      }
      return UInt32(truncatingIfNeeded: crc)
    }
  }

  /// The big-endian `UInt32` at `offset` (the caller checked that four bytes are there).
  private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
      | UInt32(bytes[offset + 3])
  }

  private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
  }

  private static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
    // ASCII (what the cache's keys and values are: a URI is escaped, a time is digits) is
    // the same in Latin-1 and UTF-8, and decoded as UTF-8 without a scalar at a time.
    if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
    return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
  }

  private static func latin1Bytes(_ text: String) -> [UInt8] {
    text.unicodeScalars.map { $0.value <= 0xFF ? UInt8($0.value) : UInt8(ascii: "?") }
  }
}
