import FoundationEssentials
import Synchronization

/// The persistent index of one library: an SQLite database outside the library that keeps,
/// per regular file, its ``FileKey`` and what ``AssetReader`` made of it, so that a later
/// enumeration takes an unchanged file's asset from here instead of opening it.
///
/// Opened once per enumeration (``open(at:root:)``). The database runs in WAL mode with a
/// busy timeout, so several processes can enumerate with one index at once; every write is
/// a transaction, so a process killed mid-run leaves the rows of its committed batches and
/// a usable file. Only an empty file or one this code wrote (``applicationID``, or the
/// tables of an earlier version) is opened for writing: anything else — a text file,
/// another program's database, an index of a newer schema — is not used and not changed
/// (``ownership(ofIndexAt:)``, a warning). An index of ours that is damaged, has an older
/// schema, holds a view or trigger, or belongs to another library root is replaced by an
/// empty one, with one warning; an index that stays locked, or a path inside the library,
/// is not used (a warning again). Every connection is hardened (`CSQLite_harden`). A
/// failing read or write during the run only stops the index from being used: the files
/// are read as without it, so the output never depends on the index's state.
final class IndexStore: Sendable {
  /// The schema this code reads and writes; an index of another version is rebuilt.
  static let schemaVersion: Int64 = 1
  /// What made the stored results: a result is only as good as the readers that made it,
  /// so an index written by another version (or stored form) is rebuilt.
  static var readers: String {
    "GroupEnumerator \(groupEnumeratorVersion), stored result \(StoredResult.version)"
  }
  /// How many results are written per transaction.
  static let batchSize = 512
  /// How long a call waits for another process's lock before giving up.
  static let busyTimeoutMilliseconds: Int32 = 10_000

  /// What one run saw, for ``EnumerationStatistics`` and the warnings.
  struct Counts: Sendable {
    /// Files whose asset was taken from the index.
    var taken = 0
    /// Results written.
    var stored = 0
    /// Files looked up whose path had a row (used or not).
    var existing = 0
    /// Results written for paths that had no row.
    var added = 0
  }

  /// What the index holds for one file.
  enum Lookup {
    /// A result stored under the file's current key and sidecars.
    case found(ArraySlice<UInt8>)
    /// A row for the path, of another version of the file (or its sidecars).
    case changed
    /// No row for the path (or the index failed).
    case missing
  }

  /// The connection that writes (and checked the index when it was opened).
  private let connection: SanitizerVisibleMutex<SQLiteConnection?>
  /// The connection that read ``contents``, inside one read transaction held for the
  /// whole run (WAL lets the writer commit meanwhile; this run never looks up what it
  /// wrote).
  private let reader: SanitizerVisibleMutex<SQLiteConnection?>
  /// What the index held when the run began, when every row was read at once: every
  /// lookup is answered from here. `nil` when each lookup is a query of ``reader``.
  private let contents: IndexContents?
  /// Whether lookups are still answered (cleared when the index fails during the run).
  private let isUsable = Atomic(true)
  private let pending = SanitizerVisibleMutex<[Row]>([])
  private let counts = SanitizerVisibleMutex(Counts())
  /// Files taken from the index, and files looked up that had a row: counted without a
  /// lock, since every reader counts every file.
  private let taken = Atomic(0)
  private let existing = Atomic(0)
  private let problems = SanitizerVisibleMutex<[String]>([])
  /// Where the index is, for messages.
  let path: String
  /// What makes a new index in place of a damaged one, when the opening left SQLite's
  /// structural check to the run's first write (``checkBeforeFirstWrite(_:)``); `nil` when
  /// it was done.
  private let deferredCheck: Replacement?
  /// Whether the deferred check is still to be done.
  private let isUnchecked: Atomic<Bool>

  /// What a new index needs: the library root it is for, and the wait for other
  /// processes' locks.
  struct Replacement: Sendable {
    let rootPath: String
    let root: FileIdentity
    let busyTimeout: Int32
  }

  /// One row of the `files` table.
  struct Row: Sendable {
    var path: [UInt8]
    var key: FileKey
    var sidecars: [UInt8]
    var result: [UInt8]
    /// Whether the path had no row before.
    var isNew: Bool
  }

  init(
    connection: consuming sending SQLiteConnection, reader: consuming sending SQLiteConnection,
    contents: IndexContents?, path: String, warnings: [String],
    deferredCheck: Replacement? = nil
  ) {
    self.connection = SanitizerVisibleMutex(Optional(connection))
    self.reader = SanitizerVisibleMutex(Optional(reader))
    self.contents = contents
    self.path = path
    self.deferredCheck = deferredCheck
    self.isUnchecked = Atomic(deferredCheck != nil)
    self.problems.withLock { $0 = warnings }
  }

