import FoundationEssentials

/// The index as a file: where the default one lives (and its folders, created when
/// missing), whether a place is inside the library, reading it ahead of SQLite, and
/// removing one SQLite cannot read. Every call on a path goes through ``FileSystem``.
extension IndexStore {
  // MARK: - Location

  /// Why the default index cannot be used, as a warning.
  struct LocationWarning: Error {
    var message: String
  }

  /// The default index file of the library at `root` (``IndexLocation/userCache``), with
  /// its folders created (mode 0700) when missing; never inside the library.
  static func userCacheFile(for root: LibraryRoot, environment: [String: String])
    -> Result<URL, LocationWarning>
  {
    let prefix = "The default index was not used:"
    guard let given = IndexLocation.cacheFolder(in: environment) else {
      return .failure(
        LocationWarning(
          message: "\(prefix) neither XDG_CACHE_HOME nor HOME is an absolute path."
            + " Set one, or give the index file's path."))
    }
    guard let folder = resolvedFolder(given) else {
      return .failure(
        LocationWarning(
          message: "\(prefix) its folder '\(given)' cannot be resolved (a '..' beneath a"
            + " folder that does not exist yet)."))
    }
    guard let rootStatus = try? root.descriptor.status(),
      let rootPath = canonicalBytes(root.path)
    else {
      return .failure(
        LocationWarning(message: "\(prefix) the library root cannot be examined."))
    }
    let url = URL(fileURLWithPath: folder).appendingPathComponent(
      IndexLocation.fileName(forRoot: rootPath))
    // Checked before any folder is made, so that nothing is ever created in the library.
    if let inside = libraryFolder(holding: url, root: rootStatus.identity, rootPath: root.path) {
      return .failure(
        LocationWarning(
          message: "The index '\(url.path)' was not used: it is inside the library"
            + " ('\(inside)'), which is never written. Put it outside the library folder."))
    }
    if let failure = FileSystem.makeFolders(atPath: folder, permissions: 0o700) {
      return .failure(
        LocationWarning(
          message: "\(prefix) the folder '\(failure.path)' cannot be created"
            + " (\(failure.code.text))."))
    }
    return .success(url)
  }

  /// `path` with the symbolic links of its longest existing part resolved and the rest
  /// appended; `nil` when the rest holds `..` (it cannot be resolved before it exists).
  private static func resolvedFolder(_ path: String) -> String? {
    var missing: [String] = []
    var existing = path
    while (try? FileSystem.status(atPath: existing)) == nil {
      let name = PathText.lastComponent(of: existing)
      let parent = PathText.parent(of: existing)
      if parent == existing || parent.isEmpty { break }
      if !name.isEmpty, name != "." { missing.insert(name, at: 0) }
      existing = parent
    }
    guard !missing.contains("..") else { return nil }
    var resolved = canonicalPath(existing)
    for name in missing { resolved = PathText.appending(name, to: resolved) }
    return resolved
  }

  /// The root's canonical path as bytes (the name of the default index comes from them,
  /// so that a name that is not UTF-8 still gives its own file); `nil` when it cannot be
  /// resolved.
  private static func canonicalBytes(_ path: String) -> [UInt8]? {
    try? FileSystem.canonicalPath(path)
  }

  /// The root's path with symbolic links resolved, as the index records it.
  static func canonicalPath(_ path: String) -> String {
    guard let resolved = try? FileSystem.canonicalPath(path) else { return path }
    return String(decoding: resolved, as: UTF8.self)
  }

