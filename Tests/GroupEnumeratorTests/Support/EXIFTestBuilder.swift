/// Builds small TIFF/EXIF blocks and JPEG files byte by byte, for reader tests.
///
/// IFDs are laid out one after another from offset 8, in the order IFD0, EXIF, GPS, IFD1,
/// followed by the out-of-line values and the thumbnail. Pointer tags (`ExifIFDPointer`,
/// `GPSInfoIFDPointer`, `JPEGInterchangeFormat`/`Length`) are added automatically.
struct EXIFTestBuilder {
  /// A value to store, by TIFF type.
  enum Value {
    case ascii(String)
    case asciiBytes([UInt8])
    case byte([UInt8])
    case undefined([UInt8])
    case short([UInt16])
    case long([UInt32])
    case rational([(UInt32, UInt32)])
    case signedRational([(Int32, Int32)])
    /// An entry written as given: type, count and the literal 4-byte value field.
    case raw(type: UInt16, count: UInt32, field: UInt32)
  }

  var bigEndian = false
  var ifd0: [(UInt16, Value)] = []
  var exif: [(UInt16, Value)] = []
  var gps: [(UInt16, Value)] = []
  var thumbnail: [UInt8]?

  /// The TIFF bytes (what follows `Exif\0\0`).
  func tiff() -> [UInt8] {
    var directories: [[(UInt16, Value?)]] = [ifd0.map { ($0.0, $0.1) }]
    let exifIndex = exif.isEmpty ? nil : 1
    let gpsIndex = gps.isEmpty ? nil : 1 + (exifIndex == nil ? 0 : 1)
    if exifIndex != nil { directories[0].append((0x8769, nil)) }
    if gpsIndex != nil { directories[0].append((0x8825, nil)) }
    if exifIndex != nil { directories.append(exif.map { ($0.0, $0.1) }) }
    if gpsIndex != nil { directories.append(gps.map { ($0.0, $0.1) }) }
    if thumbnail != nil { directories.append([(0x0201, nil), (0x0202, nil)]) }
    for index in directories.indices { directories[index].sort { $0.0 < $1.0 } }
    var offsets: [Int] = []
    var position = 8
    for directory in directories {
      offsets.append(position)
      position += 2 + 12 * directory.count + 4
    }
    var data: [UInt8] = []
    let dataStart = position
    var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
    out += u32(8)
    let thumbnailOffset = dataStart + blobsSize(directories)
    for (index, directory) in directories.enumerated() {
      out += u16(UInt16(directory.count))
      for (tag, value) in directory {
        out += u16(tag)
        let (type, count, bytes): (UInt16, UInt32, [UInt8])
        switch value {
        case nil:
          let target: Int
          switch tag {
          case 0x8769: target = offsets[exifIndex ?? 0]
          case 0x8825: target = offsets[gpsIndex ?? 0]
          case 0x0201: target = thumbnailOffset
          default: target = thumbnail?.count ?? 0
          }
          (type, count, bytes) = (4, 1, u32(UInt32(target)))
        case .raw(let rawType, let rawCount, let field)?:
          (type, count, bytes) = (rawType, rawCount, u32(field))
        case let value?:
          (type, count, bytes) = encode(value)
        }
        out += u16(type) + u32(count)
        if bytes.count <= 4 {
          out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
        } else {
          out += u32(UInt32(dataStart + data.count))
          data += bytes
          if data.count % 2 == 1 { data.append(0) }
        }
      }
      let isIFD0 = index == 0
      let next = isIFD0 && thumbnail != nil ? offsets[directories.count - 1] : 0
      out += u32(UInt32(next))
    }
    return out + data + (thumbnail ?? [])
  }

  /// The `APP1` payload: `Exif\0\0` and the TIFF bytes.
  func app1Payload() -> [UInt8] { [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff() }

  /// A minimal JPEG: SOI, this EXIF block in APP1, SOF0 with the size, SOS, a few
  /// bytes of scan data, EOI.
  func jpeg(width: Int = 64, height: Int = 48) -> [UInt8] {
    EXIFTestBuilder.jpeg(app1: app1Payload(), width: width, height: height)
  }

  /// A minimal JPEG around an arbitrary APP1 payload (or none).
  static func jpeg(app1: [UInt8]?, width: Int = 64, height: Int = 48) -> [UInt8] {
    var out: [UInt8] = [0xFF, 0xD8]
    if let app1 {
      let length = app1.count + 2
      out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1
    }
    out += [0xFF, 0xC0, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF)]
    out += [UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00]
    out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
    out += [0x12, 0x34, 0x56, 0xFF, 0x00, 0x78, 0xFF, 0xD9]
    return out
  }

  private func blobsSize(_ directories: [[(UInt16, Value?)]]) -> Int {
    var size = 0
    for directory in directories {
      for (_, value) in directory {
        guard let value else { continue }
        if case .raw = value { continue }
        let bytes = encode(value).2
        if bytes.count > 4 { size += bytes.count + bytes.count % 2 }
      }
    }
    return size
  }

  private func encode(_ value: Value) -> (UInt16, UInt32, [UInt8]) {
    switch value {
    case .ascii(let text):
      let bytes = Array(text.utf8) + [0]
      return (2, UInt32(bytes.count), bytes)
    case .asciiBytes(let bytes): return (2, UInt32(bytes.count), bytes)
    case .byte(let bytes): return (1, UInt32(bytes.count), bytes)
    case .undefined(let bytes): return (7, UInt32(bytes.count), bytes)
    case .short(let values): return (3, UInt32(values.count), values.flatMap(u16))
    case .long(let values): return (4, UInt32(values.count), values.flatMap(u32))
    case .rational(let parts):
      return (5, UInt32(parts.count), parts.flatMap { u32($0.0) + u32($0.1) })
    case .signedRational(let parts):
      return (
        10, UInt32(parts.count),
        parts.flatMap { u32(UInt32(bitPattern: $0.0)) + u32(UInt32(bitPattern: $0.1)) }
      )
    case .raw(let type, let count, let field): return (type, count, u32(field))
    }
  }

  private func u16(_ value: UInt16) -> [UInt8] {
    let bytes = [UInt8(value >> 8), UInt8(value & 0xFF)]
    return bigEndian ? bytes : bytes.reversed()
  }

  private func u32(_ value: UInt32) -> [UInt8] {
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    return bigEndian ? bytes : bytes.reversed()
  }
}
