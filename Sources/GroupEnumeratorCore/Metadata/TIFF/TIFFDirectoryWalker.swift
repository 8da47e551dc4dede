/// A bounds-checked reader of TIFF directories, classic or BigTIFF, over any
/// ``ByteSource``: an EXIF block in memory, a CR3's TIFF box, a BigTIFF file of gigabytes.
///
/// It reads only what it is asked for: an IFD's entries (``directory(at:)``), one
/// entry's value (``value(of:)``, ``rawValue(of:maximumLength:)``) or the offset a
/// pointer entry holds (``subdirectoryOffset(of:)``). What EXIF makes of the
/// directories (IFD0's pointers to the EXIF and GPS IFDs, the MakerNote) is asked in
/// `EXIF/`, on top of this walker.
///
/// The two layouts differ only in widths (``TIFFLayout``). Offsets count from the start
/// of the source. A walk records what is wrong in ``faults`` and goes on past it.
///
/// How it stays safe: at most ``maximumDirectories`` IFDs are read by
/// ``directory(at:)``, each once (a pointer back to an IFD already read is a fault, not a
/// loop); at most ``TIFFLayout/maximumEntries`` entries per IFD; per value, at most
/// ``maximumComponents`` numbers and ``TIFFValue/maximumUndefinedLength`` raw bytes are
/// decoded; every offset sum is overflow-checked and every range checked against the
/// source before it is read.
struct TIFFDirectoryWalker<Source: ByteSource> {
  /// The bytes.
  let source: Source
  /// Classic TIFF or BigTIFF.
  let layout: TIFFLayout
  /// Reads numbers in the structure's byte order.
  let reader: IntegerReader
  /// The offset of the first IFD, from the header.
  let firstDirectoryOffset: UInt64
  /// What went wrong while walking, in order; the walk skips past each.
  var faults: [TIFFParsingError] = []
  /// The IFDs read so far by ``directory(at:)``.
  private var visited: Set<UInt64> = []

  /// IFDs read at most, so that a pointer cycle or a bomb ends quickly.
  static var maximumDirectories: Int { 8 }
  /// The most components decoded for a numeric value; the interpreted tags need at most 3.
  static var maximumComponents: Int { 16 }

  /// One IFD entry: tag, type, count, and the value field (4 or 8 bytes) as stored.
  struct Entry {
    var tag: UInt16
    var type: UInt16
    var count: UInt64
    /// The value field's bytes in file order, in the first 4 (classic) or 8 (BigTIFF)
    /// bytes of this integer's memory: kept inline, so an entry allocates nothing.
    var field: UInt64

