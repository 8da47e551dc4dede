import Foundation

extension IndexStore {
  // MARK: - Opening

  /// Opens the index at `url` for the library at `root`, creating or rebuilding it as
  /// needed.
  ///
  /// - Returns: The store, or `nil` (with the reason in `warnings`) when the index cannot
  ///   be used this run.
  static func open(at url: URL, root: LibraryRoot) -> (IndexStore?, [String]) {
    let path = url.path
    guard let rootStatus = try? root.descriptor.status() else {
      return (nil, ["The index '\(path)' was not used: the library root cannot be examined."])
    }
    let rootPath = canonicalPath(root.path)
    if let inside = IndexStore.libraryFolder(holding: url, root: rootStatus.identity) {
      return (
        nil,
        [
          "The index '\(path)' was not used: it is inside the library ('\(inside)'), which"
            + " is never written. Put it outside the library folder."
        ]
      )
    }
    var warnings: [String] = []
    for attempt in 0..<2 {
      do throws(SQLiteError) {
        var connection = try SQLiteConnection(
          path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        if let mismatch = try prepare(
          &connection, rootPath: rootPath, root: rootStatus.identity)
        {
          guard attempt == 0 else { throw SQLiteError(code: 1, message: mismatch) }
          warnings.append("The index '\(path)' \(mismatch); it was rebuilt.")
          try rebuild(&connection, rootPath: rootPath, root: rootStatus.identity)
        }
        let reader = try SQLiteConnection(
          path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try reader.execute("BEGIN")
        let store = IndexStore(
          connection: connection, reader: reader, path: path, warnings: warnings)
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
    var journal = ""
    try connection.query("PRAGMA journal_mode=WAL") { row in
      if case .text(let mode) = row.first { journal = mode }
    }
    if journal.lowercased() != "wal" {
      throw SQLiteError(code: 26, message: "PRAGMA journal_mode: WAL refused (\(journal))")
    }
    try connection.execute("PRAGMA synchronous=NORMAL")
    var check = ""
    try connection.query("PRAGMA quick_check") { row in
      if case .text(let text) = row.first, check.isEmpty { check = text }
    }
    guard check == "ok" else {
      throw SQLiteError(code: 11, message: "PRAGMA quick_check: \(check)")
    }
    try connection.execute("BEGIN IMMEDIATE")
    do throws(SQLiteError) {
      var tables: Set<String> = []
      try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { row in
        if case .text(let name) = row.first { tables.insert(name) }
      }
      if tables.isEmpty {
        try create(&connection, rootPath: rootPath, root: root)
        try connection.execute("COMMIT")
        return nil
      }
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
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
    try connection.execute("BEGIN IMMEDIATE")
    do throws(SQLiteError) {
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
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
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
  static func libraryFolder(holding url: URL, root: FileIdentity) -> String? {
    var folder = canonicalPath(url.deletingLastPathComponent().path)
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