  /// The folder of the library that would hold the index file at `url`, when one of the
  /// folders above it is the library root (by device and inode, so other names of the root
  /// count too); `nil` when the index is outside the library.
  ///
  /// With `rootPath` (the root's path), the mounts are looked at too
  /// (``mountedLibraryFolder(holding:rootPath:mounts:)``): a library folder bind-mounted
  /// elsewhere, or the layers of the overlay the library is on.
  static func libraryFolder(holding url: URL, root: FileIdentity, rootPath: String? = nil)
    -> String?
  {
    var folder = canonicalPath(url.deletingLastPathComponent().path)
    if let rootPath,
      let inside = mountedLibraryFolder(
        holding: folder, rootPath: canonicalPath(rootPath), mounts: currentMounts())
    {
      return inside
    }
    while true {
      if let status = try? FileSystem.status(atPath: folder), status.identity == root {
        return folder
      }
      let parent = PathText.parent(of: folder)
      if parent == folder || parent.isEmpty { return nil }
      folder = parent
    }
  }

  // MARK: - Reading ahead

  /// The most of an index file (and of its `-wal`) ``readAhead(_:)`` reads.
  static let readAheadLimit = 1 << 30

  /// Reads the index file and its `-wal` once from start to end, 128 KiB a call, before
  /// SQLite opens them, so that they are in the page cache when it reads them.
  ///
  /// SQLite reads a database one page at a time in the order of its B-trees, which on a
  /// cold disk is one seek per page; one sequential read costs a fraction of that
  /// (docs/Performance.md has the figures). Nothing is parsed here but the database
  /// header: only the pages it says the database has are read (so a
  /// file grown past them, or one that is not a database, costs nothing), never more than
  /// ``readAheadLimit``, and a file that is not regular (a FIFO, a device) is left alone.
  /// A failure only means SQLite reads the file itself.
  ///
  /// - Returns: How many bytes were read (for tests).
  @discardableResult
  static func readAhead(_ path: String) -> Int {
    // Small enough that the buffer's pages cost little to fault in; the kernel reads
    // ahead of sequential calls on its own.
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 17, alignment: 16)
    defer { chunk.deallocate() }
    var total = 0
    for (file, isDatabase) in [(path, true), (path + "-wal", false)] {
      guard
        let descriptor = try? FileDescriptor.open(
          file, options: [.closeOnExec, .nonBlocking, .noControllingTerminal])
      else { continue }
      defer { descriptor.close() }
      guard let status = try? descriptor.status(), status.kind == .regular else { continue }
      var length = min(Int(clamping: status.size), readAheadLimit)
      var offset = 0
      if isDatabase {
        guard let first = try? descriptor.read(into: chunk, atAbsoluteOffset: 0),
          let pages = databaseLength(header: UnsafeRawBufferPointer(rebasing: chunk[..<first]))
        else { continue }
        length = min(length, pages)
        offset = min(first, length)
      }
      while offset < length,
        let got = try? descriptor.read(
          into: UnsafeMutableRawBufferPointer(
            rebasing: chunk[..<min(chunk.count, length - offset)]),
          atAbsoluteOffset: offset), got > 0
      {
        offset += got
      }
      total += offset
    }
    return total
  }

  /// How many bytes the pages of the SQLite database whose first bytes are `header` take:
  /// the page size (bytes 16–17, 1 meaning 65536) times the page count (bytes 28–31);
  /// `nil` when it is not a database header or the count is not one SQLite would trust
  /// (zero, or written by a version other than the last writer: bytes 24–27 and 92–95
  /// differ). SQLite reads no page past these.
  static func databaseLength(header: UnsafeRawBufferPointer) -> Int? {
    guard header.count >= 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
      return nil
    }
    func integer(at offset: Int, count: Int) -> Int {
      header[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }
    var pageSize = integer(at: 16, count: 2)
    if pageSize == 1 { pageSize = 65536 }
    let pages = integer(at: 28, count: 4)
    guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0, pages > 0,
      integer(at: 24, count: 4) == integer(at: 92, count: 4)
    else { return nil }
    return pages * pageSize
  }

  // MARK: - Removing

  /// Removes a database file that SQLite cannot read, with its WAL and shared-memory files.
  static func removeDatabase(at path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
      try? FileSystem.removeFile(atPath: path + suffix)
    }
  }
}
