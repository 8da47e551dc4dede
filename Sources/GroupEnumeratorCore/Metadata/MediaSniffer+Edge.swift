/// Audio files and image formats no reader takes, told from their first bytes.
extension MediaSniffer {
  /// The audio format the content is, for a message (`MP3`, `AAC`, `WAV`, …), or `nil`.
  ///
  /// PhotoKit keeps sound out of Photos, so an audio file is an other file, whatever its
  /// name: an ID3 tag or an MPEG audio frame (MP3), an ADTS frame (AAC), RIFF `WAVE`,
  /// `FORM` `AIFF`/`AIFC`, `fLaC`, Ogg Vorbis, Opus or FLAC, `#!AMR`, and an ISO file whose
  /// major brand is an audio one (`M4A `, `M4B `, `M4P `, `F4A `, `F4B `). An MP4 or
  /// QuickTime file with a general brand and only sound tracks needs its `moov`:
  /// ``QuickTimeMetadataReader/isAudioOnly(_:)`` tells.
  ///
  /// - Parameter header: The file's first bytes (``headerLength`` are enough).
  static func audioFormat(ofHeader header: [UInt8]) -> String? {
    let bytes = header.prefix(headerLength)
    if bytes.starts(with: Array("ID3".utf8)), bytes.count >= 4, bytes[3] <= 4 { return "MP3" }
    if bytes.count >= 4, bytes[0] == 0xFF {
      let second = bytes[1]
      let third = bytes[2]
      // ADTS: 12 sync bits, the MPEG version bit, layer 00.
      if second & 0xF6 == 0xF0, (third >> 2) & 0x0F < 13 { return "AAC" }
      // MPEG audio: 11 sync bits, a defined version and layer, a bit rate and sample
      // rate that are not the forbidden values.
      if second & 0xE0 == 0xE0, (second >> 3) & 3 != 1, (second >> 1) & 3 != 0,
        third >> 4 != 0x0F, (third >> 2) & 3 != 3
      {
        return "MP3"
      }
    }
    if bytes.starts(with: Array("RIFF".utf8)), bytes.dropFirst(8).starts(with: Array("WAVE".utf8)) {
      return "WAV"
    }
    if bytes.starts(with: Array("FORM".utf8)),
      bytes.dropFirst(8).starts(with: Array("AIFF".utf8))
        || bytes.dropFirst(8).starts(with: Array("AIFC".utf8))
    {
      return "AIFF"
    }
    if bytes.starts(with: Array("fLaC".utf8)) { return "FLAC" }
    if bytes.starts(with: Array("#!AMR".utf8)) { return "AMR" }
    if bytes.starts(with: Array("OggS".utf8)) {
      let codec = bytes.dropFirst(28)
      if codec.starts(with: [0x01] + Array("vorbis".utf8)) { return "Ogg Vorbis" }
      if codec.starts(with: Array("OpusHead".utf8)) { return "Opus" }
      if codec.starts(with: [0x7F] + Array("FLAC".utf8)) { return "Ogg FLAC" }
    }
    if bytes.count >= 12, bytes.dropFirst(4).starts(with: Array("ftyp".utf8)) {
      let major = String(decoding: bytes.dropFirst(8).prefix(4), as: UTF8.self)
      if ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "].contains(major) { return "M4A" }
    }
    return nil
  }

  /// An image format no reader takes, found by its content, with the pixel size its
  /// header gives in the bytes at hand.
  ///
  /// A class, so that the ``ScannedFile`` holding it (one per file of the library, all
  /// held until the walk ends) grows by one word, not by the three fields.
  final class UnreadImage: Sendable, Hashable {
    /// The format's name, for a message (`PCX`, `SGI`, `PPM`, …).
    let name: String
    /// Width and height from the header, when it gives them plausibly.
    let width: Int?
    let height: Int?

    init(name: String, width: Int? = nil, height: Int? = nil) {
      self.name = name
      self.width = width
      self.height = height
    }

    static func == (lhs: UnreadImage, rhs: UnreadImage) -> Bool {
      lhs.name == rhs.name && lhs.width == rhs.width && lhs.height == rhs.height
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(name)
      hasher.combine(width)
      hasher.combine(height)
    }
  }

