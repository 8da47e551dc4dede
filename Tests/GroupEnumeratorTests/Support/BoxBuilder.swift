import Foundation

@testable import GroupEnumerator

/// Builds ISO-BMFF / QuickTime boxes byte by byte, for tests that need exact, often broken,
/// structures.
enum BoxBuilder {
  static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

  static func be32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  static func be64(_ value: UInt64) -> [UInt8] {
    be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF))
  }

  static func signed32(_ value: Int32) -> [UInt8] { be32(UInt32(bitPattern: value)) }

  /// A four-character code from four ASCII characters.
  static func code(_ text: String) -> FourCharacterCode {
    let bytes = Array(text.utf8) + [0, 0, 0, 0]
    return FourCharacterCode(bytes[0], bytes[1], bytes[2], bytes[3])
  }

  /// A box with a 32-bit size.
  static func box(_ type: String, _ content: [UInt8]) -> [UInt8] { box(code(type), content) }

  /// A box with a 32-bit size.
  static func box(_ type: FourCharacterCode, _ content: [UInt8]) -> [UInt8] {
    be32(UInt32(8 + content.count)) + type.bytes + content
  }

  /// A container box of children.
  static func box(_ type: String, children: [[UInt8]]) -> [UInt8] {
    box(type, children.flatMap { $0 })
  }

  /// A box whose size field says `size` whatever its content.
  static func rawBox(size: UInt32, _ type: String, _ content: [UInt8] = []) -> [UInt8] {
    be32(size) + code(type).bytes + content
  }

  /// A box with size 1 and the given 64-bit largesize.
  static func largeBox(_ type: String, largesize: UInt64, _ content: [UInt8] = []) -> [UInt8] {
    be32(1) + code(type).bytes + be64(largesize) + content
  }

  /// A full box: version, 24-bit flags, then the content.
  static func fullBox(_ type: String, version: UInt8, _ content: [UInt8]) -> [UInt8] {
    box(type, [version, 0, 0, 0] + content)
  }

  static func ftyp(_ brand: String = "qt  ") -> [UInt8] {
    box("ftyp", code(brand).bytes + be32(0x200) + code(brand).bytes)
  }

  /// A complete movie header of either version.
  static func mvhd(
    version: UInt8 = 0, creation: UInt64, timescale: UInt32 = 1000, duration: UInt64 = 1000
  ) -> [UInt8] {
    var content: [UInt8]
    if version == 1 {
      content = be64(creation) + be64(creation) + be32(timescale) + be64(duration)
    } else {
      content =
        be32(UInt32(truncatingIfNeeded: creation)) + be32(UInt32(truncatingIfNeeded: creation))
        + be32(timescale) + be32(UInt32(truncatingIfNeeded: duration))
    }
    content += be32(0x0001_0000) + be16(0x0100) + [UInt8](repeating: 0, count: 10)
    content += identityMatrix.flatMap(signed32) + [UInt8](repeating: 0, count: 24) + be32(2)
    return fullBox("mvhd", version: version, content)
  }

  static let identityMatrix: [Int32] = [0x1_0000, 0, 0, 0, 0x1_0000, 0, 0, 0, 0x4000_0000]

  /// The matrix for a clockwise quarter turn, as ffmpeg and exiftool write it.
  static let quarterTurnMatrix: [Int32] = [0, 0x1_0000, 0, -0x1_0000, 0, 0, 0, 0, 0x4000_0000]

  /// A complete track header of either version; width and height in 16.16 fixed point.
  static func tkhd(
    version: UInt8 = 0, matrix: [Int32] = identityMatrix, width: UInt32, height: UInt32
  ) -> [UInt8] {
    var content: [UInt8]
    if version == 1 {
      content = be64(0) + be64(0) + be32(1) + be32(0) + be64(1000)
    } else {
      content = be32(0) + be32(0) + be32(1) + be32(0) + be32(1000)
    }
    content += [UInt8](repeating: 0, count: 8) + be16(0) + be16(0) + be16(0) + be16(0)
    content += matrix.flatMap(signed32) + be32(width) + be32(height)
    return fullBox("tkhd", version: version, content)
  }

  static func hdlr(_ handler: String, component: String = "mhlr") -> [UInt8] {
    fullBox(
      "hdlr", version: 0,
      code(component).bytes + code(handler).bytes + [UInt8](repeating: 0, count: 12) + [0])
  }

  /// A track with a header and a media handler.
  static func trak(handler: String, width: UInt32, height: UInt32, matrix: [Int32] = identityMatrix)
    -> [UInt8]
  {
    box(
      "trak",
      children: [
        tkhd(matrix: matrix, width: width << 16, height: height << 16),
        box("mdia", children: [hdlr(handler)]),
      ])
  }

  /// An Apple `keys` box of `mdta` names.
  static func keys(_ names: [String]) -> [UInt8] {
    var content = be32(UInt32(names.count))
    for name in names {
      let bytes = Array(name.utf8)
      content += be32(UInt32(8 + bytes.count)) + code("mdta").bytes + bytes
    }
    return fullBox("keys", version: 0, content)
  }

  /// An `ilst` item for key `index` holding one `data` box.
  static func item(_ index: UInt32, type: UInt32 = 1, _ value: [UInt8]) -> [UInt8] {
    box(FourCharacterCode(rawValue: index), box("data", be32(type) + be32(0) + value))
  }

  /// An Apple `meta` box (QuickTime style: not a full box) with keyed items.
  static func appleMeta(_ items: [(String, String)], isoStyle: Bool = false) -> [UInt8] {
    let names = items.map(\.0)
    var list: [UInt8] = []
    for (index, item) in items.enumerated() {
      list += self.item(UInt32(index + 1), Array(item.1.utf8))
    }
    let children = hdlr("mdta", component: "\0\0\0\0") + keys(names) + box("ilst", list)
    return isoStyle ? fullBox("meta", version: 0, children) : box("meta", children)
  }

  /// A `©xyz` user data item.
  static func userDataLocation(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    return box(.userDataLocation, be16(UInt16(bytes.count)) + be16(0x15C7) + bytes)
  }

  /// 2021-06-01T10:00:00Z as seconds since 1904.
  static let june2021: UInt64 = 2_082_844_800 + 1_622_541_600
}

