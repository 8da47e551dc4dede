/// What an H.264 elementary stream tells about a movie (a byte stream of
/// NAL units behind start codes):
/// the picture size from the sequence parameter set, and an AVCHD camera's recording time
/// from the `MDPM` user data of its supplemental enhancement information.
///
/// NAL units are found by their start codes (`00 00 01`); the emulation prevention bytes
/// (`00 00 03`) are removed before a unit is parsed. Only SPS (type 7) and SEI
/// (type 6) units are parsed; every read is bounds-checked, and a unit that ends early is
/// simply not used.
struct H264Stream {
  /// The coded size, after the SPS's frame cropping.
  var size: (width: Int, height: Int)?
  /// The MDPM recording time: wall clock and, when recorded, the UTC offset.
  var recordingDate: CaptureDate?
  /// The values of an MDPM date that could not be read, as text for a problem.
  var badRecordingDate: String?
  /// The camera's maker, from the MDPM maker code (tag 0xe0's first 16 bits) when it is
  /// one of the codes AVCHD cameras are known to write.
  var make: String?
  /// A Sony camera's model name: MDPM tags 0xe4, 0xe5 and 0xe6, twelve bytes of text
  /// (`ILCE-7M3`), cleaned as ``CameraText`` says; read only when the maker is Sony, the
  /// only maker known to write it there.
  var model: String?

  /// The MDPM maker codes and their makers' names, as exiftool names them.
  static let makerNames: [Int: String] = [
    0x0103: "Panasonic", 0x0108: "Sony", 0x1011: "Canon", 0x1104: "JVC",
  ]

  /// The user-data UUID in front of `MDPM` (exiftool's H264 tags:
  /// `17ee8c60-f84d-11d9-8cd6-0800200c9a66`), then `MDPM` itself.
  static let mdpmPrefix: [UInt8] = [
    0x17, 0xEE, 0x8C, 0x60, 0xF8, 0x4D, 0x11, 0xD9, 0x8C, 0xD6, 0x08, 0x00, 0x20, 0x0C, 0x9A, 0x66,
    0x4D, 0x44, 0x50, 0x4D,
  ]
  /// The most SPS scaling-list or POC-cycle entries read (the standard allows 255).
  private static let maximumCycle = 255

  /// Whether both the size and the recording date were found.
  var isComplete: Bool { size != nil && (recordingDate != nil || badRecordingDate != nil) }

