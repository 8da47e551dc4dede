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

// MARK: - HEIF items

extension BoxBuilder {
  /// One `iloc` extent: `extent_index` (written only when `index_size` > 0), offset, length.
  struct Extent {
    var index: UInt64 = 0
    var offset: UInt64
    var length: UInt64
  }

  /// One `iloc` item.
  struct ItemLocation {
    var itemID: UInt32
    var constructionMethod: UInt16 = 0
    var dataReferenceIndex: UInt16 = 0
    var baseOffset: UInt64 = 0
    var extents: [Extent]
  }

  /// The big-endian bytes of `value` in `size` bytes (0, 2, 4 or 8).
  static func sized(_ value: UInt64, _ size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
  }

  /// An `iloc` box of any version and field sizes; `itemCount` overrides the count written.
  static func iloc(
    version: UInt8, offsetSize: Int = 4, lengthSize: Int = 4, baseOffsetSize: Int = 0,
    indexSize: Int = 0, itemCount: UInt32? = nil, _ items: [ItemLocation]
  ) -> [UInt8] {
    let sizes = UInt16(offsetSize << 12 | lengthSize << 8 | baseOffsetSize << 4 | indexSize)
    let idSize = version == 2 ? 4 : 2
    var content = be16(sizes) + sized(UInt64(itemCount ?? UInt32(items.count)), idSize)
    for item in items {
      content += sized(UInt64(item.itemID), idSize)
      if version >= 1 { content += be16(item.constructionMethod) }
      content += be16(item.dataReferenceIndex) + sized(item.baseOffset, baseOffsetSize)
      content += be16(UInt16(item.extents.count))
      for extent in item.extents {
        if version >= 1 { content += sized(extent.index, indexSize) }
        content += sized(extent.offset, offsetSize) + sized(extent.length, lengthSize)
      }
    }
    return fullBox("iloc", version: version, content)
  }

  /// An `infe` of version 2 (16-bit identifier) or 3 (32-bit).
  static func infe(version: UInt8 = 2, _ itemID: UInt32, _ type: String) -> [UInt8] {
    let id = version == 3 ? be32(itemID) : be16(UInt16(truncatingIfNeeded: itemID))
    return fullBox("infe", version: version, id + be16(0) + code(type).bytes + [0])
  }

  /// An `iinf` of the given entries; `entryCount` overrides the count written.
  static func iinf(entryCount: UInt32? = nil, _ entries: [[UInt8]]) -> [UInt8] {
    fullBox("iinf", version: 1, be32(entryCount ?? UInt32(entries.count)) + entries.flatMap { $0 })
  }

  static func pitm(_ itemID: UInt32) -> [UInt8] {
    fullBox("pitm", version: 0, be16(UInt16(truncatingIfNeeded: itemID)))
  }

  static func ispe(_ width: UInt32, _ height: UInt32) -> [UInt8] {
    fullBox("ispe", version: 0, be32(width) + be32(height))
  }

  static func irot(_ quarterTurns: UInt8) -> [UInt8] { box("irot", [quarterTurns]) }

  static func imir(axis: UInt8) -> [UInt8] { box("imir", [axis]) }

  /// An `iprp` with the properties in `ipco` and one `ipma` (version 0, 8-bit indexes
  /// unless `wide`); associations are 1-based property indexes.
  static func iprp(
    _ properties: [[UInt8]], associations: [(UInt32, [Int])], wide: Bool = false
  ) -> [UInt8] {
    var content = be32(UInt32(associations.count))
    for (itemID, indexes) in associations {
      content += be16(UInt16(truncatingIfNeeded: itemID)) + [UInt8(indexes.count)]
      for index in indexes {
        content += wide ? be16(UInt16(index)) : [UInt8(index)]
      }
    }
    let ipma = box("ipma", [0, 0, 0, wide ? 1 : 0] + content)
    return box("iprp", children: [box("ipco", children: properties), ipma])
  }

  /// An `iref` (version 0) of `(type, from, to)` references.
  static func iref(_ references: [(String, UInt32, [UInt32])]) -> [UInt8] {
    var content: [UInt8] = []
    for (type, from, to) in references {
      content += box(
        type,
        be16(UInt16(from)) + be16(UInt16(to.count)) + to.flatMap { be16(UInt16($0)) })
    }
    return fullBox("iref", version: 0, content)
  }

  /// A HEIF file: `ftyp`, a `meta` box of `hdlr pict` and the given children, then `data`
  /// in an `mdat`. `children` gets the file offset where `data` starts, so that `iloc`
  /// can point at it.
  static func heif(brand: String = "heic", data: [UInt8] = [], _ children: (Int) -> [[UInt8]])
    -> [UInt8]
  {
    let start = ftyp(brand)
    func meta(_ dataOffset: Int) -> [UInt8] {
      fullBox(
        "meta", version: 0,
        hdlr("pict", component: "\0\0\0\0") + children(dataOffset).flatMap { $0 })
    }
    // Field sizes do not depend on the offset, so the first build gives the layout.
    let offset = start.count + meta(0).count + 8
    return start + meta(offset) + box("mdat", data)
  }

  /// An EXIF item's payload: the 4-byte offset to the TIFF header, then the TIFF block.
  static func exifItem(_ tiff: [UInt8], headerOffset: UInt32 = 0) -> [UInt8] {
    be32(headerOffset) + [UInt8](repeating: 0, count: Int(headerOffset)) + tiff
  }
}