  /// A run that stopped early (cancelled, its output closed, a stream let go before its
  /// end) keeps what it read: the results still queued (fewer than ``batchSize``) are
  /// written here, in one transaction, as ``finish(present:)`` would. Nothing else is: the
  /// rows of vanished files are dropped only after a complete walk.
  deinit {
    reader.withLock { $0 = nil }
    writePending()
  }

  /// How many files this run took from the index, and how many results it stored.
  var counted: Counts {
    var counted = counts.withLock { $0 }
    counted.taken = taken.load(ordering: .relaxed)
    counted.existing = existing.load(ordering: .relaxed)
    return counted
  }

  /// The warnings of this run (a rebuilt or unusable index), each once, in order.
  var warnings: [String] { problems.withLock { $0 } }

  // MARK: - Reading and writing

  /// The stored result of the file at `path` when its row's key and sidecars are `key`
  /// and `sidecars`.
  func lookUp(_ path: LibraryPath, key: FileKey, sidecars: [UInt8]) -> Lookup {
    guard isUsable.load(ordering: .relaxed) else { return .missing }
    let found = contents?.lookUp(path, key: key, sidecars: sidecars) ?? query(path, key, sidecars)
    if case .missing = found {} else { existing.add(1, ordering: .relaxed) }
    return found
  }

  /// ``lookUp(_:key:sidecars:)`` as one query of the reading connection, for an index
  /// whose rows were not all read at once.
  private func query(_ path: LibraryPath, _ key: FileKey, _ sidecars: [UInt8]) -> Lookup {
    var found = Lookup.missing
    let failure: SQLiteError? = reader.withLock { connection in
      guard connection != nil else { return nil }
      do throws(SQLiteError) {
        try connection?.query(
          "SELECT device, inode, size, mtime_s, mtime_ns, ctime_s, ctime_ns, sidecars, result"
            + " FROM files WHERE path = ?1", [.blob(path.bytes)], keepsPrepared: true
        ) { row in
          guard row.count == 9, IndexStore.key(of: row) == key, case .blob(let stored) = row[7],
            stored == sidecars, case .blob(let result) = row[8]
          else {
            found = .changed
            return
          }
          found = .found(result[...])
        }
        return nil
      } catch {
        return error
      }
    }
    if let failure { stopUsing(because: failure) }
    return found
  }

  /// The key in the first seven columns of a row, when they are all integers.
  private static func key(of row: [SQLiteConnection.Value]) -> FileKey? {
    var values: [Int64] = []
    for column in row.prefix(7) {
      guard case .integer(let value) = column else { return nil }
      values.append(value)
    }
    guard values.count == 7 else { return nil }
    return FileKey(
      device: UInt64(bitPattern: values[0]), inode: UInt64(bitPattern: values[1]),
      size: values[2], modificationSeconds: values[3], modificationNanoseconds: values[4],
      changeSeconds: values[5], changeNanoseconds: values[6])
  }

  /// Notes that one file's asset was taken from the index.
  func countTaken() { taken.add(1, ordering: .relaxed) }

  /// Queues a result for storing; every ``batchSize`` results are written in one
  /// transaction.
  func store(_ row: Row) {
    let batch: [Row]? = pending.withLock { pending in
      pending.append(row)
      guard pending.count >= IndexStore.batchSize else { return nil }
      defer { pending.removeAll(keepingCapacity: true) }
      return pending
    }
    if let batch { write(batch) }
  }

  /// Writes the results still queued, drops the rows of files not in `present` (the
  /// paths of every file the walk found), each in its own transaction, and closes the
  /// database (which checkpoints its WAL into the file when no other process has it open).
  ///
  /// When every row the table held at the start was looked up, none can be of a vanished
  /// file, and `present` is not called; nor when the rows were not all read at once (a
  /// call that reads a few files leaves the dropping to the next enumeration).
  func finish(present: () -> Set<[UInt8]>) {
    reader.withLock { reader in
      try? reader?.execute("COMMIT")
      reader = nil
    }
    defer { connection.withLock { $0 = nil } }
    writePending()
    var vanished: [[UInt8]] = []
    let failure: SQLiteError? = connection.withLock { connection in
      guard connection != nil else { return nil }
      do throws(SQLiteError) {
        // A call that reads a few files (no contents) leaves the rows alone.
        guard let contents, contents.count != existing.load(ordering: .relaxed) else {
          return nil
        }
        try checkBeforeFirstWrite(&connection)
        let present = present()
        try connection?.query("SELECT path FROM files") { row in
          if case .blob(let path) = row.first, !present.contains(path) { vanished.append(path) }
        }
        guard !vanished.isEmpty else { return nil }
        try connection?.transaction { connection throws(SQLiteError) in
          for path in vanished {
            try connection.query(
              "DELETE FROM files WHERE path = ?1", [.blob(path)], keepsPrepared: true)
          }
        }
        return nil
      } catch {
        return error
      }
    }
    if let failure { stopUsing(because: failure) }
  }

