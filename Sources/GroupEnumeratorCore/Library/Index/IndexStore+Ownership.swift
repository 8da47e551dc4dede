import FoundationEssentials

extension IndexStore {
  /// The application id (`PRAGMA application_id`, bytes 68–71 of the database header) of
  /// every index this code creates: "GEnx". Written first, before the database switches to
  /// WAL, so it is in the main file from the start.
  static let applicationID: Int32 = 0x4745_6E78

  /// The objects the index's `sqlite_master` holds, as (type, name): its three tables
  /// (`files` is `WITHOUT ROWID`, so its primary key needs no index of its own).
  static let ownObjects: Set<[String]> = [
    ["table", "schema_version"], ["table", "library_root"], ["table", "files"],
  ]

  /// What a file at the index's path is, found before anything opens it for writing.
  enum Ownership: Equatable {
    /// No file, or an empty one: the index is created there.
    case absent
    /// An index this code wrote: `marked` when its header has ``applicationID`` (an index
    /// of an earlier version may lack it and is recognised by its tables). It may be
    /// damaged, or of an older schema: then it is rebuilt.
    case ours(marked: Bool)
    /// Anything else: never opened for writing, never changed, never removed; `reason`
    /// says what it is, for the warning.
    case refused(reason: String)
  }

  /// Looks at the file at `path` — its type, its first 100 bytes, and, for an SQLite
  /// database, its schema read from the main file alone (``SQLiteConnection`` with
  /// `immutable`, which takes no lock and reads or creates no `-wal`/`-journal`) — and says
  /// whether the index may use it. A text file, another program's database (a Lightroom
  /// catalog), one this code cannot read, and an index of a newer schema are refused, as is
  /// an empty file beside a `-wal` that is not (another program's database being written).
  static func ownership(ofIndexAt path: String) -> Ownership {
    let status: FileStatus
    do throws(SystemCallError) {
      status = try FileSystem.status(atPath: path, followsLinks: false)
    } catch {
      return error.errno == .noSuchFileOrDirectory
        ? neighbours(of: path)
        : .refused(reason: "it cannot be examined (\(error.errno.text))")
    }
    guard status.kind == .regular else {
      return .refused(reason: "it is not a regular file (it is \(status.kind.description))")
    }
    guard status.size > 0 else { return neighbours(of: path) }
    guard
      let descriptor = try? FileDescriptor.open(
        path, options: [.closeOnExec, .nonBlocking, .noFollow, .noControllingTerminal])
    else { return .refused(reason: "it cannot be opened for reading") }
    defer { descriptor.close() }
    var header = [UInt8](repeating: 0, count: 100)
    let got = header.withUnsafeMutableBytes { buffer in
      (try? descriptor.read(into: buffer, atAbsoluteOffset: 0)) ?? 0
    }
    guard got == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
      return .refused(reason: "it is not an SQLite database, so not an index")
    }
    let identifier = header[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
    if identifier != 0, identifier != applicationID {
      let hex = String(UInt32(bitPattern: identifier), radix: 16)
      return .refused(reason: "it is another program's SQLite database (application id 0x\(hex))")
    }
    let marked = identifier == applicationID
    var objects: [[String]] = []
    var version: Int64?
    do throws(SQLiteError) {
      var connection = try SQLiteConnection(
        path: path, busyTimeoutMilliseconds: 0, immutable: true)
      try connection.query("SELECT type, name FROM sqlite_master") { row in
        if row.count == 2, case .text(let type) = row[0], case .text(let name) = row[1] {
          objects.append([type, name])
        } else {
          objects.append(["?", "?"])
        }
      }
      if objects.contains(["table", "schema_version"]) {
        try connection.query("SELECT version FROM schema_version") { row in
          if case .integer(let value) = row.first { version = value }
        }
      }
    } catch {
      // A damaged index of ours is rebuilt; a database that cannot be read cannot be told
      // to be ours.
      return marked
        ? .ours(marked: true)
        : .refused(
          reason: "it is an SQLite database that cannot be read (\(error.message)), so it"
            + " cannot be told to be an index")
    }
    if let version, version > schemaVersion {
      return .refused(
        reason: "it was written by a newer GroupEnumerator (schema version \(version); this"
          + " one reads \(schemaVersion))")
    }
    if marked { return .ours(marked: true) }
    if objects.isEmpty {
      // An empty database, unless a `-wal` holds what its main file does not show yet.
      return neighbours(of: path) == .absent ? .ours(marked: false) : neighbours(of: path)
    }
    guard Set(objects).isSubset(of: ownObjects), objects.contains(["table", "schema_version"])
    else {
      let names = objects.map { "'\($0[1])'" }
      let listed = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "")
      return .refused(reason: "it is another program's SQLite database (\(listed))")
    }
    return .ours(marked: false)
  }

  /// ``Ownership/absent`` when no non-empty `-wal` lies beside `path`; refused otherwise
  /// (SQLite would replay another program's changes into it). A `-journal` beside an
  /// empty file is what creating any database leaves for a moment (another run of ours
  /// creating this index too): rolling it back can only leave the file empty.
  private static func neighbours(of path: String) -> Ownership {
    if let status = try? FileSystem.status(atPath: path + "-wal", followsLinks: false),
      status.size > 0
    {
      return .refused(
        reason: "its '-wal' file beside it is not empty: another program's database being"
          + " written")
    }
    return .absent
  }
}