  /// The image format the content is among those no reader takes, or `nil`.
  ///
  /// By magic: PCX (`0A`, a version, an encoding, a bit depth), SGI (`01 DA`), the Netpbm
  /// family (`P1`…`P6` with a size that parses, `P7` with its `WIDTH` line), QOI (`qoif`), DDS (`DDS `), GIMP XCF, OpenEXR and Radiance HDR.
  /// Truevision TGA has no magic, so only a name ending `.tga` (or `.icb`, `.vda`, `.vst`)
  /// with a header that fits TGA's layout is taken as one. A size of 0, or over
  /// 1,048,576 on a side, is no size.
  ///
  /// - Parameters:
  ///   - header: The file's first bytes (``headerLength`` are enough).
  ///   - name: The file name's bytes, for TGA only.
  static func unreadImage(ofHeader header: [UInt8], name: [UInt8]) -> UnreadImage? {
    let bytes = Array(header.prefix(headerLength))
    let le = IntegerReader.littleEndian
    let be = IntegerReader.bigEndian
    func image(_ name: String, _ width: Int?, _ height: Int?) -> UnreadImage {
      guard let width, let height, (1...(1 << 20)).contains(width),
        (1...(1 << 20)).contains(height)
      else { return UnreadImage(name: name) }
      return UnreadImage(name: name, width: width, height: height)
    }
    if bytes.count >= 12, bytes[0] == 0x0A, [0, 2, 3, 4, 5].contains(bytes[1]),
      bytes[2] <= 1, [1, 2, 4, 8].contains(bytes[3]),
      let xMin = le.uint16(bytes, at: 4), let yMin = le.uint16(bytes, at: 6),
      let xMax = le.uint16(bytes, at: 8), let yMax = le.uint16(bytes, at: 10)
    {
      let width = xMax >= xMin ? Int(xMax) - Int(xMin) + 1 : nil
      let height = yMax >= yMin ? Int(yMax) - Int(yMin) + 1 : nil
      return image("PCX", width, height)
    }
    if bytes.count >= 10, bytes[0] == 0x01, bytes[1] == 0xDA, bytes[2] <= 1,
      bytes[3] == 1 || bytes[3] == 2, let dimension = be.uint16(bytes, at: 4),
      (1...3).contains(dimension), let width = be.uint16(bytes, at: 6),
      let height = be.uint16(bytes, at: 8)
    {
      return image("SGI", Int(width), dimension == 1 ? 1 : Int(height))
    }
    if let netpbm = netpbmImage(bytes) { return netpbm }
    if bytes.starts(with: Array("qoif".utf8)), let width = be.uint32(bytes, at: 4),
      let height = be.uint32(bytes, at: 8)
    {
      return image("QOI", Int(width), Int(height))
    }
    if bytes.starts(with: Array("DDS ".utf8)), le.uint32(bytes, at: 4) == 124,
      let height = le.uint32(bytes, at: 12), let width = le.uint32(bytes, at: 16)
    {
      return image("DDS", Int(width), Int(height))
    }
    if bytes.starts(with: Array("gimp xcf ".utf8)), let width = be.uint32(bytes, at: 14),
      let height = be.uint32(bytes, at: 18)
    {
      return image("XCF", Int(width), Int(height))
    }
    if bytes.starts(with: [0x76, 0x2F, 0x31, 0x01]) { return UnreadImage(name: "EXR") }
    if bytes.starts(with: Array("#?RADIANCE\n".utf8)) || bytes.starts(with: Array("#?RGBE\n".utf8))
    {
      return UnreadImage(name: "HDR")
    }
    if let ext = lowercasedExtension(of: name), ["tga", "icb", "vda", "vst"].contains(ext),
      bytes.count >= 18, bytes[1] <= 1, [1, 2, 3, 9, 10, 11].contains(bytes[2]),
      [8, 15, 16, 24, 32].contains(bytes[16]), bytes[17] & 0xC0 == 0,
      let width = le.uint16(bytes, at: 12), let height = le.uint16(bytes, at: 14)
    {
      return image("TGA", Int(width), Int(height))
    }
    return nil
  }

  /// A Netpbm image: `P1`…`P6` then white space, the width and the height as decimal text
  /// (comments from `#` to the line's end may come between); `P7` (PAM) without a size.
  private static func netpbmImage(_ bytes: [UInt8]) -> UnreadImage? {
    guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P"),
      (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]), isNetpbmSpace(bytes[2])
    else { return nil }
    let names = ["PBM", "PGM", "PPM", "PBM", "PGM", "PPM", "PAM"]
    let name = names[Int(bytes[1] - UInt8(ascii: "1"))]
    if bytes[1] == UInt8(ascii: "7") {
      return bytes[2] == 0x0A && bytes.dropFirst(3).starts(with: Array("WIDTH ".utf8))
        ? UnreadImage(name: name) : nil
    }
    var index = 2
    func number() -> Int? {
      while index < bytes.count {
        if isNetpbmSpace(bytes[index]) {
          index += 1
        } else if bytes[index] == UInt8(ascii: "#") {
          while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
        } else {
          break
        }
      }
      var value = 0
      var digits = 0
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
        value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
        digits += 1
        index += 1
        guard digits <= 7 else { return nil }
      }
      // The number must end inside the bytes at hand, or it may be cut.
      guard digits > 0, index < bytes.count, isNetpbmSpace(bytes[index]) else { return nil }
      return value
    }
    // Text that only starts like a header (`P1 is…`) is not an image.
    guard let width = number(), let height = number(), (1...(1 << 20)).contains(width),
      (1...(1 << 20)).contains(height)
    else { return nil }
    return UnreadImage(name: name, width: width, height: height)
  }

  private static func isNetpbmSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
  }
}
