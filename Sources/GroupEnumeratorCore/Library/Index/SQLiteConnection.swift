internal import CDeferredLibraries
internal import CSQLite

/// A failed SQLite call: SQLite's result code, for programs, and its message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
  /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
  let code: Int32
  /// SQLite's own words, with the call that failed.
  let message: String

  /// The call's name, then SQLite's message.
  var description: String { message }

  /// Whether the file is not a database, or a damaged one: it can only be rebuilt.
  var isDamaged: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

  /// Whether another connection holds a lock that outlasted the busy timeout.
  var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
}

/// One open SQLite database, closed when the value goes: the only place the index touches
/// SQLite's C API.
///
/// Not thread-safe by itself (opened `SQLITE_OPEN_NOMUTEX`): its owner serialises every
/// use (``IndexStore`` keeps it in a `Mutex`). Statements the index runs for every file
/// are prepared once and kept; every other one is prepared, run and finalised in one call.
struct SQLiteConnection: ~Copyable {
  /// One column value, as the index uses them.
  enum Value {
    case integer(Int64)
    case blob([UInt8])
    case text(String)
    case null
  }

  private let handle: OpaquePointer
  /// The statements prepared once, by their SQL.
  private var cached: [String: OpaquePointer] = [:]

  /// Opens (or creates) the database at `path`, waiting up to `busyTimeoutMilliseconds`
  /// for another connection's lock on every later call.
  ///
  /// The corresponding C function is `sqlite3_open_v2`.
  ///
  /// Every connection is hardened against a crafted file (`CSQLite_harden`: defensive
  /// mode, `trusted_schema` off, triggers and views disabled).
  ///
  /// - Parameter immutable: Whether to read the main file alone, as it is: read-only,
  ///   without locks, without its `-wal` or `-journal`, and without creating any file
  ///   (SQLite's `immutable=1`), to look at a file before deciding to use it.
  init(path: String, busyTimeoutMilliseconds: Int32, immutable: Bool = false)
    throws(SQLiteError)
  {
    // SQLite is opened with dlopen on first use (`CDeferredLibraries`).
    if let failure = CDeferredLibraries_sqlite() {
      throw SQLiteError(code: SQLITE_CANTOPEN, message: String(cString: failure))
    }
    var opened: OpaquePointer?
    // NOFOLLOW: an index path that is a symbolic link (which could lead into the library)
    // is refused.
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
    var name = path
    if immutable {
      flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
      name = "file:" + Self.uriPath(path) + "?mode=ro&immutable=1"
    } else {
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
    }
    let result = sqlite3_open_v2(name, &opened, flags, nil)
    guard result == SQLITE_OK, let opened else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(opened)
      throw SQLiteError(code: result & 0xFF, message: "sqlite3_open_v2: \(message)")
    }
    let hardened = CSQLite_harden(opened)
    guard hardened == SQLITE_OK else {
      sqlite3_close_v2(opened)
      throw SQLiteError(code: hardened & 0xFF, message: "sqlite3_db_config: \(hardened)")
    }
    handle = opened
    sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    sqlite3_extended_result_codes(handle, 0)
  }

  /// `path` for a `file:` URI: `%`, `?`, `#` (which would end the path) and every byte
  /// that is not ASCII percent-encoded; SQLite decodes them back to the same bytes.
  private static func uriPath(_ path: String) -> String {
    let digits = Array("0123456789ABCDEF".unicodeScalars)
    var result = ""
    for byte in path.utf8 {
      if byte >= 0x80 || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?")
        || byte == UInt8(ascii: "#")
      {
        result += "%"
        result.unicodeScalars.append(digits[Int(byte >> 4)])
        result.unicodeScalars.append(digits[Int(byte & 0x0F)])
      } else {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return result
  }

  deinit {
    for statement in cached.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// Runs one or more statements that return no rows.
  ///
  /// The corresponding C function is `sqlite3_exec`.
  func execute(_ sql: String) throws(SQLiteError) {
    let result = sqlite3_exec(handle, sql, nil, nil, nil)
    guard result == SQLITE_OK else { throw error(result, call: "sqlite3_exec") }
  }

  /// Runs `body` in one write transaction (`BEGIN IMMEDIATE` … `COMMIT`), rolled back when
  /// `body` or the commit throws.
  ///
  /// - Returns: What `body` returns.
  mutating func transaction<Result>(
    _ body: (inout SQLiteConnection) throws(SQLiteError) -> Result
  ) throws(SQLiteError) -> Result {
    try execute("BEGIN IMMEDIATE")
    do throws(SQLiteError) {
      let result = try body(&self)
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// Runs one statement with `arguments` bound to `?1`, `?2`, … and calls `row` with each
  /// row's columns.
  ///
  /// - Parameter keepsPrepared: Whether the statement is kept for the next call (for those
  ///   run once per file).
  mutating func query(
    _ sql: String, _ arguments: [Value] = [], keepsPrepared: Bool = false,
    row: ([Value]) -> Void = { _ in }
  ) throws(SQLiteError) {
    let statement: OpaquePointer
    if let kept = cached[sql] {
      statement = kept
    } else {
      var prepared: OpaquePointer?
      let result = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
      guard result == SQLITE_OK, let prepared else {
        sqlite3_finalize(prepared)
        throw error(result, call: "sqlite3_prepare_v2")
      }
      statement = prepared
      if keepsPrepared { cached[sql] = prepared }
    }
    defer {
      if keepsPrepared {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
      } else {
        sqlite3_finalize(statement)
      }
    }
    for (offset, argument) in arguments.enumerated() {
      let index = Int32(offset + 1)
      let result: Int32
      switch argument {
      case .integer(let value): result = sqlite3_bind_int64(statement, index, value)
      case .null: result = sqlite3_bind_null(statement, index)
      case .blob(let bytes):
        result = bytes.withUnsafeBytes { buffer in
          // A zero-length blob still binds a blob (not NULL): SQLite takes any non-null pointer.
          CSQLite_bind_blob_transient(
            statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
            Int32(buffer.count))
        }
      case .text(let text):
        var text = text
        result = text.withUTF8 { buffer in
          buffer.withMemoryRebound(to: CChar.self) { characters in
            CSQLite_bind_text_transient(
              statement, index, characters.baseAddress, Int32(characters.count))
          }
        }
      }
      guard result == SQLITE_OK else { throw error(result, call: "sqlite3_bind") }
    }
    while true {
      let result = sqlite3_step(statement)
      if result == SQLITE_DONE { return }
      guard result == SQLITE_ROW else { throw error(result, call: "sqlite3_step") }
      let count = sqlite3_column_count(statement)
      var columns: [Value] = []
      columns.reserveCapacity(Int(count))
      for column in 0..<count {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: columns.append(.integer(sqlite3_column_int64(statement, column)))
        case SQLITE_NULL: columns.append(.null)
        case SQLITE_TEXT:
          let bytes = sqlite3_column_text(statement, column)
          let length = Int(sqlite3_column_bytes(statement, column))
          let text = bytes.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
          }
          columns.append(.text(text ?? ""))
        default:
          let bytes = sqlite3_column_blob(statement, column)
          let length = Int(sqlite3_column_bytes(statement, column))
          guard let bytes, length > 0 else {
            columns.append(.blob([]))
            continue
          }
          columns.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: length))))
        }
      }
      row(columns)
    }
  }

  /// One row of ``scan(_:row:)``: its columns read in place, without copying the row.
  /// Not copyable, and only lent to the caller's closure, so it cannot outlive its step.
  struct Row: ~Copyable {
    fileprivate let statement: OpaquePointer

    /// Column `column` as an integer (`nil` when it holds another type).
    func integer(_ column: Int32) -> Int64? {
      guard sqlite3_column_type(statement, column) == SQLITE_INTEGER else { return nil }
      return sqlite3_column_int64(statement, column)
    }

    /// Calls `body` with the bytes of blob column `column` (empty for an empty blob); `nil`
    /// when the column holds another type. The bytes are valid only inside `body`.
    func withBlob<Result>(
      _ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
      guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { return nil }
      let bytes = sqlite3_column_blob(statement, column)
      let length = Int(sqlite3_column_bytes(statement, column))
      guard let bytes, length > 0 else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
      return body(UnsafeRawBufferPointer(start: bytes, count: length))
    }
  }

  /// Runs one statement without arguments and calls `row` with each row, whose columns
  /// are read in place: for reading a whole table without a value per column.
  func scan(_ sql: String, row: (borrowing Row) -> Void) throws(SQLiteError) {
    var prepared: OpaquePointer?
    let result = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
    guard result == SQLITE_OK, let statement = prepared else {
      sqlite3_finalize(prepared)
      throw error(result, call: "sqlite3_prepare_v2")
    }
    defer { sqlite3_finalize(statement) }
    while true {
      let result = sqlite3_step(statement)
      if result == SQLITE_DONE { return }
      guard result == SQLITE_ROW else { throw error(result, call: "sqlite3_step") }
      row(Row(statement: statement))
    }
  }

  private func error(_ result: Int32, call: String) -> SQLiteError {
    SQLiteError(code: result & 0xFF, message: "\(call): \(String(cString: sqlite3_errmsg(handle)))")
  }
}
