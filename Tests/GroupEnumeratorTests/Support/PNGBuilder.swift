import CZlib

/// Builds PNG files chunk by chunk, with real CRCs, for reader tests.
///
/// The CRC is computed here bit by bit (PNG §5.5, polynomial 0xEDB88320) rather than by
/// the code under test; zlib is used only to compress text, as a writer would.
enum PNGBuilder {
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// A chunk: length, type, data, CRC over type and data.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return BoxBuilder.be32(UInt32(data.count)) + typeBytes + data
      + BoxBuilder.be32(crc(typeBytes + data))
  }

  /// A chunk whose length field says `length` whatever its data, with the CRC of the data.
  static func rawChunk(length: UInt32, _ type: String, _ data: [UInt8] = []) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return BoxBuilder.be32(length) + typeBytes + data + BoxBuilder.be32(crc(typeBytes + data))
  }

  /// An `IHDR` chunk for an 8-bit grey image.
  static func header(width: UInt32, height: UInt32) -> [UInt8] {
    chunk("IHDR", BoxBuilder.be32(width) + BoxBuilder.be32(height) + [8, 0, 0, 0, 0])
  }

  /// One `IDAT` chunk of `count` bytes (not valid image data: the reader never reads it).
  static func imageData(count: Int = 10) -> [UInt8] {
    chunk("IDAT", [UInt8](repeating: 0xAB, count: count))
  }

  static let end: [UInt8] = chunk("IEND", [])

  /// A PNG: signature, `IHDR`, the chunks, one `IDAT`, then the chunks after it, `IEND`.
  static func png(
    width: UInt32 = 64, height: UInt32 = 48, before: [[UInt8]] = [], after: [[UInt8]] = []
  ) -> [UInt8] {
    signature + header(width: width, height: height) + before.flatMap { $0 } + imageData()
      + after.flatMap { $0 } + end
  }

  /// ImageMagick's raw profile text: newline, name, newline, the length right-aligned in
  /// 8 columns, newline, the bytes as lowercase hex in lines of 72 digits.
  static func rawProfile(_ name: String, _ bytes: [UInt8], declaredLength: Int? = nil)
    -> [UInt8]
  {
    let length = String(declaredLength ?? bytes.count)
    var text = "\n\(name)\n" + String(repeating: " ", count: max(0, 8 - length.count)) + length
    let digits = Array("0123456789abcdef")
    for (index, byte) in bytes.enumerated() {
      if index % 36 == 0 { text += "\n" }
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return Array((text + "\n").utf8)
  }

  /// A `tEXt` chunk.
  static func text(_ keyword: String, _ text: [UInt8]) -> [UInt8] {
    chunk("tEXt", Array(keyword.utf8) + [0] + text)
  }

  /// A `zTXt` chunk: the text compressed with zlib.
  static func compressedText(_ keyword: String, _ text: [UInt8]) throws -> [UInt8] {
    chunk("zTXt", Array(keyword.utf8) + [0, 0] + (try zlib(text)))
  }

  /// An `iTXt` chunk, compressed with zlib when `compressed` is true.
  static func internationalText(_ keyword: String, _ text: [UInt8], compressed: Bool) throws
    -> [UInt8]
  {
    let body = compressed ? try zlib(text) : text
    return chunk(
      "iTXt", Array(keyword.utf8) + [0, compressed ? 1 : 0, 0] + Array("en".utf8) + [0, 0] + body)
  }

  /// An `eXIf` chunk.
  static func exif(_ tiff: [UInt8]) -> [UInt8] { chunk("eXIf", tiff) }

  /// `bytes` compressed with zlib at its best level.
  static func zlib(_ bytes: [UInt8]) throws -> [UInt8] {
    var length = compressBound(uLong(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(length))
    let status = output.withUnsafeMutableBufferPointer { out in
      bytes.withUnsafeBufferPointer { input in
        compress2(out.baseAddress, &length, input.baseAddress, uLong(input.count), 9)
      }
    }
    guard status == Z_OK else { throw CompressionFailure(status: status) }
    return Array(output.prefix(Int(length)))
  }

  struct CompressionFailure: Error {
    var status: Int32
  }

  /// The PNG CRC of `bytes`.
  static func crc(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
  }
}