    /// Calls `body` with the value field's bytes (all 8; the layout says how many count).
    func withFieldBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
      withUnsafeBytes(of: field, body)
    }
  }

  /// Reads and checks the header.
  ///
  /// - Throws: ``TIFFParsingError/unreadable(_:)`` when the source cannot be read;
  ///   ``TIFFParsingError/noByteOrderMark``, ``TIFFParsingError/headerCutShort(available:layout:)``
  ///   or ``TIFFParsingError/wrongVersion(layout:)`` when the header is not `layout`'s.
  init(source: Source, layout: TIFFLayout) throws(TIFFParsingError) {
    let header: [UInt8]
    do {
      header = try source.bytes(at: 0, length: layout.headerLength)
    } catch {
      throw .unreadable(error)
    }
    guard let reader = IntegerReader(tiffByteOrderMark: header.first, header.dropFirst().first)
    else { throw .noByteOrderMark }
    guard header.count == layout.headerLength,
      let first = reader.unsigned(header, at: layout.headerLength / 2, width: layout.offsetWidth)
    else { throw .headerCutShort(available: header.count, layout: layout) }
    let version = reader.uint16(header, at: 2)
    guard version == layout.version,
      layout == .classic || (reader.uint16(header, at: 4) == 8 && reader.uint16(header, at: 6) == 0)
    else { throw .wrongVersion(layout: layout) }
    self.init(source: source, layout: layout, reader: reader, firstDirectoryOffset: first)
  }

  /// A walker over directories that have no TIFF header of their own, such as a
  /// MakerNote's: the byte order and the first IFD's offset are known from elsewhere.
  init(source: Source, layout: TIFFLayout, reader: IntegerReader, firstDirectoryOffset: UInt64) {
    self.source = source
    self.layout = layout
    self.reader = reader
    self.firstDirectoryOffset = firstDirectoryOffset
  }

  /// The entries of the IFD at `offset`, recording a fault and returning what could be
  /// read when the IFD was read before, lies out of bounds, or declares more entries than
  /// are read.
  ///
  /// - Complexity: O(*n*) in the number of entries; one read of the source for them all.
  mutating func directory(at offset: UInt64) -> [Entry] {
    guard visited.count < Self.maximumDirectories, visited.insert(offset).inserted else {
      faults.append(.directoryRevisited(offset: offset))
      return []
    }
    do {
      let directory = try header(ofDirectoryAt: offset, limit: layout.maximumEntries)
      if directory.declared > UInt64(directory.readable) {
        faults.append(
          .entriesCut(
            offset: offset, declared: directory.declared, read: directory.readable,
            layout: layout))
      }
      return try entries(of: directory)
    } catch {
      faults.append(error)
      return []
    }
  }

  /// Where an IFD's entries start, how many it declares, and how many of them are read:
  /// as many as fit in the source, at most `limit`.
  struct DirectoryHeader {
    var entriesStart: Int
    var declared: UInt64
    var readable: Int
  }

  /// The entries of the IFD at `offset`, without recording anything: the first
  /// `min(declared, readable)` of them, where `readable` is how many fit in the source,
  /// at most `limit`.
  ///
  /// - Throws: ``TIFFParsingError/directoryOutOfBounds(offset:layout:)``,
  ///   ``TIFFParsingError/directoryCutShort(offset:)`` or
  ///   ``TIFFParsingError/unreadable(_:)``.
  func entries(inDirectoryAt offset: UInt64, limit: Int) throws(TIFFParsingError) -> (
    entries: [Entry], declared: UInt64
  ) {
    let directory = try header(ofDirectoryAt: offset, limit: limit)
    return (try entries(of: directory), directory.declared)
  }

  private func header(ofDirectoryAt offset: UInt64, limit: Int) throws(TIFFParsingError)
    -> DirectoryHeader
  {
    let countWidth = layout.entryCountWidth
    guard offset >= layout.minimumDirectoryOffset, let start = Int(exactly: offset),
      start <= source.count - countWidth
    else { throw .directoryOutOfBounds(offset: offset, layout: layout) }
    let declaredBytes = try read(at: start, length: countWidth)
    guard let declared = reader.unsigned(declaredBytes, at: 0, width: countWidth) else {
      throw .directoryCutShort(offset: offset)
    }
    let readable = min((source.count - start - countWidth) / layout.entryLength, limit)
    return DirectoryHeader(
      entriesStart: start + countWidth, declared: declared, readable: readable)
  }

  private func entries(of directory: DirectoryHeader) throws(TIFFParsingError) -> [Entry] {
    let entryLength = layout.entryLength
    let entryCount = Int(min(directory.declared, UInt64(directory.readable)))
    guard entryCount > 0 else { return [] }
    let bytes = try read(at: directory.entriesStart, length: entryCount * entryLength)
    var entries: [Entry] = []
    entries.reserveCapacity(entryCount)
    let width = layout.offsetWidth
    for position in stride(from: 0, to: entryCount * entryLength, by: entryLength) {
      guard position <= bytes.count - entryLength,
        let tag = reader.uint16(bytes, at: position),
        let type = reader.uint16(bytes, at: position + 2),
        let count = reader.unsigned(bytes, at: position + 4, width: width)
      else { break }
      var field: UInt64 = 0
      withUnsafeMutableBytes(of: &field) { destination in
        bytes.withUnsafeBytes { entryBytes in
          let start = position + 4 + width
          destination.copyMemory(
            from: UnsafeRawBufferPointer(rebasing: entryBytes[start..<(start + width)]))
        }
      }
      entries.append(Entry(tag: tag, type: type, count: count, field: field))
    }
    return entries
  }

  /// The offset a pointer entry holds: one `LONG` (4) or `IFD` (13), and for BigTIFF one
  /// `LONG8` (16) or `IFD8` (18); `nil` for anything else.
  func subdirectoryOffset(of entry: Entry) -> UInt64? {
    guard entry.count == 1 else { return nil }
    switch entry.type {
    case 4, 13:
      return entry.withFieldBytes { reader.read(UInt32.self, at: 0, in: $0) }.map(UInt64.init)
    case 16, 18:
      return layout == .big ? entry.withFieldBytes { reader.read(UInt64.self, at: 0, in: $0) } : nil
    default: return nil
    }
  }

  /// The offset (or the first 4 or 8 bytes of an inline value) an entry's value field
  /// holds, whatever its type.
  func fieldOffset(of entry: Entry) -> UInt64? {
    entry.withFieldBytes { field in
      layout == .classic
        ? reader.read(UInt32.self, at: 0, in: field).map(UInt64.init)
        : reader.read(UInt64.self, at: 0, in: field)
    }
  }

  /// The bytes of an entry's value, at most `maximumLength` of them, after checking that
  /// the whole value lies in the source.
  ///
  /// - Returns: `nil` for a type the layout does not define, a value outside the source,
  ///   or a read that fails.
  func rawValue(of entry: Entry, maximumLength: Int) -> [UInt8]? {
    guard let unit = layout.unitLength(ofType: entry.type), let count = Int(exactly: entry.count)
    else { return nil }
    let (length, overflow) = count.multipliedReportingOverflow(by: unit)
    guard !overflow else { return nil }
    let wanted = min(length, maximumLength)
    if length <= layout.offsetWidth { return entry.withFieldBytes { Array($0.prefix(wanted)) } }
    guard let offset = fieldOffset(of: entry), let start = Int(exactly: offset) else {
      return nil
    }
    let (end, endOverflow) = start.addingReportingOverflow(length)
    guard !endOverflow, end <= source.count else { return nil }
    guard let bytes = try? source.bytes(at: start, length: wanted), bytes.count == wanted else {
      return nil
    }
    return bytes
  }

  /// The decoded value of an entry.
  ///
  /// - Returns: ``TIFFValue/other(type:)`` for a type that is not decoded (or a `LONG8` or
  ///   `SLONG8` that does not fit 32 bits); `nil` when the value lies outside the source.
  func value(of entry: Entry) -> TIFFValue? {
    guard let unit = layout.unitLength(ofType: entry.type) else { return .other(type: entry.type) }
    guard let count = Int(exactly: entry.count) else { return nil }
    // Only what decoding uses is read: a few components, or a bounded run of bytes.
    let wanted: Int
    switch entry.type {
    case 2: wanted = layout.maximumTextLength
    case 7: wanted = TIFFValue.maximumUndefinedLength
    default: wanted = min(count, Self.maximumComponents) * unit
    }
    guard let data = rawValue(of: entry, maximumLength: wanted) else { return nil }
    switch entry.type {
    case 16:
      let values = components(data, count: count)
      let narrow = values.compactMap { UInt32(exactly: $0) }
      return narrow.count == values.count ? .long(narrow) : .other(type: 16)
    case 17:
      let values = components(data, count: count).map { Int64(bitPattern: $0) }
      let narrow = values.compactMap { Int32(exactly: $0) }
      return narrow.count == values.count ? .signedLong(narrow) : .other(type: 17)
    default:
      return Self.decode(type: entry.type, count: count, data: data[...], reader: reader)
    }
  }

  /// The first (at most ``maximumComponents``) 8-byte components.
  private func components(_ data: [UInt8], count: Int) -> [UInt64] {
    (0..<min(count, Self.maximumComponents)).compactMap { reader.uint64(data, at: $0 * 8) }
  }

  private func read(at offset: Int, length: Int) throws(TIFFParsingError) -> [UInt8] {
    do {
      return try source.bytes(at: offset, length: length)
    } catch {
      throw .unreadable(error)
    }
  }

  /// Decodes a value of a TIFF 6.0 type from its bytes.
  ///
  /// - Parameters:
  ///   - type: The TIFF type.
  ///   - count: The number of components the entry declares.
  ///   - data: The value's bytes; for a numeric type at least the first
  ///     ``maximumComponents`` components (components missing from `data` are left out).
  ///   - reader: Reads numbers in the structure's byte order.
  /// - Returns: The value; `.other` for a type that is not decoded.
  static func decode(type: UInt16, count: Int, data: ArraySlice<UInt8>, reader: IntegerReader)
    -> TIFFValue
  {
    let numericCount = min(count, maximumComponents)
    func numbers<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ count: Int) -> [T] {
      (0..<count).compactMap { reader.read(T.self, at: $0 * MemoryLayout<T>.size, in: data) }
    }
    func pairs(_ count: Int) -> [(UInt32, UInt32)] {
      let parts = numbers(UInt32.self, count * 2)
      return stride(from: 0, to: parts.count - 1, by: 2).map { (parts[$0], parts[$0 + 1]) }
    }
    switch type {
    case 1: return .byte(Array(data.prefix(numericCount)))
    case 2: return .ascii(Array(data))
    case 7: return .undefined(Array(data.prefix(TIFFValue.maximumUndefinedLength)))
    case 3: return .short(numbers(UInt16.self, numericCount))
    case 4: return .long(numbers(UInt32.self, numericCount))
    case 5:
      return .rational(pairs(numericCount).map { TIFFRational(numerator: $0, denominator: $1) })
    case 10:
      return .signedRational(
        pairs(numericCount).map {
          TIFFSignedRational(numerator: Int32(bitPattern: $0), denominator: Int32(bitPattern: $1))
        })
    default: return .other(type: type)
    }
  }
}

extension TIFFDirectoryWalker where Source == ArrayByteSource {
  /// A walker over classic TIFF bytes in memory (an EXIF block).
  ///
  /// - Returns: `nil` when the bytes do not start with a classic TIFF header.
  init?(tiff bytes: [UInt8]) {
    guard let walker = try? Self(source: ArrayByteSource(bytes), layout: .classic) else {
      return nil
    }
    self = walker
  }
}
