import FoundationEssentials

/// A regular file inside the library, opened read-only without following links and
/// without blocking, read with bounded `pread` calls.
///
/// The file is opened with `O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`, so a FIFO
/// never blocks and a symbolic link is never followed, then checked with `fstat`: only a
/// regular file is handed to the body. Nothing is ever mapped into memory, so a file
/// truncated by another process while we read it yields short reads, never `SIGBUS`.
final class LibraryFile: ByteSource {
  /// The file's size in bytes when it was opened; reads never go past it.
  let count: Int
  /// The open descriptor, valid only during ``withOpened(root:path:_:)``'s body. Read
  /// through ``bytes(at:length:)``; Rendering hands it to ffmpeg, which reads it with
  /// `pread` inside the body.
  let descriptor: FileDescriptor
  /// The file's modification time when it was opened.
  let modificationDate: Date
  /// The path for messages.
  private let displayPath: LibraryPath
  /// How many `pread` calls returned bytes or failed (not the one that found the end).
  private(set) var readCalls = 0
  /// How many bytes the `pread` calls returned.
  private(set) var bytesRead = 0
  /// How many `pread` calls of at most ``ReadTally/slowReadLimit`` bytes took longer than
  /// ``ReadTally/slowReadTime``: reads the page cache did not answer.
  private(set) var slowReadCalls = 0

  private init(descriptor: FileDescriptor, status: FileStatus, displayPath: LibraryPath) {
    self.descriptor = descriptor
    self.count = Int(clamping: status.size)
    self.modificationDate = status.modificationDate
    self.displayPath = displayPath
  }

  /// Opens `path` beneath the library's open root folder, runs `body`, and closes the
  /// file on every path.
  ///
  /// No component of `path` may be a symbolic link, `.` or `..`: the file is always
  /// inside the root folder. Holding `root` (not its descriptor) keeps the descriptor open
  /// while `body` runs.
  ///
  /// - Parameters:
  ///   - root: The library's open root folder.
  ///   - path: The file's path relative to that folder.
  ///   - body: Reads from the file; the file must not escape the call.
  /// - Returns: What `body` returns.
  /// - Throws: An ``AssetProblem`` when the file cannot be opened or is not a regular
  ///   file, or whatever `body` throws.
  static func withOpened<Result>(
    root: LibraryRoot, path: LibraryPath,
    _ body: (LibraryFile) throws(AssetProblem) -> Result
  ) throws(AssetProblem) -> Result {
    // `root` is alive for the whole call (the caller holds it), so its descriptor is too.
    try withOpened(directory: root.descriptor, relativePath: path.bytes, displayPath: path) {
      file throws(AssetProblem) in
      // Counted on every path, a body that throws too.
      defer {
        root.readTally.add(
          calls: file.readCalls, bytes: file.bytesRead, slowCalls: file.slowReadCalls)
      }
      return try body(file)
    }
  }

  /// Opens `relativePath` beneath the open folder `directory`, runs `body`, and closes the
  /// file on every path.
  ///
  /// - Parameters:
  ///   - directory: An open folder of the library.
  ///   - relativePath: The file's path relative to that folder, components separated by `/`.
  ///   - displayPath: The path to name in messages (relative to the library root).
  ///   - body: Reads from the file; the file must not escape the call.
  /// - Returns: What `body` returns.
  /// - Throws: An ``AssetProblem`` when the file cannot be opened or is not a regular
  ///   file, or whatever `body` throws.
  static func withOpened<Result>(
    directory: FileDescriptor, relativePath: [UInt8], displayPath: LibraryPath,
    _ body: (LibraryFile) throws(AssetProblem) -> Result
  ) throws(AssetProblem) -> Result {
    let descriptor = try BeneathOpener.openFile(
      in: directory, relativePath: relativePath, displayPath: displayPath)
    defer { descriptor.close() }
    let status: FileStatus
    do {
      status = try descriptor.status()
    } catch {
      throw AssetProblem(.unreadable, "Cannot read '\(displayPath)': \(error).")
    }
    guard status.kind == .regular else {
      throw AssetProblem(
        .notRegularFile,
        "'\(displayPath)' is not a regular file (it is \(status.kind.description)).")
    }
    let file = LibraryFile(descriptor: descriptor, status: status, displayPath: displayPath)
    return try body(file)
  }