  /// Writes the results still queued, in one transaction.
  private func writePending() {
    let batch = pending.withLock { pending in
      defer { pending.removeAll() }
      return pending
    }
    if !batch.isEmpty { write(batch) }
  }

  private func write(_ batch: [Row]) {
    var wrote = false
    let failure: SQLiteError? = connection.withLock { connection in
      guard connection != nil else { return nil }
      do throws(SQLiteError) {
        try checkBeforeFirstWrite(&connection)
        guard connection != nil else { return nil }
        try connection?.transaction { connection throws(SQLiteError) in
          for row in batch {
            let key = row.key
            try connection.query(
              "INSERT OR REPLACE INTO files VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
              [
                .blob(row.path), .integer(Int64(bitPattern: key.device)),
                .integer(Int64(bitPattern: key.inode)), .integer(key.size),
                .integer(key.modificationSeconds), .integer(key.modificationNanoseconds),
                .integer(key.changeSeconds), .integer(key.changeNanoseconds),
                .blob(row.sidecars), .blob(row.result),
              ], keepsPrepared: true)
          }
        }
        wrote = true
        return nil
      } catch {
        return error
      }
    }
    if let failure {
      stopUsing(because: failure)
    } else if wrote {
      counts.withLock {
        $0.stored += batch.count
        $0.added += batch.count { $0.isNew }
      }
    }
  }

  /// Runs SQLite's structural check before the run's first write, when the opening left it
  /// here (``deferredCheck``): a run that changes nothing never pays for it. A damaged
  /// index is replaced by an empty one, with the warning its opening would have given;
  /// what it already answered stands, since every row taken was whole and checked when
  /// decoded. The reading connection is closed first (the rows were all read at once), so
  /// that no connection of this process keeps the removed file's WAL.
  ///
  /// - Parameter connection: The writing connection, held locked by the caller; `nil`
  ///   afterwards when no new index could be made (the reason is then a warning, and
  ///   nothing more is written or looked up).
  private func checkBeforeFirstWrite(_ connection: inout SQLiteConnection?) throws(SQLiteError) {
    defer {
      // Nothing is written when no new index could be made.
      if connection == nil { isUsable.store(false, ordering: .relaxed) }
    }
    guard let replacement = deferredCheck,
      isUnchecked.exchange(false, ordering: .relaxed), connection != nil
    else { return }
    var damage: SQLiteError?
    do throws(SQLiteError) {
      try connection?.checkStructure()
    } catch {
      guard error.isDamaged else { throw error }
      damage = error
    }
    guard let damage else { return }
    reader.withLock { $0 = nil }
    connection = nil
    IndexStore.removeDatabase(at: path)
    do throws(SQLiteError) {
      var fresh = try SQLiteConnection(
        path: path, busyTimeoutMilliseconds: replacement.busyTimeout)
      if let mismatch = try IndexStore.prepare(
        &fresh, rootPath: replacement.rootPath, root: replacement.root)
      {
        throw SQLiteError(code: 1, message: mismatch)
      }
      connection = consume fresh
      problems.withLock {
        $0.append(
          "The index '\(path)' is not a usable SQLite database (\(damage.message)); it was"
            + " rebuilt.")
      }
    } catch {
      problems.withLock {
        $0.append(
          "The index '\(path)' is not a usable SQLite database (\(damage.message)) and no new"
            + " one could be made (\(error.message)); the remaining files were read without"
            + " it.")
      }
    }
  }

  /// Closes the index for the rest of the run after a failed call, with one warning.
  private func stopUsing(because failure: SQLiteError) {
    isUsable.store(false, ordering: .relaxed)
    reader.withLock { $0 = nil }
    let wasOpen = connection.withLock { connection in
      defer { connection = nil }
      return connection != nil
    }
    guard wasOpen else { return }
    problems.withLock {
      $0.append(
        "The index '\(path)' failed during the run (\(failure.message)); the remaining files"
          + " were read without it.")
    }
  }

  /// The size of the file at `path` (0 when it cannot be examined).
  static func fileSize(atPath path: String) -> Int64 {
    (try? FileSystem.status(atPath: path).size) ?? 0
  }
}
