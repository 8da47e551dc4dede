import Foundation

#if canImport(Glibc)
  internal import Glibc
#endif

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
  /// The open descriptor, valid only during ``withOpened(rootDescriptor:path:_:)``'s body.
  private let descriptor: Int32
  /// The file's modification time when it was opened.
  let modificationDate: Date
  /// The path for messages.
  private let displayPath: LibraryPath

  private init(descriptor: Int32, status: stat, displayPath: LibraryPath) {
    self.descriptor = descriptor
    self.count = max(0, Int(status.st_size))
    self.modificationDate = LibraryFile.modificationDate(of: status)
    self.displayPath = displayPath
  }

  /// The modification time a status records.
  static func modificationDate(of status: stat) -> Date {
    Date(
      timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec)
        / 1_000_000_000)
  }

  /// Opens `path` beneath the open root folder `rootDescriptor`, runs `body`, and closes
  /// the file on every path.
  ///
  /// No component of `path` may be a symbolic link, `.` or `..`: the file is always
  /// inside the folder `rootDescriptor` refers to.
  ///
  /// - Parameters:
  ///   - rootDescriptor: An open descriptor of the library's root folder.
  ///   - path: The file's path relative to that folder.
  ///   - body: Reads from the file; the file must not escape the call.
  /// - Returns: What `body` returns.
  /// - Throws: An ``AssetProblem`` when the file cannot be opened or is not a regular
  ///   file, or whatever `body` throws.
  static func withOpened<Result>(
    rootDescriptor: Int32, path: LibraryPath,
    _ body: (LibraryFile) throws(AssetProblem) -> Result
  ) throws(AssetProblem) -> Result {
    try withOpened(
      directoryDescriptor: rootDescriptor, relativePath: path.bytes,
      displayPath: path, body)
  }

  /// Opens `relativePath` beneath the open folder `directoryDescriptor`, runs `body`, and
  /// closes the file on every path.
  ///
  /// - Parameters:
  ///   - directoryDescriptor: An open descriptor of a folder of the library.
  ///   - relativePath: The file's path relative to that folder, components separated by `/`.
  ///   - displayPath: The path to name in messages (relative to the library root).
  ///   - body: Reads from the file; the file must not escape the call.
  /// - Returns: What `body` returns.
  /// - Throws: An ``AssetProblem`` when the file cannot be opened or is not a regular
  ///   file, or whatever `body` throws.
  static func withOpened<Result>(
    directoryDescriptor: Int32, relativePath: [UInt8], displayPath: LibraryPath,
    _ body: (LibraryFile) throws(AssetProblem) -> Result
  ) throws(AssetProblem) -> Result {
    let descriptor = try BeneathOpener.openFile(
      in: directoryDescriptor, relativePath: relativePath, displayPath: displayPath)
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      throw AssetProblem(
        .unreadable, "Cannot read '\(displayPath)': fstat failed (\(SystemError.describe(code))).")
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw AssetProblem(
        .notRegularFile,
        "'\(displayPath)' is not a regular file (it is \(fileKind(of: status.st_mode))).")
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
  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    let wanted = min(length, count - offset)
    var failure: Int32 = 0
    let result = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
      initialized = 0
      guard let base = buffer.baseAddress else { return }
      while initialized < wanted {
        let got = pread(
          descriptor, base + initialized, wanted - initialized, off_t(offset + initialized))
        if got > 0 {
          initialized += got
        } else if got == 0 {
          return  // The file shrank: a short read, not an error.
        } else if errno != EINTR {
          failure = errno
          return
        }
      }
    }
    if failure != 0 {
      throw AssetProblem(
        .unreadable,
        "Cannot read '\(displayPath)' at byte \(offset): \(SystemError.describe(failure)).")
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
    guard offset >= 0, offset < count, let base = buffer.baseAddress else { return 0 }
    let wanted = min(buffer.count, count - offset)
    var done = 0
    while done < wanted {
      let got = pread(descriptor, base + done, wanted - done, off_t(offset + done))
      if got > 0 {
        done += got
      } else if got == 0 {
        break  // The file shrank: a short read, not an error.
      } else if errno != EINTR {
        let code = errno
        throw AssetProblem(
          .unreadable,
          "Cannot read '\(displayPath)' at byte \(offset + done): \(SystemError.describe(code)).")
      }
    }
    return done
  }

  /// Words for what kind of file a mode describes, for messages.
  static func fileKind(of mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "a folder"
    case S_IFIFO: "a FIFO"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFLNK: "a symbolic link"
    default: "of an unknown kind"
    }
  }
}

