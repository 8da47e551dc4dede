/// Every row the index held when the run began, read in one pass over the `files` table,
/// so that looking a file up is a dictionary lookup: no SQLite call and no lock per file.
///
/// The stored bytes (sidecar keys and results) live one after another in blocks of about
/// a megabyte (none is ever moved once written, and no more is allocated than the rows
/// hold); a row keeps its key and where its bytes are. Immutable once loaded, so the
/// readers share it freely.
struct IndexContents: Sendable {
  /// One stored row.
  struct Entry: Sendable {
    var key: FileKey
    /// The block that holds the row's bytes.
    var block: Int32
    /// Where the row's sidecar keys start in its block.
    var start: Int32
    /// How many bytes the sidecar keys take; the result follows them.
    var sidecarCount: Int32
    /// How many bytes the result takes.
    var resultCount: Int32
  }

  /// The size of a block.
  static let blockSize = 1 << 20
  /// The most bytes one row's sidecar keys and result may take (a result is about 250
  /// bytes; its problems are capped): a longer row is not loaded, and its file is read.
  static let maximumRowBytes = 1 << 20
  /// The most bytes all rows may take together (about four million files' worth): the
  /// rows past it are not loaded, and their files are read, so that a damaged or foreign
  /// index cannot make a run hold gigabytes.
  static let maximumBytes = 1 << 30
  /// What each row costs beside its bytes (its path, key and place in the table of
  /// paths), counted against ``maximumBytes``: a table of millions of empty rows is as
  /// bounded as one of large rows.
  static let rowOverhead = 96
  /// The most rows loaded (about 4 million, 40 times the 100,000-file bench library): the
  /// rows past it are not loaded, and their files are read.
  static let maximumRows = 1 << 22

  /// The rows by path.
  private(set) var entries: [LibraryPath: Entry] = [:]
  /// Every row's sidecar keys and result.
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
    guard let entry = entries[path] else { return .missing }
    let block = blocks[Int(entry.block)]
    let start = Int(entry.start)
    let middle = start + Int(entry.sidecarCount)
    guard entry.key == key, block[start..<middle].elementsEqual(sidecars) else {
      return .changed
    }
    return .found(block[middle..<(middle + Int(entry.resultCount))])
  }

  /// Reads the whole `files` table through `connection`.
  ///
  /// - Parameter expectedBytes: About how many bytes the rows hold (the database's size),
  ///   to size the table of paths once.
  static func load(
    from connection: borrowing SQLiteConnection, expectedBytes: Int
  ) throws(SQLiteError) -> IndexContents {
    var contents = IndexContents()
    // A row takes about 300 bytes of the file (a result of ~250, its key and path).
    contents.entries.reserveCapacity(max(0, min(expectedBytes, 1 << 30)) / 300)
    try connection.scan(
      "SELECT path, device, inode, size, mtime_s, mtime_ns, ctime_s, ctime_ns,"
        + " length(sidecars), length(result), sidecars, result, length(path) FROM files"
    ) { row in
      guard let pathCount = row.integer(12), pathCount <= Int64(maximumRowBytes),
        let path = row.withBlob(0, { Array($0) }),
        let device = row.integer(1), let inode = row.integer(2), let size = row.integer(3),
        let modificationSeconds = row.integer(4), let modificationNanoseconds = row.integer(5),
        let changeSeconds = row.integer(6), let changeNanoseconds = row.integer(7),
        let sidecarCount = row.integer(8), let resultCount = row.integer(9),
        sidecarCount >= 0, resultCount >= 0,
        sidecarCount + resultCount <= Int64(maximumRowBytes),
        contents.entries.count < maximumRows,
        contents.loadedBytes + Int(sidecarCount + resultCount) + path.count + rowOverhead
          <= maximumBytes
      else {
        contents.malformed += 1
        return
      }
      let length = Int(sidecarCount + resultCount)
      if contents.blocks.isEmpty
        || contents.blocks[contents.blocks.count - 1].count + length > blockSize
      {
        contents.blocks.append([])
        contents.blocks[contents.blocks.count - 1].reserveCapacity(max(length, blockSize))
      }
      let last = contents.blocks.count - 1
      let start = contents.blocks[last].count
      let copied =
        row.withBlob(10) { contents.blocks[last].append(contentsOf: $0) } != nil
        && row.withBlob(11) { contents.blocks[last].append(contentsOf: $0) } != nil
      guard copied, contents.blocks[last].count == start + length else {
        contents.blocks[last].removeSubrange(start...)
        contents.malformed += 1
        return
      }
      contents.loadedBytes += length + path.count + rowOverhead
      contents.entries[LibraryPath(bytes: path)] = Entry(
        key: FileKey(
          device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
          modificationSeconds: modificationSeconds,
          modificationNanoseconds: modificationNanoseconds, changeSeconds: changeSeconds,
          changeNanoseconds: changeNanoseconds),
        block: Int32(last), start: Int32(start), sidecarCount: Int32(sidecarCount),
        resultCount: Int32(resultCount))
    }
    return contents
  }
}
