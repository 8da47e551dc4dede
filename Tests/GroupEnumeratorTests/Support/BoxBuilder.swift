import Foundation
import GroupEnumerator

@testable import GroupEnumeratorCore

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
  static let resources: URL = Sample.resources.url

  static func bytes(_ name: String) throws -> [UInt8] { try Sample.resources.bytes(name) }

  static func fixture(_ path: String) throws -> [UInt8] { try Sample.bytes(path) }
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

// MARK: - Canon CR3

extension BoxBuilder {
  /// Canon's `uuid` extended type that marks the box holding the CR3 TIFF blocks.
  static let canonUUID: [UInt8] = [
    0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
  ]

  /// A `uuid` box: the 16-byte extended type, then the children.
  static func uuid(_ extendedType: [UInt8], children: [[UInt8]]) -> [UInt8] {
    box("uuid", extendedType + children.flatMap { $0 })
  }

  /// A TIFF block whose one IFD holds `entries` (CR3's `CMT2` and `CMT4` hold the EXIF and
  /// GPS IFDs this way, as the first IFD of their own TIFF header).
  static func standaloneTIFF(_ entries: [(UInt16, EXIFTestBuilder.Value)], bigEndian: Bool = false)
    -> [UInt8]
  {
    var builder = EXIFTestBuilder()
    builder.bigEndian = bigEndian
    builder.ifd0 = entries
    return builder.tiff()
  }

  /// A CR3 skeleton: `ftyp crx `, `moov` holding the Canon `uuid` box (a `CNCV`, then the
  /// given `CMTn` blocks, any of which may be left out, then a `THMB`), an `mvhd`, and an
  /// `mdat`.
  /// A CR3: `ftyp`, `moov` with Canon's `uuid` box (`CNCV`, the `CMT` blocks given, a
  /// `THMB` box holding `thumbnail` after its 16 bytes of fields, or those fields alone),
  /// then, with `preview`, the preview `uuid` box (its extended type, 8 bytes, and a `PRVW`
  /// box holding `preview` after its 16 bytes of fields), then `mdat`.
  static func cr3(
    cmt1: [UInt8]?, cmt2: [UInt8]?, cmt3: [UInt8]? = nil, cmt4: [UInt8]?,
    uuidType: [UInt8] = canonUUID, thumbnail: [UInt8]? = nil, preview: [UInt8]? = nil
  ) -> [UInt8] {
    var children = [box("CNCV", Array("CanonCR3_001/00.09.00/00.00.00".utf8))]
    for (name, block) in [("CMT1", cmt1), ("CMT2", cmt2), ("CMT3", cmt3), ("CMT4", cmt4)] {
      if let block { children.append(box(name, block)) }
    }
    // Version and flags, 160 × 120, the JPEG's length, two shorts: then the JPEG.
    let thumbnailFields =
      [0, 0, 0, 0] + be16(160) + be16(120) + be32(UInt32(thumbnail?.count ?? 0)) + be16(1)
      + be16(0)
    children.append(box("THMB", thumbnailFields + (thumbnail ?? [])))
    let movie = box("moov", children: [uuid(uuidType, children: children), mvhd(creation: 0)])
    var previewBox: [UInt8] = []
    if let preview {
      // A long, a short, 1620 × 1080, a short, the JPEG's length: then the JPEG.
      let fields =
        be32(0) + be16(1) + be16(1620) + be16(1080) + be16(1) + be32(UInt32(preview.count))
      previewBox = uuid(previewUUID, children: [be64(1), box("PRVW", fields + preview)])
    }
    return box("ftyp", code("crx ").bytes + be32(1) + code("crx ").bytes + code("isom").bytes)
      + movie + previewBox + box("mdat", [1, 2, 3, 4])
  }

  /// The extended type of a CR3's top-level `uuid` box that holds the `PRVW` preview.
  static let previewUUID: [UInt8] = [
    0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16,
  ]
}

// MARK: - BigTIFF

/// Builds BigTIFF files byte by byte: a 16-byte header, then IFD0, the EXIF IFD and the
/// GPS IFD one after another (20-byte entries, 8-byte counts and offsets), then the values
/// that do not fit in an entry's 8-byte field.
struct BigTIFFTestBuilder {
  /// One entry: tag, type, declared count and the value's bytes (in the file's byte order;
  /// use the helpers). `field` overrides the 8-byte value field when set.
  struct Entry {
    var tag: UInt16
    var type: UInt16
    var count: UInt64
    var data: [UInt8] = []
    var field: UInt64?
  }

