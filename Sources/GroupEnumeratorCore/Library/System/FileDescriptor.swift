internal import CSystemShim
import FoundationEssentials

#if canImport(Glibc)
  internal import Glibc
#endif

/// An open file descriptor, and the system calls made on one.
///
/// This folder (`Library/System/`) is the only place the library calls the operating
/// system (`Scripts/check-layers.py` checks it); everything else speaks these Swift types.
/// Every open is read-only, except ``createNew(_:permissions:)``, which only makes a new
/// file (the picture cache's, never one of the library). Calls interrupted by a signal
/// (`EINTR`) are retried, and none takes one of the last descriptors the process may open
/// (``DescriptorReserve``). The value does not own the descriptor: whoever opened it calls ``close()``.
struct FileDescriptor: Sendable, Hashable {
  /// The raw descriptor.
  let rawValue: Int32

  /// Wraps a raw descriptor.
  init(rawValue: Int32) { self.rawValue = rawValue }

  /// How to open: always read-only, plus these flags.
  struct OpenOptions: OptionSet, Sendable, Hashable {
    let rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_DIRECTORY`: fail unless it is a folder.
    static let directory = OpenOptions(rawValue: O_DIRECTORY)
    /// `O_NOFOLLOW`: fail with `ELOOP` on a final symbolic link.
    static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
    /// `O_NONBLOCK`: never wait on a FIFO or a device.
    static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    /// `O_CLOEXEC`: not inherited by child processes.
    static let closeOnExec = OpenOptions(rawValue: O_CLOEXEC)
    /// `O_NOCTTY`: never become the controlling terminal.
    static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
    /// `O_PATH`: a descriptor that only locates the file (needs no read permission).
    static let pathOnly = OpenOptions(rawValue: CSystemShim_pathOnlyFlag())

    /// The `flags` argument of `open`.
    var flags: Int32 { O_RDONLY | rawValue }
  }

  /// Opens `path` (relative to the working directory when not absolute).
  ///
  /// The corresponding C function is `open`.
  static func open(_ path: String, options: OpenOptions) throws(SystemCallError) -> FileDescriptor {
    while true {
      let descriptor = DescriptorReserve.admit(Glibc.open(path, options.flags))
      if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "open", errno: code) }
    }
  }

  /// Creates the new file `path` and opens it for writing, with the permission bits
  /// `permissions` (less the umask). Nothing that exists is opened: the call fails with
  /// `EEXIST` when something has the name already, and with `ELOOP` or `EEXIST` for a
  /// symbolic link (`O_EXCL | O_NOFOLLOW`). The descriptor is close-on-exec.
  ///
  /// The corresponding C function is `open` with `O_WRONLY | O_CREAT | O_EXCL`.
  static func createNew(_ path: String, permissions: UInt32) throws(SystemCallError)
    -> FileDescriptor
  {
    let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
    while true {
      let descriptor = DescriptorReserve.admit(Glibc.open(path, flags, mode_t(permissions)))
      if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "open", errno: code) }
    }
  }

  /// Opens the entry `name` of this folder (a single component, or a relative path).
  ///
  /// The corresponding C function is `openat`.
  func open(at name: [UInt8], options: OpenOptions) throws(SystemCallError) -> FileDescriptor {
    let cName = name.map { CChar(bitPattern: $0) } + [0]
    while true {
      let descriptor = DescriptorReserve.admit(openat(rawValue, cName, options.flags))
      if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "openat", errno: code) }
    }
  }

  /// Opens `path` beneath this folder without following any symbolic link and without
  /// leaving the folder (`RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`): a link on the way fails
  /// with `ELOOP`, a `..` that leaves with `EXDEV`.
  ///
  /// The corresponding C function is `openat2` (Linux 5.6+), through `CSystemShim`.
  ///
  /// - Returns: `nil` when the kernel has no `openat2` (the caller falls back).
  func openBeneath(_ path: [UInt8], options: OpenOptions) throws(SystemCallError)
    -> FileDescriptor?
  {
    guard FileDescriptor.isOpenBeneathAvailable else { return nil }
    return try FileDescriptor.openat2(
      rawValue, path, options, resolve: CSystemShim_resolveBeneathWithoutSymlinks())
  }

  /// Whether the running kernel has `openat2`: probed once by opening `/`.
  static let isOpenBeneathAvailable: Bool = {
    do throws(SystemCallError) {
      let root = try openat2(AT_FDCWD, Array("/".utf8), [.directory, .closeOnExec], resolve: 0)
      root.close()
      return true
    } catch {
      return error.errno != .noFunction && error.errno != .notPermitted
    }
  }()

  private static func openat2(
    _ directory: Int32, _ path: [UInt8], _ options: OpenOptions, resolve: UInt64
  ) throws(SystemCallError) -> FileDescriptor {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    let flags = UInt64(UInt32(bitPattern: options.flags))
    while true {
      let descriptor = DescriptorReserve.admit(
        CSystemShim_openat2(directory, cPath, flags, resolve))
      if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "openat2", errno: code) }
    }
  }

  /// The status of the open file.
  ///
  /// The corresponding C function is `fstat`.
  func status() throws(SystemCallError) -> FileStatus {
    FileStatus(try statusRecord())
  }

  /// The open file's `struct stat` as the C library fills it in, for code that still reads
  /// its fields (``FileStatus`` is the Swift form).
  ///
  /// The corresponding C function is `fstat`.
  func statusRecord() throws(SystemCallError) -> stat {
    var status = stat()
    guard fstat(rawValue, &status) == 0 else {
      throw SystemCallError(function: "fstat", errno: .current)
    }
    return status
  }

  /// The status of the entry `name` of this folder; a symbolic link is described, not
  /// followed.
  ///
  /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
  func status(ofEntry name: [UInt8]) throws(SystemCallError) -> FileStatus {
    FileStatus(try statusRecord(ofEntry: name))
  }

  /// The `struct stat` of the entry `name` of this folder (a name, or a relative path), as
  /// the C library fills it in; a symbolic link is described, not followed. The name is
  /// made a C string on the stack (a second run with the index calls this once per file).
  /// A name holding a NUL byte is refused with `ENOENT`: C would end it there and describe
  /// another file.
  ///
  /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
  func statusRecord(ofEntry name: [UInt8]) throws(SystemCallError) -> stat {
    try name.withUnsafeBufferPointer { bytes throws(SystemCallError) in
      try statusRecord(ofEntry: bytes)
    }
  }

  /// ``statusRecord(ofEntry:)`` of a name given in place (a part of a longer path's
  /// bytes, without copying it out first).
  ///
  /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
  func statusRecord(ofEntry name: UnsafeBufferPointer<UInt8>) throws(SystemCallError) -> stat {
    var status = stat()
    let result = withUnsafeTemporaryAllocation(of: CChar.self, capacity: name.count + 1) {
      cName -> Int32 in
      guard let base = cName.baseAddress else { return -1 }
      for index in name.indices {
        // C would end the name at a NUL and describe another file.
        guard name[index] != 0 else { return -2 }
        cName[index] = CChar(bitPattern: name[index])
      }
      cName[name.count] = 0
      return fstatat(rawValue, base, &status, AT_SYMLINK_NOFOLLOW)
    }
    if result == -2 {
      throw SystemCallError(function: "fstatat", errno: .noSuchFileOrDirectory)
    }
    guard result == 0 else { throw SystemCallError(function: "fstatat", errno: .current) }
    return status
  }

  /// Gives the entry `name` of this folder a second name, `newName` in `folder` (a hard
  /// link: the same file, no bytes copied). A symbolic link is linked itself, not
  /// followed; nothing that exists is replaced (`EEXIST`). Used for the picture cache's
  /// entries only, never to name a file of the library.
  ///
  /// The corresponding C function is `linkat` (no `AT_SYMLINK_FOLLOW`).
  func link(entry name: String, to folder: FileDescriptor, as newName: String)
    throws(SystemCallError)
  {
    guard linkat(rawValue, name, folder.rawValue, newName, 0) == 0 else {
      throw SystemCallError(function: "linkat", errno: .current)
    }
  }

  /// Removes the entry `name` of this folder (not a folder).
  ///
  /// The corresponding C function is `unlinkat`.
  func removeEntry(_ name: String) throws(SystemCallError) {
    guard unlinkat(rawValue, name, 0) == 0 else {
      throw SystemCallError(function: "unlinkat", errno: .current)
    }
  }

  /// Reads up to `buffer.count` bytes at `offset` without moving the file offset.
  ///
  /// The corresponding C function is `pread`.
  ///
  /// - Returns: How many bytes were read; 0 at the end of the file.
  func read(into buffer: UnsafeMutableRawBufferPointer, atAbsoluteOffset offset: Int)
    throws(SystemCallError) -> Int
  {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
    while true {
      let got = pread(rawValue, base, buffer.count, off_t(offset))
      if got >= 0 { return got }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "pread", errno: code) }
    }
  }

  /// Reads up to `buffer.count` bytes at the file offset, moving it (for a descriptor that
  /// has no offset to read at, such as inotify's).
  ///
  /// The corresponding C function is `read`.
  ///
  /// - Returns: How many bytes were read; 0 at the end of the file.
  /// - Throws: `EAGAIN` when a non-blocking descriptor has nothing to read now.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
    while true {
      let got = Glibc.read(rawValue, base, buffer.count)
      if got >= 0 { return got }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "read", errno: code) }
    }
  }

  /// Writes all of `bytes` at the file offset, as many writes as it takes (a short write
  /// goes on with the rest).
  ///
  /// The corresponding C function is `write`.
  ///
  /// - Throws: The `errno` of a failed write; `ENOSPC` when a write makes no progress
  ///   (writes 0 bytes), as a full disk would.
  func writeAll(_ bytes: [UInt8]) throws(SystemCallError) {
    var written = 0
    while written < bytes.count {
      let wrote = bytes.withUnsafeBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.write(rawValue, base + written, buffer.count - written)
      }
      if wrote > 0 {
        written += wrote
        continue
      }
      guard wrote < 0 else { throw SystemCallError(function: "write", errno: .noSpace) }
      let code = Errno.current
      if code != .interrupted { throw SystemCallError(function: "write", errno: code) }
    }
  }

  /// Sets the open file's permission bits to `permissions`, whatever the umask left.
  ///
  /// The corresponding C function is `fchmod`.
  func setPermissions(_ permissions: UInt32) throws(SystemCallError) {
    guard fchmod(rawValue, mode_t(permissions)) == 0 else {
      throw SystemCallError(function: "fchmod", errno: .current)
    }
  }

  /// Waits at most `milliseconds` (0: not at all) until there is something to read.
  /// A wait interrupted by a signal, or one that fails, answers `false`, as a wait that
  /// timed out does: the caller waits again.
  ///
  /// The corresponding C function is `poll`.
  func waitUntilReadable(milliseconds: Int32) -> Bool {
    var request = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
    return poll(&request, 1, max(0, milliseconds)) > 0
  }

  /// Tells the kernel that `length` bytes from `offset` will be read soon, so that it
  /// starts reading them from the disk now and returns without waiting for them. Advice
  /// changes no result, so a failure is ignored.
  ///
  /// The corresponding C function is `posix_fadvise` with `POSIX_FADV_WILLNEED`.
  func adviseWillNeed(offset: Int, length: Int) {
    _ = posix_fadvise(rawValue, off_t(offset), off_t(length), Int32(POSIX_FADV_WILLNEED))
  }

  /// Closes the descriptor; a failure (only possible for a descriptor that was not
  /// open) is ignored.
  ///
  /// The corresponding C function is `close`.
  func close() {
    _ = Glibc.close(rawValue)
  }
}

/// What `fstat` says about a file, in Swift terms.
struct FileStatus: Sendable, Hashable {
  /// What kind of file it is.
  enum Kind: Sendable, Hashable {
    case regular, directory, symbolicLink, fifo, socket, characterDevice, blockDevice, unknown

    /// Words for messages: `a folder`, `a FIFO`, … (`regular file` for a regular one).
    var description: String {
      switch self {
      case .regular: "a regular file"
      case .directory: "a folder"
      case .fifo: "a FIFO"
      case .socket: "a socket"
      case .characterDevice: "a character device"
      case .blockDevice: "a block device"
      case .symbolicLink: "a symbolic link"
      case .unknown: "of an unknown kind"
      }
    }
  }

  /// What kind of file it is.
  let kind: Kind
  /// The size in bytes (0 when the system reports a negative one).
  let size: Int64
  /// The last modification time.
  let modificationDate: Date
  /// The device and inode: equal for two names of the same file.
  let identity: FileIdentity
  /// How many names the file has (0 once a folder or file was deleted while open).
  let linkCount: UInt64

  init(_ status: stat) {
    switch status.st_mode & S_IFMT {
    case S_IFREG: kind = .regular
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .symbolicLink
    case S_IFIFO: kind = .fifo
    case S_IFSOCK: kind = .socket
    case S_IFCHR: kind = .characterDevice
    case S_IFBLK: kind = .blockDevice
    default: kind = .unknown
    }
    size = max(0, Int64(status.st_size))
    modificationDate = Date(
      timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec)
        / 1_000_000_000)
    identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    linkCount = UInt64(status.st_nlink)
  }
}

/// A file's device and inode numbers, which tell two names of one file apart from two files.
struct FileIdentity: Sendable, Hashable {
  let device: UInt64
  let inode: UInt64
}