  /// Reads up to `length` bytes starting at `offset`, never past the size the file had
  /// when it was opened.
  ///
  /// - Parameters:
  ///   - offset: Where to start; negative or past the end gives an empty result.
  ///   - length: How many bytes at most.
  /// - Returns: Fewer bytes than asked for at the end of the file (or when the file
  ///   shrank while being read); empty past it.
  /// - Throws: ``AssetProblem/Code/unreadable`` when the read fails.
  /// - Complexity: O(*n*) in the number of bytes returned.
  /// Whether `range` is empty: every other byte of the file takes a read.
  func holds(_ range: Range<Int>) -> Bool { range.clamped(to: 0..<count).isEmpty }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    let wanted = min(length, count - offset)
    var failure: Errno?
    let result = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
      do throws(PartialRead) {
        initialized = try fill(UnsafeMutableRawBufferPointer(buffer), at: offset)
      } catch {
        initialized = 0
        failure = error.errno
      }
    }
    if let failure {
      throw AssetProblem(.unreadable, "Cannot read '\(displayPath)' at byte \(offset): \(failure).")
    }
    return result
  }

  /// Reads up to `buffer.count` bytes starting at `offset` into `buffer`, never past the
  /// size the file had when it was opened.
  ///
  /// - Parameters:
  ///   - buffer: Where the bytes go, from its start.
  ///   - offset: Where to start; at or past the end gives 0.
  /// - Returns: How many bytes were written to `buffer`: fewer than its size at the end of
  ///   the file (or when the file shrank while being read).
  /// - Throws: ``AssetProblem/Code/unreadable`` when the read fails.
  /// - Complexity: O(*n*) in the number of bytes read.
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(AssetProblem)
    -> Int
  {
    guard offset >= 0, offset < count, buffer.baseAddress != nil else { return 0 }
    let wanted = min(buffer.count, count - offset)
    do {
      return try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), at: offset)
    } catch {
      throw AssetProblem(
        .unreadable,
        "Cannot read '\(displayPath)' at byte \(offset + error.done): \(error.failure.errno).")
    }
  }

  /// A read that failed after `done` bytes.
  private struct PartialRead: Error {
    var done: Int
    var failure: SystemCallError
    var errno: Errno { failure.errno }
  }

  /// Fills `buffer` from `offset` with as many `pread` calls as it takes, stopping early
  /// at the end of the file (the file shrank: a short read, not an error).
  ///
  /// - Returns: How many bytes were read.
  private func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(PartialRead)
    -> Int
  {
    var done = 0
    while done < buffer.count {
      let got: Int
      let start = ContinuousClock.now
      do {
        got = try descriptor.read(
          into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]),
          atAbsoluteOffset: offset + done)
        if buffer.count - done <= ReadTally.slowReadLimit,
          ContinuousClock.now - start > ReadTally.slowReadTime
        {
          slowReadCalls += 1
        }
      } catch {
        readCalls += 1
        throw PartialRead(done: done, failure: error)
      }
      if got == 0 { break }
      readCalls += 1
      bytesRead += got
      done += got
    }
    return done
  }
}

/// Opens paths beneath a folder without ever following a symbolic link or leaving the
/// folder: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel has it,
/// otherwise one `openat(…, O_NOFOLLOW)` per component.
enum BeneathOpener {
  /// Options for a file: never blocks on a FIFO, never follows a final symbolic link,
  /// never becomes a controlling terminal.
  static let fileOptions: FileDescriptor.OpenOptions = [
    .noFollow, .nonBlocking, .closeOnExec, .noControllingTerminal,
  ]
  /// Options for an intermediate folder.
  static let folderOptions: FileDescriptor.OpenOptions = [.directory, .noFollow, .closeOnExec]

