/// A regular file inside the library, opened read-only without following links and
/// without blocking, read with bounded `pread` calls.
final class LibraryFile: ByteSource {
  let count: Int

  private init(count: Int) { self.count = count }

  /// Opens `path` beneath the open root folder `rootDescriptor`, runs `body`, and closes
  /// the file on every path.
  ///
  /// - Throws: An ``AssetProblem`` when the file cannot be opened or is not a regular
  ///   file, or whatever `body` throws.
  static func withOpened<Result>(
    rootDescriptor: Int32, path: LibraryPath,
    _ body: (LibraryFile) throws(AssetProblem) -> Result
  ) throws(AssetProblem) -> Result {
    throw AssetProblem(.unreadable, "Not implemented yet.")  // Placeholder.
  }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] { [] }
}
