import FoundationEssentials

/// Opening the index: where it is (IndexStore+File.swift), whether its file may be used
/// (IndexStore+Ownership.swift), then SQLite's connections, with the schema checked
/// (IndexStore+Schema.swift) and a damaged file replaced once.
extension IndexStore {
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
          &connection, rootPath: rootPath, root: rootStatus.identity,
          checksStructure: !loadsEverything)
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
          warnings: warnings,
          deferredCheck: loadsEverything
            ? Replacement(
              rootPath: rootPath, root: rootStatus.identity, busyTimeout: busyTimeout)
            : nil)
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
}
