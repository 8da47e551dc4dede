import Foundation

extension IndexStore {
  // MARK: - Opening

  /// The environment variable that sets how long (in milliseconds, 0 to 600000) a call
  /// waits for another process's lock on the index; for tests, which hold a lock longer
  /// than a short wait. Without it the wait is ``busyTimeoutMilliseconds``.
  static let busyTimeoutVariable = "GROUPENUMERATOR_INDEX_BUSY_TIMEOUT_MS"

  /// The wait for another process's lock `environment` asks for, or the default.
  static func busyTimeout(in environment: [String: String]) -> Int32 {
    guard let text = environment[busyTimeoutVariable], let value = Int32(text),
      (0...600_000).contains(value)
    else { return busyTimeoutMilliseconds }
    return value
  }

  /// Opens the index `location` names for the library at `root`, creating or rebuilding
  /// it as needed.
  ///
  /// - Parameters:
  ///   - environment: Where ``IndexLocation/userCache`` and the busy timeout are found
  ///     (see ``IndexLocation/environment``).
  ///   - loadsEverything: Whether every row is read at once (``IndexContents``), for a
  ///     call that looks up most files; otherwise each lookup is one query, for a call
  ///     that reads a few files (`asset(at:)`, `groups()`).
  /// - Returns: The store, or `nil` (with the reason in `warnings`) when there is no index
  ///   or it cannot be used this run.
  static func open(
    _ location: IndexLocation, root: LibraryRoot, environment: [String: String],
    loadsEverything: Bool = true
  ) -> (IndexStore?, [String]) {
    let timeout = busyTimeout(in: environment)
    switch location {
    case .none:
      return (nil, [])
    case .file(let url):
      return open(at: url, root: root, busyTimeout: timeout, loadsEverything: loadsEverything)
    case .userCache:
      switch userCacheFile(for: root, environment: environment) {
      case .success(let url):
        return open(at: url, root: root, busyTimeout: timeout, loadsEverything: loadsEverything)
      case .failure(let warning): return (nil, [warning.message])
      }
    }
  }

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
    if let failure = makeFolders(folder) {
      return .failure(
        LocationWarning(
          message: "\(prefix) the folder '\(failure.path)' cannot be created"
            + " (\(String(cString: strerror(failure.code))))."))
    }
    return .success(url)
  }

  /// `path` with the symbolic links of its longest existing part resolved and the rest
  /// appended; `nil` when the rest holds `..` (it cannot be resolved before it exists).
  private static func resolvedFolder(_ path: String) -> String? {
    var missing: [String] = []
    var existing = path
    var status = stat()
    while stat(existing, &status) != 0 {
      let name = (existing as NSString).lastPathComponent
      let parent = (existing as NSString).deletingLastPathComponent
      if parent == existing || parent.isEmpty { break }
      if !name.isEmpty, name != "." { missing.insert(name, at: 0) }
      existing = parent
    }
    guard !missing.contains("..") else { return nil }
    var resolved = canonicalPath(existing)
    for name in missing { resolved = (resolved as NSString).appendingPathComponent(name) }
    return resolved
  }

  /// Creates `path` and every missing folder above it, each with mode 0700.
  ///
  /// - Returns: The first folder that could not be created, with `errno`; `nil` on
  ///   success.
  private static func makeFolders(_ path: String) -> (path: String, code: Int32)? {
    var status = stat()
    if stat(path, &status) == 0 {
      return status.st_mode & S_IFMT == S_IFDIR ? nil : (path, ENOTDIR)
    }
    let parent = (path as NSString).deletingLastPathComponent
    if parent != path, !parent.isEmpty, let failure = makeFolders(parent) { return failure }
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { return (path, errno) }
    return nil
  }

  /// The root's canonical path as bytes (the name of the default index comes from them,
  /// so that a name that is not UTF-8 still gives its own file); `nil` when it cannot be
  /// resolved.
  private static func canonicalBytes(_ path: String) -> [UInt8]? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return Array(UnsafeBufferPointer(start: resolved, count: strlen(resolved)))
      .map { UInt8(bitPattern: $0) }
  }

  /// Opens the index at `url` for the library at `root`, creating or rebuilding it as
  /// needed, waiting up to `busyTimeout` milliseconds for another process's lock (and
  /// reading every row at once when `loadsEverything`).
  ///
  /// - Returns: The store, or `nil` (with the reason in `warnings`) when the index cannot
  ///   be used this run.
  static func open(
    at url: URL, root: LibraryRoot, busyTimeout: Int32 = busyTimeoutMilliseconds,
    loadsEverything: Bool = true
  ) -> (IndexStore?, [String]) {
    let path = url.path
    guard let rootStatus = try? root.descriptor.status() else {
      return (nil, ["The index '\(path)' was not used: the library root cannot be examined."])
    }
    let rootPath = canonicalPath(root.path)
    if let inside = IndexStore.libraryFolder(
      holding: url, root: rootStatus.identity, rootPath: root.path)
    {
      return (
        nil,
        [
          "The index '\(path)' was not used: it is inside the library ('\(inside)'), which"
            + " is never written. Put it outside the library folder."
        ]
      )
    }
    if case .refused(let reason) = ownership(ofIndexAt: path) {
      return (nil, ["The index '\(path)' was not used: \(reason); it was left as it was."])
    }
    var warnings: [String] = []
    readAhead(path)
    for attempt in 0..<2 {
      do throws(SQLiteError) {
        var connection = try SQLiteConnection(
          path: path, busyTimeoutMilliseconds: busyTimeout)
        if let mismatch = try prepare(
          &connection, rootPath: rootPath, root: rootStatus.identity)
        {
          guard attempt == 0 else { throw SQLiteError(code: 1, message: mismatch) }
          warnings.append("The index '\(path)' \(mismatch); it was rebuilt.")
          try rebuild(&connection, rootPath: rootPath, root: rootStatus.identity)
        }
        let reader = try SQLiteConnection(
          path: path, busyTimeoutMilliseconds: busyTimeout)
        try reader.execute("BEGIN")
        let contents =
          loadsEverything
          ? try IndexContents.load(from: reader, expectedBytes: Int(fileSize(atPath: path)))
          : nil
        let store = IndexStore(
          connection: connection, reader: reader, contents: contents, path: path,
          warnings: warnings)
        return (store, warnings)
      } catch {
        if error.isBusy {
          warnings.append(
            "The index '\(path)' was not used: it stayed locked by another process"
              + " (\(error.message)).")
          return (nil, warnings)
        }
        guard attempt == 0, error.isDamaged else {
          warnings.append("The index '\(path)' was not used: \(error.message).")
          return (nil, warnings)
        }
        warnings.append(
          "The index '\(path)' is not a usable SQLite database (\(error.message)); it was"
            + " rebuilt.")
        removeDatabase(at: path)
      }
    }
    return (nil, warnings)
  }

  /// Sets the connection up, creates the tables of a new index, and checks an existing
  /// one.
  ///
  /// - Returns: Why the index cannot be used as it is (other schema, other root), or `nil`.
  private static func prepare(
    _ connection: inout SQLiteConnection, rootPath: String, root: FileIdentity
  ) throws(SQLiteError) -> String? {
    // What the file holds now, its `-wal` included (the check before opening read the main
    // file alone): exactly the index's tables, or nothing. A view or trigger (which could
    // run forever when `files` is read or written), or a missing table, makes it a file to
    // replace, as if damaged.
    var objects: [[String]] = []
    try connection.query("SELECT type, name FROM sqlite_master") { row in
      if row.count == 2, case .text(let type) = row[0], case .text(let name) = row[1] {
        objects.append([type, name])
      } else {
        objects.append(["?", "?"])
      }
    }
    guard objects.isEmpty || Set(objects) == ownObjects else {
      let foreign = objects.filter { !ownObjects.contains($0) }.prefix(3)
        .map { "\($0[0]) '\($0[1])'" }
      let missing = ownObjects.subtracting(objects).map { "table '\($0[1])'" }.sorted()
      let what =
        foreign.isEmpty
        ? "it lacks \(missing.joined(separator: ", "))"
        : "it holds objects the index never has (\(foreign.joined(separator: ", ")))"
      throw SQLiteError(code: 11, message: what)
    }
    var identifier: Int64 = 0
    try connection.query("PRAGMA application_id") { row in
      if case .integer(let value) = row.first { identifier = value }
    }
    if identifier != Int64(applicationID) {
      // Before WAL on a new file, so the mark is in the main file from the first write.
      try connection.execute("PRAGMA application_id=\(applicationID)")
    }
    var journal = ""
    try connection.query("PRAGMA journal_mode=WAL") { row in
      if case .text(let mode) = row.first { journal = mode }
    }
    if journal.lowercased() != "wal" {
      throw SQLiteError(code: 26, message: "PRAGMA journal_mode: WAL refused (\(journal))")
    }
    try connection.execute("PRAGMA synchronous=NORMAL")
    // The check reads every page once: through a small cache, not SQLite's default 2 MB,
    // which would only be memory to fault in; the connection's own size is set back after.
    var cacheSize: Int64 = -2000
    try connection.query("PRAGMA cache_size") { row in
      if case .integer(let value) = row.first { cacheSize = value }
    }
    try connection.execute("PRAGMA cache_size=16")
    var check = ""
    try connection.query("PRAGMA quick_check") { row in
      if case .text(let text) = row.first, check.isEmpty { check = text }
    }
    try connection.execute("PRAGMA cache_size=\(cacheSize)")
    guard check == "ok" else {
      throw SQLiteError(code: 11, message: "PRAGMA quick_check: \(check)")
    }
    let created = try connection.transaction { connection throws(SQLiteError) in
      var tables: Set<String> = []
      try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { row in
        if case .text(let name) = row.first { tables.insert(name) }
      }
      guard tables.isEmpty else { return false }
      try create(&connection, rootPath: rootPath, root: root)
      return true
    }
    if created { return nil }
    var version: Int64?
    var readers: String?
    do throws(SQLiteError) {
      try connection.query("SELECT version, readers FROM schema_version") { row in
        if case .integer(let value) = row.first { version = value }
        if row.count == 2, case .text(let text) = row[1] { readers = text }
      }
    } catch {
      if error.isBusy || error.isDamaged { throw error }
      return "has no schema version"
    }
    guard version == schemaVersion else {
      return "has schema version \(version.map(String.init) ?? "none"), not \(schemaVersion)"
    }
    guard readers == IndexStore.readers else {
      return "was written by \(readers ?? "another version"), not \(IndexStore.readers)"
    }
    var stored: (String, Int64, Int64)?
    try connection.query("SELECT path, device, inode FROM library_root") { row in
      if row.count == 3, case .text(let path) = row[0], case .integer(let device) = row[1],
        case .integer(let inode) = row[2]
      {
        stored = (path, device, inode)
      }
    }
    guard let stored else { return "names no library root" }
    guard stored.0 == rootPath, UInt64(bitPattern: stored.1) == root.device,
      UInt64(bitPattern: stored.2) == root.inode
    else {
      return "belongs to another library ('\(stored.0)')"
    }
    return nil
  }

  /// Creates the tables in an open transaction.
  private static func create(
    _ connection: inout SQLiteConnection, rootPath: String, root: FileIdentity
  ) throws(SQLiteError) {
    try connection.execute(
      """
      CREATE TABLE schema_version(version INTEGER NOT NULL, readers TEXT NOT NULL);
      CREATE TABLE library_root(path TEXT NOT NULL, device INTEGER NOT NULL,
        inode INTEGER NOT NULL);
      CREATE TABLE files(path BLOB PRIMARY KEY, device INTEGER NOT NULL,
        inode INTEGER NOT NULL, size INTEGER NOT NULL, mtime_s INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL, ctime_s INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
        sidecars BLOB NOT NULL, result BLOB NOT NULL) WITHOUT ROWID;
      """)
    try connection.query(
      "INSERT INTO schema_version VALUES (?1, ?2)",
      [.integer(schemaVersion), .text(IndexStore.readers)])
    try connection.query(
      "INSERT INTO library_root VALUES (?1, ?2, ?3)",
      [
        .text(rootPath), .integer(Int64(bitPattern: root.device)),
        .integer(Int64(bitPattern: root.inode)),
      ])
  }

  /// Empties a readable index of another schema or root and creates this one's tables,
  /// in one transaction.
  private static func rebuild(
    _ connection: inout SQLiteConnection, rootPath: String, root: FileIdentity
  ) throws(SQLiteError) {
    try connection.transaction { connection throws(SQLiteError) in
      var tables: [String] = []
      try connection.query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      ) { row in
        if case .text(let name) = row.first { tables.append(name) }
      }
      for table in tables {
        let quoted = table.replacingOccurrences(of: "\"", with: "\"\"")
        try connection.execute("DROP TABLE \"\(quoted)\"")
      }
      try create(&connection, rootPath: rootPath, root: root)
    }
  }

  /// The most of an index file (and of its `-wal`) ``readAhead(_:)`` reads.
  static let readAheadLimit = 1 << 30

  /// Reads the index file and its `-wal` once from start to end, 128 KiB a call, before
  /// SQLite opens them, so that they are in the page cache when it reads them.
  ///
  /// SQLite reads a database one page (4 KiB) at a time in the order of its B-trees, which
  /// on a cold disk is one seek per page: `PRAGMA quick_check` of the 32 MB index of the
  /// 100,000-file bench library took 0.6 s after the page cache was dropped, and 0.07 s
  /// after this read (which costs 0.03 s cold, under 0.01 s warm). Nothing is parsed here
  /// but the database header: only the pages it says the database has are read (so a
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

  /// Removes a database file that SQLite cannot read, with its WAL and shared-memory files.
  private static func removeDatabase(at path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
  }

  /// The root's path with symbolic links resolved, as the index records it.
  private static func canonicalPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
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
      var status = stat()
      if stat(folder, &status) == 0, UInt64(status.st_dev) == root.device,
        UInt64(status.st_ino) == root.inode
      {
        return folder
      }
      let parent = (folder as NSString).deletingLastPathComponent
      if parent == folder || parent.isEmpty { return nil }
      folder = parent
    }
  }
}
