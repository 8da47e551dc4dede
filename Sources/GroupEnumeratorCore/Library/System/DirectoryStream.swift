#if canImport(Glibc)
  internal import Glibc
#endif

/// An open folder listing: its entries one at a time, names as bytes.
///
/// The stream owns the descriptor it was made from; ``close()`` closes both.
struct DirectoryStream {
  private let stream: OpaquePointer

  /// Starts listing the open folder `descriptor`, which the stream then owns (when this
  /// throws, the caller still owns and must close it).
  ///
  /// The corresponding C function is `fdopendir`.
  init(_ descriptor: FileDescriptor) throws(SystemCallError) {
    guard let stream = fdopendir(descriptor.rawValue) else {
      throw SystemCallError(function: "fdopendir", errno: .current)
    }
    self.stream = stream
  }

  /// The folder's descriptor, for `*at` calls relative to it.
  ///
  /// The corresponding C function is `dirfd`.
  var descriptor: FileDescriptor { FileDescriptor(rawValue: dirfd(stream)) }

  /// The next entry (`.` and `..` included), or `nil` at the end.
  ///
  /// The corresponding C function is `readdir`.
  func next() throws(SystemCallError) -> DirectoryEntry? {
    errno = 0
    guard let entry = readdir(stream) else {
      let code = Errno.current
      if code.rawValue != 0 { throw SystemCallError(function: "readdir", errno: code) }
      return nil
    }
    let kind: DirectoryEntry.Kind =
      switch Int32(entry.pointee.d_type) {
      case Int32(DT_DIR): .directory
      case Int32(DT_REG): .regular
      default: .other
      }
    return DirectoryEntry(name: DirectoryStream.name(of: entry), kind: kind)
  }

  /// Closes the listing and its descriptor.
  ///
  /// The corresponding C function is `closedir`.
  func close() {
    _ = closedir(stream)
  }

  /// The name of an entry, as bytes.
  ///
  /// `d_name` is declared as 256 bytes, but glibc's `readdir` packs entries only as long
  /// as their names: copying the whole array (`entry.pointee.d_name`) reads past the
  /// entry, and past the heap buffer for the last one (AddressSanitizer reports it).
  static func name(of entry: UnsafePointer<dirent>) -> [UInt8] {
    guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
    let start = UnsafeRawPointer(entry) + offset
    let length = strlen(start.assumingMemoryBound(to: CChar.self))
    return Array(UnsafeRawBufferPointer(start: start, count: length))
  }
}

/// One entry of a folder listing.
struct DirectoryEntry: Sendable, Hashable {
  /// What `readdir`'s `d_type` says the entry is; `other` for everything else, and for
  /// file systems that do not say (`DT_UNKNOWN`).
  enum Kind: Sendable, Hashable {
    case directory, regular, other
  }

  /// The name, as bytes.
  let name: [UInt8]
  /// What the listing says it is.
  let kind: Kind
}