  /// Opens the file at `relativePath` beneath `directory`.
  ///
  /// - Parameter options: How to open the file itself (``fileOptions`` to read it).
  /// - Returns: A descriptor the caller must close.
  /// - Throws: An ``AssetProblem`` saying why the file could not be opened.
  static func openFile(
    in directory: FileDescriptor, relativePath: [UInt8], displayPath: LibraryPath,
    options: FileDescriptor.OpenOptions = fileOptions
  ) throws(AssetProblem) -> FileDescriptor {
    guard isInside(relativePath) else {
      throw AssetProblem(.unreadable, "'\(displayPath)' is not the path of a file in the library.")
    }
    do {
      if let descriptor = try directory.openBeneath(relativePath, options: options) {
        return descriptor
      }
    } catch {
      // A path of PATH_MAX bytes or more, which the walk lists through per-folder
      // descriptors, is opened the same way, one component at a time.
      if error.errno != .fileNameTooLong {
        throw problem(errno: error.errno, displayPath: displayPath)
      }
    }
    // The kernel has no openat2, or the path is too long for it: walk the components.
    return try openFileByComponents(
      in: directory, relativePath: relativePath, displayPath: displayPath, options: options)
  }

  /// Whether `path` names something strictly inside the folder it is relative to: at
  /// least one component, none of them `.` or `..`, and no NUL byte.
  static func isInside(_ path: [UInt8]) -> Bool {
    var hasComponent = false
    var componentStart = 0
    for end in 0...path.count {
      if end < path.count {
        if path[end] == 0 { return false }
        if path[end] != UInt8(ascii: "/") { continue }
      }
      let length = end - componentStart
      if length == 1, path[componentStart] == 0x2E { return false }
      if length == 2, path[componentStart] == 0x2E, path[componentStart + 1] == 0x2E {
        return false
      }
      if length > 0 { hasComponent = true }
      componentStart = end + 1
    }
    return hasComponent
  }

  /// The status of the file at `relativePath` beneath `directory`, from an `O_PATH`
  /// descriptor (which needs no read permission), with the same guarantees as
  /// ``openFile(in:relativePath:displayPath:options:)``; `nil` when there is none.
  static func status(in directory: FileDescriptor, relativePath: [UInt8]) -> FileStatus? {
    guard
      let descriptor = try? openFile(
        in: directory, relativePath: relativePath, displayPath: LibraryPath(bytes: relativePath),
        options: [.pathOnly, .noFollow, .closeOnExec])
    else { return nil }
    defer { descriptor.close() }
    return try? descriptor.status()
  }

  /// Opens the file at `relativePath` beneath `directory` one component at a time, each
  /// with `O_NOFOLLOW`, so no symbolic link is followed: the fallback for kernels
  /// without `openat2`.
  ///
  /// - Returns: A descriptor the caller must close.
  /// - Throws: An ``AssetProblem`` saying why the file could not be opened.
  static func openFileByComponents(
    in directory: FileDescriptor, relativePath: [UInt8], displayPath: LibraryPath,
    options: FileDescriptor.OpenOptions = fileOptions
  ) throws(AssetProblem) -> FileDescriptor {
    let components = relativePath.split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    var current = directory
    defer { if current != directory { current.close() } }
    for (index, component) in components.enumerated() {
      guard !component.elementsEqual([0x2E]), !component.elementsEqual([0x2E, 0x2E]) else {
        break
      }
      let isLast = index == components.count - 1
      let next: FileDescriptor
      do {
        next = try current.open(at: Array(component), options: isLast ? options : folderOptions)
      } catch {
        throw problem(errno: error.errno, displayPath: displayPath)
      }
      if isLast { return next }
      if current != directory { current.close() }
      current = next
    }
    throw AssetProblem(.unreadable, "'\(displayPath)' is not the path of a file in the library.")
  }

  /// The problem an `errno` from opening a file stands for.
  static func problem(errno code: Errno, displayPath: LibraryPath) -> AssetProblem {
    switch code {
    case .noSuchFileOrDirectory:
      AssetProblem(.vanished, "'\(displayPath)' disappeared before it could be read.")
    case .tooManySymbolicLinkLevels:
      AssetProblem(
        .notRegularFile, "'\(displayPath)' is a symbolic link, and links are not followed.")
    case .noSuchAddressOrDevice, .noSuchDevice:
      AssetProblem(.notRegularFile, "'\(displayPath)' is not a regular file.")
    case .improperLink:
      AssetProblem(.unreadable, "'\(displayPath)' leads outside the library; it was not opened.")
    default:
      AssetProblem(.unreadable, "Cannot open '\(displayPath)': \(code).")
    }
  }
}