/// Opens paths beneath a folder descriptor without ever following a symbolic link or
/// leaving the folder: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel
/// has it, otherwise one `openat(…, O_NOFOLLOW)` per component.
enum BeneathOpener {
  /// Flags for a file: never blocks on a FIFO, never follows a final symbolic link,
  /// never becomes a controlling terminal.
  static let fileFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
  /// Flags for an intermediate folder.
  static let folderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

  /// Opens the file at `relativePath` beneath `directory`.
  ///
  /// - Returns: A descriptor the caller must close.
  /// - Throws: An ``AssetProblem`` saying why the file could not be opened.
  /// - Parameter flags: The `open` flags for the file itself (``fileFlags`` to read it).
  static func openFile(
    in directory: Int32, relativePath: [UInt8], displayPath: LibraryPath, flags: Int32 = fileFlags
  ) throws(AssetProblem) -> Int32 {
    guard isInside(relativePath) else {
      throw AssetProblem(.unreadable, "'\(displayPath)' is not the path of a file in the library.")
    }
    if let result = Openat2.open(in: directory, path: relativePath, flags: flags) {
      switch result {
      case .success(let descriptor): return descriptor
      // A path of PATH_MAX bytes or more, which the walk lists through per-folder
      // descriptors: open it the same way, one component at a time.
      case .failure(let failure) where failure.code == ENAMETOOLONG: break
      case .failure(let failure): throw problem(errno: failure.code, displayPath: displayPath)
      }
    }
    // The kernel has no openat2, or the path is too long for it: walk the components.
    return try openFileByComponents(
      in: directory, relativePath: relativePath, displayPath: displayPath, flags: flags)
  }

  /// `O_PATH` (octal 010000000 on every Linux architecture but alpha, parisc and sparc),
  /// which Glibc only declares under `_GNU_SOURCE`: a descriptor that only locates a file.
  static let pathOnlyFlag: Int32 = 0o10_000_000

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
  /// ``openFile(in:relativePath:displayPath:flags:)``; `nil` when there is none.
  static func status(in directory: Int32, relativePath: [UInt8]) -> stat? {
    guard
      let descriptor = try? openFile(
        in: directory, relativePath: relativePath, displayPath: LibraryPath(bytes: relativePath),
        flags: pathOnlyFlag | O_NOFOLLOW | O_CLOEXEC)
    else { return nil }
    defer { _ = close(descriptor) }
    var status = stat()
    return fstat(descriptor, &status) == 0 ? status : nil
  }

  /// Opens the file at `relativePath` beneath `directory` one component at a time, each
  /// with `O_NOFOLLOW`, so no symbolic link is followed: the fallback for kernels
  /// without `openat2`.
  ///
  /// - Returns: A descriptor the caller must close.
  /// - Throws: An ``AssetProblem`` saying why the file could not be opened.
  static func openFileByComponents(
    in directory: Int32, relativePath: [UInt8], displayPath: LibraryPath, flags: Int32 = fileFlags
  ) throws(AssetProblem) -> Int32 {
    let components = relativePath.split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    var current = directory
    defer { if current != directory { _ = close(current) } }
    for (index, component) in components.enumerated() {
      guard !component.elementsEqual([0x2E]), !component.elementsEqual([0x2E, 0x2E]) else {
        break
      }
      let isLast = index == components.count - 1
      let next = openRetryingInterrupts(
        current, Array(component), isLast ? flags : folderFlags)
      guard next >= 0 else { throw problem(errno: errno, displayPath: displayPath) }
      if isLast { return next }
      if current != directory { _ = close(current) }
      current = next
    }
    throw AssetProblem(.unreadable, "'\(displayPath)' is not the path of a file in the library.")
  }

  /// `openat`, retried when a signal interrupts it.
  static func openRetryingInterrupts(_ directory: Int32, _ name: [UInt8], _ flags: Int32) -> Int32 {
    let cName = name.map { CChar(bitPattern: $0) } + [0]
    while true {
      let descriptor = openat(directory, cName, flags)
      if descriptor >= 0 || errno != EINTR { return descriptor }
    }
  }

