/// Every row the index held when the run began, read in one pass over the `files` table,
/// so that looking a file up is one probe of a hash table: no SQLite call and no lock per
/// file.
///
/// The stored bytes (each row's path, sidecar keys and result) live one after another in
/// blocks of about a megabyte (none is ever moved once written, and no more is allocated
/// than the rows hold); a row keeps its key and where its bytes are. The table of paths is
/// open addressing over the rows' positions, each slot with 32 bits of the path's hash
/// (`Hasher`, seeded per process, so crafted names cannot make chains long), and a path is
/// compared in its block: no array or `LibraryPath` is made per row. Immutable once
/// loaded, so the readers share it freely.
struct IndexContents: Sendable {
  /// One stored row.
  struct Entry: Sendable {
    var key: FileKey
    /// The block that holds the row's bytes.
    var block: Int32
    /// Where the row's path starts in its block; its sidecar keys follow it, then its
    /// result.
    var start: Int32
    /// How many bytes the path takes.
    var pathCount: Int32
    /// How many bytes the sidecar keys take.
    var sidecarCount: Int32
    /// How many bytes the result takes.
    var resultCount: Int32
  }

  /// The size of a block.
  static let blockSize = 1 << 20
  /// The most bytes one row's path, sidecar keys and result may take (a result is about
  /// 250 bytes; its problems are capped): a longer row is not loaded, and its file is
  /// read.
  static let maximumRowBytes = 1 << 20
  /// The most bytes all rows may take together (about four million files' worth): the
  /// rows past it are not loaded, and their files are read, so that a damaged or foreign
  /// index cannot make a run hold gigabytes.
  static let maximumBytes = 1 << 30
  /// What each row costs beside its bytes (its key and its slots in the table of paths),
  /// counted against ``maximumBytes``: a table of millions of empty rows is as bounded as
  /// one of large rows.
  static let rowOverhead = 96
  /// The most rows loaded (about 4 million, far more than a large library holds): the
  /// rows past it are not loaded, and their files are read.
  static let maximumRows = 1 << 22

  /// The rows, in the order they were read.
  private(set) var entries: [Entry] = []
  /// The table of paths: per slot, 0 when empty, else the path's 32 hash bits above the
  /// row's position in ``entries`` plus one. A power of two long, at most half full.
  private var slots: [UInt64] = []
  /// Every row's path, sidecar keys and result.
  private(set) var blocks: [[UInt8]] = []
  /// Rows that could not be taken (a column of the wrong type, or past a budget): their
  /// files are read, and stored again.
  private(set) var malformed = 0
  /// How many bytes the loaded rows take.
  private var loadedBytes = 0

  /// How many rows the table held.
  var count: Int { entries.count + malformed }

  /// The stored result of the file at `path` when its row's key and sidecar keys are `key`
  /// and `sidecars`.
  func lookUp(_ path: LibraryPath, key: FileKey, sidecars: [UInt8]) -> IndexStore.Lookup {
    let found = path.bytes.withUnsafeBufferPointer { position(of: $0, hash: Self.hash($0)) }
    guard let found else { return .missing }
    let entry = entries[found]
    let block = blocks[Int(entry.block)]
    let start = Int(entry.start) + Int(entry.pathCount)
    let middle = start + Int(entry.sidecarCount)
    guard entry.key == key, block[start..<middle].elementsEqual(sidecars) else {
      return .changed
    }
    return .found(block[middle..<(middle + Int(entry.resultCount))])
  }

  /// The 32 bits of `path`'s hash the table keeps.
  private static func hash(_ path: UnsafeBufferPointer<UInt8>) -> UInt32 {
    var hasher = Hasher()
    hasher.combine(bytes: UnsafeRawBufferPointer(path))
    return UInt32(truncatingIfNeeded: hasher.finalize())
  }