  /// Reads the SPS and SEI units of one stretch of the byte stream (an access unit).
  mutating func scan(_ bytes: [UInt8]) {
    var index = 0
    var start: Int?
    func handle(_ unit: ArraySlice<UInt8>) {
      guard let header = unit.first, header & 0x80 == 0 else { return }
      switch header & 0x1F {
      case 7 where size == nil: size = Self.sequenceSize(Self.rbsp(unit.dropFirst()))
      case 6 where recordingDate == nil && badRecordingDate == nil:
        readSEI(Self.rbsp(unit.dropFirst()))
      default: break
      }
    }
    while index + 2 < bytes.count {
      if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
        if let start { handle(bytes[start..<index]) }
        index += 3
        start = index
      } else {
        index += 1
      }
    }
    if let start, start < bytes.count { handle(bytes[start...]) }
  }

  /// The unit's payload with the emulation prevention bytes removed.
  static func rbsp(_ unit: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(unit.count)
    var zeros = 0
    for byte in unit {
      if zeros >= 2, byte == 3 {
        zeros = 0
        continue
      }
      zeros = byte == 0 ? zeros + 1 : 0
      out.append(byte)
    }
    return out
  }

  // MARK: - Sequence parameter set

  /// The picture size an SPS gives, or `nil` when it is cut short or out of range.
  static func sequenceSize(_ sps: [UInt8]) -> (width: Int, height: Int)? {
    var bits = BitReader(sps)
    guard let profile = bits.bits(8), bits.bits(16) != nil, bits.unsigned() != nil else {
      return nil
    }
    var chromaFormat = 1
    var separateColourPlanes = false
    if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
      guard let format = bits.unsigned(), format <= 3 else { return nil }
      chromaFormat = format
      if format == 3 {
        guard let flag = bits.bits(1) else { return nil }
        separateColourPlanes = flag == 1
      }
      guard bits.unsigned() != nil, bits.unsigned() != nil, bits.bits(1) != nil,
        let scalingMatrix = bits.bits(1)
      else { return nil }
      if scalingMatrix == 1 {
        for list in 0..<(chromaFormat == 3 ? 12 : 8) {
          guard let present = bits.bits(1) else { return nil }
          if present == 1, !skipScalingList(&bits, size: list < 6 ? 16 : 64) { return nil }
        }
      }
    }
    guard bits.unsigned() != nil, let pocType = bits.unsigned() else { return nil }
    switch pocType {
    case 0: guard bits.unsigned() != nil else { return nil }
    case 1:
      guard bits.bits(1) != nil, bits.signed() != nil, bits.signed() != nil,
        let cycle = bits.unsigned(), cycle <= maximumCycle
      else { return nil }
      for _ in 0..<cycle { guard bits.signed() != nil else { return nil } }
    case 2: break
    default: return nil
    }
    guard bits.unsigned() != nil, bits.bits(1) != nil, let widthInMacroblocks = bits.unsigned(),
      let heightInMapUnits = bits.unsigned(), let frameMacroblocksOnly = bits.bits(1),
      widthInMacroblocks < 1 << 16, heightInMapUnits < 1 << 16
    else { return nil }
    if frameMacroblocksOnly == 0 { guard bits.bits(1) != nil else { return nil } }
    guard bits.bits(1) != nil, let cropping = bits.bits(1) else { return nil }
    var width = (widthInMacroblocks + 1) * 16
    var height = (2 - frameMacroblocksOnly) * (heightInMapUnits + 1) * 16
    if cropping == 1 {
      guard let left = bits.unsigned(), let right = bits.unsigned(), let top = bits.unsigned(),
        let bottom = bits.unsigned()
      else { return nil }
      let chromaArrayType = separateColourPlanes ? 0 : chromaFormat
      let unitX = chromaArrayType == 0 || chromaArrayType == 3 ? 1 : 2
      let unitY = (chromaArrayType == 1 ? 2 : 1) * (2 - frameMacroblocksOnly)
      width -= unitX * (left + right)
      height -= unitY * (top + bottom)
    }
    guard width > 0, height > 0 else { return nil }
    return (width, height)
  }

  /// Skips one `scaling_list()`; `false` when the unit ends inside it.
  private static func skipScalingList(_ bits: inout BitReader, size: Int) -> Bool {
    var last = 8
    var next = 8
    for _ in 0..<size where next != 0 {
      guard let delta = bits.signed(), abs(delta) <= 128 else { return false }
      next = (last + delta + 256) % 256
      if next != 0 { last = next }
    }
    return true
  }

  // MARK: - Supplemental enhancement information

  /// Looks for the MDPM block in one SEI unit's messages.
  private mutating func readSEI(_ sei: [UInt8]) {
    var index = 0
    while index < sei.count {
      var type = 0
      var size = 0
      while index < sei.count, sei[index] == 0xFF, type < 1 << 16 {
        type += 255
        index += 1
      }
      guard index < sei.count else { return }
      type += Int(sei[index])
      index += 1
      while index < sei.count, sei[index] == 0xFF, size < 1 << 20 {
        size += 255
        index += 1
      }
      guard index < sei.count else { return }
      size += Int(sei[index])
      index += 1
      guard size <= sei.count - index else { return }
      if type == 5, size > Self.mdpmPrefix.count,
        sei[index..<(index + Self.mdpmPrefix.count)].elementsEqual(Self.mdpmPrefix)
      {
        readMDPM(sei[(index + Self.mdpmPrefix.count)..<(index + size)])
        return
      }
      index += size
    }
  }

  /// Reads the recording time from an MDPM block: a count, then 5-byte entries of a tag
  /// and four bytes. Tag 0x18 holds the zone byte, the year (two BCD bytes) and the
  /// month; tag 0x19, which follows it, the day, hour, minute and second (BCD). The zone
  /// byte: 0x20 the sign (set: west of UTC), bits 1–4 the hours, 0x01 a half hour. Tag
  /// 0xe0 begins with the maker code (``makerNames``); a Sony's tags 0xe4–0xe6 hold its
  /// model name.
  private mutating func readMDPM(_ block: ArraySlice<UInt8>) {
    guard let count = block.first else { return }
    var entries: [UInt8: ArraySlice<UInt8>] = [:]
    var index = block.startIndex + 1
    for _ in 0..<Int(count) {
      guard block.endIndex - index >= 5 else { break }
      entries[block[index]] = block[(index + 1)..<(index + 5)]
      index += 5
    }
    if let maker = entries[0xE0] {
      make = Self.makerNames[Int(maker[maker.startIndex]) << 8 | Int(maker[maker.startIndex + 1])]
    }
    if make == "Sony", let first = entries[0xE4] {
      let text = Array(first) + Array(entries[0xE5] ?? []) + Array(entries[0xE6] ?? [])
      model = (try? CameraText.parse(text)) ?? nil
    }
    guard let first = entries[0x18], let second = entries[0x19] else { return }
    let zone = first[first.startIndex]
    let digits = Array(first.dropFirst()) + Array(second)
    guard digits.allSatisfy({ $0 >> 4 <= 9 && $0 & 0x0F <= 9 }) else {
      badRecordingDate = digits.map { String($0, radix: 16) }.joined(separator: " ")
      return
    }
    let value = digits.map { Int($0 >> 4) * 10 + Int($0 & 0x0F) }
    let offset =
      (zone & 0x20 != 0 ? -1 : 1) * (Int((zone >> 1) & 0x0F) * 3600 + Int(zone & 0x01) * 1800)
    guard
      let date = CaptureDate(
        year: value[0] * 100 + value[1], month: value[2], day: value[3], hour: value[4],
        minute: value[5], second: value[6], zone: .offset(seconds: offset),
        source: .h264DateTimeOriginal)
    else {
      badRecordingDate = value.map(String.init).joined(separator: " ")
      return
    }
    recordingDate = date
  }
}

/// Reads bits most significant first, and the Exp-Golomb codes of H.264; every read
/// past the end gives `nil`.
struct BitReader {
  private let bytes: [UInt8]
  private var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The next `count` (at most 32) bits as a number.
  mutating func bits(_ count: Int) -> Int? {
    guard count <= 32, position + count <= bytes.count * 8 else { return nil }
    var value = 0
    for _ in 0..<count {
      let bit = (bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
      value = value << 1 | Int(bit)
      position += 1
    }
    return value
  }

  /// An unsigned Exp-Golomb code, `ue(v)` (at most 31 leading zeros).
  mutating func unsigned() -> Int? {
    var zeros = 0
    while true {
      guard let bit = bits(1) else { return nil }
      if bit == 1 { break }
      zeros += 1
      if zeros > 31 { return nil }
    }
    guard let rest = bits(zeros) else { return nil }
    return (1 << zeros) - 1 + rest
  }

  /// A signed Exp-Golomb code, `se(v)`.
  mutating func signed() -> Int? {
    guard let code = unsigned() else { return nil }
    return code & 1 == 1 ? (code + 1) / 2 : -(code / 2)
  }
}
