import FoundationEssentials

/// The index's tables: a new index gets them, an existing one is checked against this
/// version's schema and root, and one of another schema or root is emptied and made
/// again.
extension IndexStore {
  /// Sets the connection up, creates the tables of a new index, and checks an existing
  /// one.
  ///
  /// - Parameter checksStructure: Whether SQLite's structural check (``SQLiteConnection/checkStructure()``)
  ///   runs now. A caller that reads every row at once leaves it out: reading the `files`
  ///   table meets a damaged page of it as `SQLITE_CORRUPT`, and what that read does not
  ///   see (free pages, pages counted twice) only matters to a write, which checks first.
  /// - Returns: Why the index cannot be used as it is (other schema, other root), or `nil`.
  static func prepare(
    _ connection: inout SQLiteConnection, rootPath: String, root: FileIdentity,
    checksStructure: Bool = true
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
    if checksStructure { try connection.checkStructure() }
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
  static func rebuild(
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
        let quoted = table.split(separator: "\"", omittingEmptySubsequences: false)
          .joined(separator: "\"\"")
        try connection.execute("DROP TABLE \"\(quoted)\"")
      }
      try create(&connection, rootPath: rootPath, root: root)
    }
  }
}

extension SQLiteConnection {
  /// SQLite's check of the whole file (`PRAGMA quick_check`: every page of every table
  /// reached once, none twice, the free pages accounted for).
  ///
  /// - Throws: A damaged index as `SQLITE_CORRUPT` (``SQLiteError/isDamaged``).
  mutating func checkStructure() throws(SQLiteError) {
    // The check reads every page once: through a small cache, not SQLite's default 2 MB,
    // which would only be memory to fault in; the connection's own size is set back after.
    var cacheSize: Int64 = -2000
    try query("PRAGMA cache_size") { row in
      if case .integer(let value) = row.first { cacheSize = value }
    }
    try execute("PRAGMA cache_size=16")
    var check = ""
    try query("PRAGMA quick_check") { row in
      if case .text(let text) = row.first, check.isEmpty { check = text }
    }
    try execute("PRAGMA cache_size=\(cacheSize)")
    guard check == "ok" else {
      throw SQLiteError(code: 11, message: "PRAGMA quick_check: \(check)")
    }
  }
}
