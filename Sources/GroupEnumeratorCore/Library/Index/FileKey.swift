import FoundationEssentials
import Glibc

/// What identifies one version of a file for the index: when every field is unchanged,
/// the file is the one that was read, with the same content.
///
/// The change time (`ctime`) cannot be set by users, and any write, rename onto the name
/// or change of the inode moves it; the inode tells a replaced file from the old one even
/// when its size and modification time were copied over (`cp -p`, `rsync -t`).
struct FileKey: Sendable, Hashable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modificationSeconds: Int64
  var modificationNanoseconds: Int64
  var changeSeconds: Int64
  var changeNanoseconds: Int64

  /// The key of the regular file at `path` beneath `root`; `nil` when there is none (or it
  /// is not a regular file).
  ///
  /// One `fstatat` (without following a final symbolic link). It only decides whether a
  /// stored result is still the file's: it never reads content, and a result is only used
  /// when device, inode and change time all match the file that was read, beneath the
  /// root, when the result was stored.
  ///
  /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
  static func of(_ path: LibraryPath, beneath root: FileDescriptor) -> FileKey? {
    guard !path.bytes.isEmpty, path.bytes.first != UInt8(ascii: "/"),
      let status = try? root.statusRecord(ofEntry: path.bytes),
      status.st_mode & S_IFMT == S_IFREG
    else { return nil }
    return FileKey(status)
  }

  /// The key of the regular file `name` (one component) of the open folder `folder`;
  /// `nil` when there is none (or it is not a regular file). One `fstatat`, as
  /// ``of(_:beneath:)``.
  static func of(entry name: UnsafeBufferPointer<UInt8>, in folder: FileDescriptor) -> FileKey? {
    guard let status = try? folder.statusRecord(ofEntry: name), status.st_mode & S_IFMT == S_IFREG
    else { return nil }
    return FileKey(status)
  }

  /// Whether the file changed so recently that a later change could still leave the same
  /// key: the kernel stamps change times from a clock that ticks every few milliseconds,
  /// so a write in the same tick as the `fstatat` would not move it. Such a file is read,
  /// and its result not stored.
  func isRecent(comparedTo now: Date = Date()) -> Bool {
    let changed = Double(changeSeconds) + Double(changeNanoseconds) / 1_000_000_000
    return now.timeIntervalSince1970 - changed < FileKey.settlingTime
  }

  /// How long after its last change a file's key is trusted (see ``isRecent(comparedTo:)``);
  /// many clock ticks, so that a coarse kernel clock and a clock step cannot fool it.
  static let settlingTime = 0.1
}

extension FileKey {
  /// The key in a file's status.
  init(_ status: stat) {
    self.init(
      device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
      modificationSeconds: Int64(status.st_mtim.tv_sec),
      modificationNanoseconds: Int64(status.st_mtim.tv_nsec),
      changeSeconds: Int64(status.st_ctim.tv_sec),
      changeNanoseconds: Int64(status.st_ctim.tv_nsec))
  }
}