/// A byte source over the first `count` bytes of an array, without copying it.
struct PrefixSource: ByteSource {
  let base: [UInt8]
  let count: Int

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    return Array(base[offset..<(offset + min(length, count - offset))])
  }
}

/// A byte source of `count` bytes, zero except for the given runs, that counts the bytes
/// handed out: a 5 GB file without 5 GB of memory.
final class SparseSource: ByteSource {
  let count: Int
  let runs: [(offset: Int, bytes: [UInt8])]
  private(set) var bytesRead = 0
  private(set) var reads = 0

  init(count: Int, runs: [(offset: Int, bytes: [UInt8])]) {
    self.count = count
    self.runs = runs
  }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    let length = min(length, count - offset)
    var result = [UInt8](repeating: 0, count: length)
    for run in runs {
      for (index, byte) in run.bytes.enumerated() {
        let position = run.offset + index - offset
        if position >= 0, position < length { result[position] = byte }
      }
    }
    bytesRead += length
    reads += 1
    return result
  }
}

/// A byte source whose reads fail.
struct FailingSource: ByteSource {
  let count: Int

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    throw AssetProblem(.unreadable, "Input/output error (EIO) reading at \(offset).")
  }
}

/// The committed test movies in `Tests/GroupEnumeratorTests/Resources`.
enum TestMovies {
  static let resources: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // GroupEnumeratorTests
    .appendingPathComponent("Resources")

  static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: resources.appendingPathComponent(name)))
  }

  static func fixture(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: TestLibrary.fixtures.appendingPathComponent(path)))
  }
}