  /// The problem an `errno` from opening a file stands for.
  static func problem(errno code: Int32, displayPath: LibraryPath) -> AssetProblem {
    switch code {
    case ENOENT:
      AssetProblem(.vanished, "'\(displayPath)' disappeared before it could be read.")
    case ELOOP:
      AssetProblem(
        .notRegularFile, "'\(displayPath)' is a symbolic link, and links are not followed.")
    case ENXIO, ENODEV:
      AssetProblem(.notRegularFile, "'\(displayPath)' is not a regular file.")
    case EXDEV:
      AssetProblem(.unreadable, "'\(displayPath)' leads outside the library; it was not opened.")
    default:
      AssetProblem(.unreadable, "Cannot open '\(displayPath)': \(SystemError.describe(code)).")
    }
  }
}

/// The `openat2` system call (Linux 5.6+), which Glibc does not wrap.
///
/// Swift cannot call C's variadic `syscall(2)` directly, and this package has no C shim
/// for it, so `syscall` is looked up once with `dlsym` and called through a fixed-arity
/// C function type. That is sound here: glibc's `syscall` on x86-64 and arm64 is an
/// assembly trampoline that only moves argument registers into place; it reads no
/// variadic state.
enum Openat2 {
  /// `SYS_openat2`: the same number on every architecture since Linux 5.1's unified table.
  private static let systemCallNumber = 437
  /// `RESOLVE_NO_SYMLINKS` from `<linux/openat2.h>`.
  private static let resolveNoSymlinks: UInt64 = 0x04
  /// `RESOLVE_BENEATH` from `<linux/openat2.h>`.
  private static let resolveBeneath: UInt64 = 0x08

  private typealias SystemCall =
    @convention(c) (Int, Int, UnsafeRawPointer, UnsafeRawPointer, Int) -> Int

  /// The address of glibc's `syscall`, or 0 when it cannot be found; stored as an
  /// integer so that it is `Sendable`.
  private static let systemCallAddress: Int = {
    #if arch(x86_64) || arch(arm64)
      guard let handle = dlopen(nil, RTLD_NOW) else { return 0 }
      defer { _ = dlclose(handle) }
      return dlsym(handle, "syscall").map { Int(bitPattern: $0) } ?? 0
    #else
      return 0
    #endif
  }()

  /// Whether the running kernel has `openat2`: probed once by opening `/`.
  static let isAvailable: Bool = {
    guard let result = call(AT_FDCWD, Array("/".utf8), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
    else { return false }
    if case .success(let descriptor) = result { _ = close(descriptor) }
    if case .failure(let failure) = result {
      return failure.code != ENOSYS && failure.code != EPERM
    }
    return true
  }()

  /// Opens `path` beneath `directory` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`.
  ///
  /// - Returns: `nil` when `openat2` is not available (the caller falls back),
  ///   else the descriptor or the `errno` value.
  static func open(in directory: Int32, path: [UInt8], flags: Int32) -> Result<Int32, Errno>? {
    guard isAvailable else { return nil }
    return call(directory, path, flags, resolveBeneath | resolveNoSymlinks)
  }

  private static func call(
    _ directory: Int32, _ path: [UInt8], _ flags: Int32, _ resolve: UInt64
  ) -> Result<Int32, Errno>? {
    guard let address = UnsafeRawPointer(bitPattern: systemCallAddress) else { return nil }
    let systemCall = unsafeBitCast(address, to: SystemCall.self)
    // struct open_how { __u64 flags; __u64 mode; __u64 resolve; }
    let how: [UInt64] = [UInt64(UInt32(bitPattern: flags)), 0, resolve]
    let cPath = path + [0]
    while true {
      let result = how.withUnsafeBytes { howBytes in
        cPath.withUnsafeBytes { pathBytes -> Int in
          guard let howBase = howBytes.baseAddress, let pathBase = pathBytes.baseAddress else {
            return -1
          }
          return systemCall(systemCallNumber, Int(directory), pathBase, howBase, howBytes.count)
        }
      }
      if result >= 0, let descriptor = Int32(exactly: result) { return .success(descriptor) }
      let code = errno
      if code != EINTR { return .failure(Errno(code)) }
    }
  }

  /// An `errno` value as an `Error`, for `Result`.
  struct Errno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
  }
}
