import GroupEnumeratorCore

/// `Demo watch [LIBRARY]`: one NDJSON line per change of the library, written and
/// flushed as it comes, until Ctrl-C or until the library's root goes away.
enum WatchCommand {
  /// Watches the library and writes its changes.
  ///
  /// A line on standard error says when watching has begun (every folder watched, the
  /// library read once): changes from then on are printed. A `warning:` line on standard
  /// error says when some folder cannot be watched (the inotify watch limit reached).
  ///
  /// - Returns: ``DemoCommand/interrupted`` when the task was cancelled (Ctrl-C),
  ///   ``DemoCommand/success`` when standard output broke (the caller turns that into
  ///   141 or 74).
  /// - Throws: ``LibraryError`` when the library cannot be watched, or its root was
  ///   deleted or moved (``LibraryError/rootNotFound(path:)``, naming the path given).
  @MainActor static func run(
    _ location: LibraryLocation, stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream
  ) async throws(LibraryError) -> Int32 {
    do throws(LibraryError) {
      let changes = try await location.library.changes()
      stderr.write(
        OutputHygiene.message("Watching '\(location.displayPath)'. Press Ctrl-C to stop.") + "\n")
      for warning in await changes.warnings() {
        stderr.write("warning: " + OutputHygiene.message(warning) + "\n")
      }
      for try await change in changes {
        stdout.write(bytes: line(for: change))
        stdout.flush()
        if stdout.isBroken { return DemoCommand.success }
        for warning in await changes.warnings() {
          stderr.write("warning: " + OutputHygiene.message(warning) + "\n")
        }
      }
      return DemoCommand.interrupted
    } catch {
      // The library is read through /proc/self/fd/N: messages name the path given.
      let path = location.displayPath
      switch error {
      case .rootNotFound: throw .rootNotFound(path: path)
      case .rootNotADirectory: throw .rootNotADirectory(path: path)
      case .permissionDenied: throw .permissionDenied(path: path)
      case .unreadableRoot(_, let call, let errno):
        throw .unreadableRoot(path: path, call: call, errno: errno)
      case .cancelled: throw .cancelled
      }
    }
  }

  /// One compact JSON object on one line: `insertedAssets`, `updatedAssets` and
  /// `deletedAssets` (arrays of the objects `--format ndjson` prints per asset; a deleted
  /// asset with its files as last seen, its metadata `null`), then `insertedGroups`, `updatedGroups` and
  /// `deletedGroups` (the objects `Demo groups --format ndjson` prints).
  static func line(for change: LibraryChange) -> [UInt8] {
    var bytes = Array("{".utf8)
    func list(_ key: String, _ items: [[UInt8]], isFirst: Bool = false) {
      bytes += Array("\(isFirst ? "" : ",")\"\(key)\":[".utf8)
      for (index, item) in items.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        // Each item is one line: its object, then a newline, which is left out here.
        bytes += item.last == UInt8(ascii: "\n") ? item.dropLast() : item[...]
      }
      bytes.append(UInt8(ascii: "]"))
    }
    list("insertedAssets", change.insertedAssets.map(JSONFormatter.line(for:)), isFirst: true)
    list("updatedAssets", change.updatedAssets.map(JSONFormatter.line(for:)))
    list("deletedAssets", change.deletedAssets.map(JSONFormatter.line(for:)))
    list("insertedGroups", change.insertedGroups.map(JSONFormatter.line(for:)))
    list("updatedGroups", change.updatedGroups.map(JSONFormatter.line(for:)))
    list("deletedGroups", change.deletedGroups.map(JSONFormatter.line(for:)))
    bytes += Array("}\n".utf8)
    return bytes
  }
}