  var bigEndian = false
  var ifd0: [Entry] = []
  var exif: [Entry] = []
  var gps: [Entry] = []
  /// The type of the `ExifIFDPointer`/`GPSInfoIFDPointer` entries written (16 = `LONG8`,
  /// 18 = `IFD8`, 4 = `LONG`).
  var pointerType: UInt16 = 18
  /// Overrides the IFD0 offset in the header.
  var firstDirectoryOffset: UInt64?

  func ascii(_ tag: UInt16, _ text: String) -> Entry {
    let bytes = Array(text.utf8) + [0]
    return Entry(tag: tag, type: 2, count: UInt64(bytes.count), data: bytes)
  }

  func short(_ tag: UInt16, _ values: [UInt16]) -> Entry {
    Entry(
      tag: tag, type: 3, count: UInt64(values.count),
      data: values.flatMap { number(UInt64($0), 2) })
  }

  func long(_ tag: UInt16, _ values: [UInt32]) -> Entry {
    Entry(
      tag: tag, type: 4, count: UInt64(values.count),
      data: values.flatMap { number(UInt64($0), 4) })
  }

  func long8(_ tag: UInt16, _ values: [UInt64]) -> Entry {
    Entry(tag: tag, type: 16, count: UInt64(values.count), data: values.flatMap { number($0, 8) })
  }

  func rational(_ tag: UInt16, _ parts: [(UInt32, UInt32)]) -> Entry {
    Entry(
      tag: tag, type: 5, count: UInt64(parts.count),
      data: parts.flatMap { number(UInt64($0.0), 4) + number(UInt64($0.1), 4) })
  }

  /// The file's bytes.
  func file() -> [UInt8] {
    var directories = [ifd0]
    let hasEXIF = !exif.isEmpty
    let hasGPS = !gps.isEmpty
    if hasEXIF { directories[0].append(Entry(tag: 0x8769, type: pointerType, count: 1)) }
    if hasGPS { directories[0].append(Entry(tag: 0x8825, type: pointerType, count: 1)) }
    if hasEXIF { directories.append(exif) }
    if hasGPS { directories.append(gps) }
    var offsets: [UInt64] = []
    var position: UInt64 = 16
    for directory in directories {
      offsets.append(position)
      position += 8 + 20 * UInt64(directory.count) + 8
    }
    var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 0x2B] : [0x49, 0x49, 0x2B, 0]
    out += number(8, 2) + number(0, 2) + number(firstDirectoryOffset ?? offsets[0], 8)
    var data: [UInt8] = []
    for directory in directories {
      out += number(UInt64(directory.count), 8)
      for entry in directory.sorted(by: { $0.tag < $1.tag }) {
        out += number(UInt64(entry.tag), 2) + number(UInt64(entry.type), 2)
        out += number(entry.count, 8)
        if let field = entry.field {
          out += number(field, 8)
        } else if entry.tag == 0x8769 || entry.tag == 0x8825, entry.data.isEmpty {
          let target = entry.tag == 0x8769 ? offsets[1] : offsets[hasEXIF ? 2 : 1]
          out += number(target, entry.type == 4 || entry.type == 13 ? 4 : 8)
          out += [UInt8](repeating: 0, count: entry.type == 4 || entry.type == 13 ? 4 : 0)
        } else if entry.data.count <= 8 {
          out += entry.data + [UInt8](repeating: 0, count: 8 - entry.data.count)
        } else {
          out += number(position + UInt64(data.count), 8)
          data += entry.data
        }
      }
      out += number(0, 8)
    }
    return out + data
  }

  /// `value` in `width` bytes, in the file's byte order.
  func number(_ value: UInt64, _ width: Int) -> [UInt8] {
    let bytes = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    return bigEndian ? bytes : bytes.reversed()
  }
}

extension BoxBuilder {
  /// A HEIC whose primary item 1 has `properties` (associated by `associations`) and whose
  /// Exif item 2 (`cdsc` to item 1) holding `tiff` lies in the `mdat` at one extent,
  /// described by an `iloc` of version 0.
  static func heicWithExif(
    tiff: [UInt8], properties: [[UInt8]], associations: [Int] = [1]
  ) -> [UInt8] {
    let payload = exifItem(tiff)
    return heif(data: payload) { offset in
      [
        pitm(1),
        iinf([infe(1, "hvc1"), infe(2, "Exif")]),
        iloc(
          version: 0,
          [
            .init(
              itemID: 2, extents: [.init(offset: UInt64(offset), length: UInt64(payload.count))])
          ]),
        iref([("cdsc", 2, [1])]),
        iprp(properties, associations: [(1, associations)]),
      ]
    }
  }
}