  /// The position in ``entries`` of `path`'s row (`hash` is its hash), if it has one.
  private func position(of path: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int? {
    guard !slots.isEmpty else { return nil }
    let value = slots[probe(path, hash: hash)]
    guard value != 0 else { return nil }
    return Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1
  }

  /// The slot that holds `path`, or the empty slot where the probe for it ends (0 when
  /// the table is empty).
  private func probe(_ path: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int {
    guard !slots.isEmpty else { return 0 }
    let mask = slots.count - 1
    var slot = Int(hash) & mask
    while true {
      let value = slots[slot]
      if value == 0 { return slot }
      if UInt32(truncatingIfNeeded: value >> 32) == hash,
        hasPath(path, entry: Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1)
      {
        return slot
      }
      slot = (slot + 1) & mask
    }
  }

  /// Whether the row at `entry` is `path`'s.
  private func hasPath(_ path: UnsafeBufferPointer<UInt8>, entry: Int) -> Bool {
    let row = entries[entry]
    guard Int(row.pathCount) == path.count else { return false }
    return blocks[Int(row.block)].withUnsafeBufferPointer { block in
      let start = Int(row.start)
      return UnsafeBufferPointer(rebasing: block[start..<(start + path.count)])
        .elementsEqual(path)
    }
  }

  /// Adds the row just copied to the last block (its path first), or makes it replace the
  /// row of the same path (a table of unique paths never has one).
  private mutating func insert(_ entry: Entry) {
    if (entries.count + 1) * 2 > slots.count { grow() }
    let block = blocks[Int(entry.block)]
    let start = Int(entry.start)
    let (hash, slot, existing) = block.withUnsafeBufferPointer { bytes in
      let path = UnsafeBufferPointer(rebasing: bytes[start..<(start + Int(entry.pathCount))])
      let hash = Self.hash(path)
      let slot = probe(path, hash: hash)
      let value = slots[slot]
      return (hash, slot, value == 0 ? nil : Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1)
    }
    if let existing {
      entries[existing] = entry
      return
    }
    entries.append(entry)
    slots[slot] = UInt64(hash) << 32 | UInt64(entries.count)
  }

  /// Doubles the table of paths (or makes its first one), placing every row again.
  private mutating func grow() {
    let old = slots
    slots = [UInt64](repeating: 0, count: max(1024, old.count * 2))
    let mask = slots.count - 1
    for value in old where value != 0 {
      var slot = Int(truncatingIfNeeded: value >> 32) & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = value
    }
  }

  /// The pages of SQLite's cache while the table is read (64 KiB).
  static let scanCachePages = 16

  /// Reads the whole `files` table through `connection`.
  ///
  /// - Parameter expectedBytes: About how many bytes the rows hold (the database's size),
  ///   to size the table of paths once.
  static func load(
    from connection: borrowing SQLiteConnection, expectedBytes: Int
  ) throws(SQLiteError) -> IndexContents {
    var contents = IndexContents()
    // A row takes about 300 bytes of the file (a result of ~250, its key and path).
    let expectedRows = min(max(0, min(expectedBytes, 1 << 30)) / 300, maximumRows)
    contents.entries.reserveCapacity(expectedRows)
    var slotCount = 1024
    while slotCount < 2 * expectedRows { slotCount *= 2 }
    contents.slots = [UInt64](repeating: 0, count: slotCount)
    // Each page is read once, in order, and its rows copied out: a page cache of SQLite's
    // default size (2 MB) would only be memory to fault in.
    try connection.execute("PRAGMA cache_size=\(scanCachePages)")
    try connection.scan(
      "SELECT path, device, inode, size, mtime_s, mtime_ns, ctime_s, ctime_ns,"
        + " length(sidecars), length(result), sidecars, result, length(path) FROM files"
    ) { row in
      guard let pathCount = row.integer(12), pathCount >= 0,
        pathCount <= Int64(maximumRowBytes),
        let device = row.integer(1), let inode = row.integer(2), let size = row.integer(3),
        let modificationSeconds = row.integer(4), let modificationNanoseconds = row.integer(5),
        let changeSeconds = row.integer(6), let changeNanoseconds = row.integer(7),
        let sidecarCount = row.integer(8), let resultCount = row.integer(9),
        sidecarCount >= 0, resultCount >= 0,
        sidecarCount + resultCount <= Int64(maximumRowBytes),
        contents.entries.count < maximumRows,
        contents.loadedBytes + Int(pathCount + sidecarCount + resultCount) + rowOverhead
          <= maximumBytes
      else {
        contents.malformed += 1
        return
      }
      let length = Int(pathCount + sidecarCount + resultCount)
      if contents.blocks.isEmpty
        || contents.blocks[contents.blocks.count - 1].count + length > blockSize
      {
        contents.blocks.append([])
        contents.blocks[contents.blocks.count - 1].reserveCapacity(max(length, blockSize))
      }
      let last = contents.blocks.count - 1
      let start = contents.blocks[last].count
      let copied =
        row.withBlob(0) { contents.blocks[last].append(contentsOf: $0) } != nil
        && contents.blocks[last].count == start + Int(pathCount)
        && row.withBlob(10) { contents.blocks[last].append(contentsOf: $0) } != nil
        && row.withBlob(11) { contents.blocks[last].append(contentsOf: $0) } != nil
      guard copied, contents.blocks[last].count == start + length else {
        contents.blocks[last].removeSubrange(start...)
        contents.malformed += 1
        return
      }
      contents.loadedBytes += length + rowOverhead
      contents.insert(
        Entry(
          key: FileKey(
            device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
            modificationSeconds: modificationSeconds,
            modificationNanoseconds: modificationNanoseconds, changeSeconds: changeSeconds,
            changeNanoseconds: changeNanoseconds),
          block: Int32(last), start: Int32(start), pathCount: Int32(pathCount),
          sidecarCount: Int32(sidecarCount), resultCount: Int32(resultCount)))
    }
    return contents
  }
}
