#if canImport(Glibc)
  internal import Glibc
#endif

/// An `errno` value, with names for the ones the library acts on.
struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
  /// The raw value.
  let rawValue: Int32

  /// Wraps a raw `errno` value.
  init(rawValue: Int32) { self.rawValue = rawValue }

  /// The calling thread's `errno`, read right after a failed call.
  static var current: Errno { Errno(rawValue: errno) }

  /// `ENOENT`.
  static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
  /// `ENOTDIR`.
  static let notDirectory = Errno(rawValue: ENOTDIR)
  /// `ELOOP`: what `O_NOFOLLOW` and `RESOLVE_NO_SYMLINKS` answer for a symbolic link.
  static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
  /// `ENXIO`.
  static let noSuchAddressOrDevice = Errno(rawValue: ENXIO)
  /// `ENODEV`.
  static let noSuchDevice = Errno(rawValue: ENODEV)
  /// `EXDEV`: what `RESOLVE_BENEATH` answers for a path that leaves the folder.
  static let improperLink = Errno(rawValue: EXDEV)
  /// `ENAMETOOLONG`.
  static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
  /// `EACCES`.
  static let permissionDenied = Errno(rawValue: EACCES)
  /// `EPERM`.
  static let notPermitted = Errno(rawValue: EPERM)
  /// `EINTR`.
  static let interrupted = Errno(rawValue: EINTR)
  /// `ENOSYS`.
  static let noFunction = Errno(rawValue: ENOSYS)
  /// `EEXIST`.
  static let fileExists = Errno(rawValue: EEXIST)
  /// `ENOSPC`: for inotify, the user's `max_user_watches` reached.
  static let noSpace = Errno(rawValue: ENOSPC)
  /// `ENOMEM`.
  static let outOfMemory = Errno(rawValue: ENOMEM)

  /// The C library's text for the value (`No such file or directory`).
  ///
  /// The corresponding C function is `strerror`.
  var text: String {
    strerror(rawValue).map { String(cString: $0) } ?? "error \(rawValue)"
  }

  /// `errno 2: No such file or directory`: the number, then the C library's text.
  var description: String { "errno \(rawValue): \(text)" }
}

/// A failed system call: which C function failed, and its `errno`.
struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The C function's name (`openat`, `fstat`, `readdir`, …).
  let function: String
  /// Why it failed.
  let errno: Errno

  /// `openat failed (errno 2: No such file or directory)`.
  var description: String { "\(function) failed (\(errno))" }
}
