import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// Writes `Demo thumbnail`'s bytes to the `--output` file so that a failure leaves
/// nothing behind and nothing is written where the user did not ask.
///
/// The bytes go to a new temporary file in the same folder (`O_CREAT | O_EXCL |
/// O_NOFOLLOW`, so never through a symbolic link), are flushed with `fsync`, and the file
/// then takes the output's name: with `link(2)` (fails when the name exists, whatever it
/// is) or, with `--force`, `rename(2)` over an existing regular file. A symbolic link, a
/// device, a FIFO or a socket at the output is refused even with `--force` (`--output
/// /dev/stdout --force` must not replace a link in `/dev`; `-` is standard output). The
/// temporary name is removed in every case.
enum ThumbnailFile {
  /// Why the file was not written, in words for people.
  struct Failure: Error, Equatable {
    /// The reason, without a final period.
    var reason: String
  }

  /// Writes `data` to `path`.
  ///
  /// - Parameters:
  ///   - data: The thumbnail's bytes.
  ///   - path: The output file.
  ///   - replacing: Whether an existing regular file at `path` may be replaced.
  /// - Throws: ``Failure`` with a plain reason: a folder, an existing file without
  ///   `--force`, a missing folder, a full disk, or the system's message.
  static func write(_ data: Data, to path: String, replacing: Bool) throws(Failure) {
    var status = stat()
    if lstat(path, &status) == 0 {
      switch status.st_mode & S_IFMT {
      case S_IFDIR: throw Failure(reason: "it is a folder; name a file inside it")
      case S_IFLNK:
        throw Failure(reason: "it is a symbolic link; name the file itself, not a link")
      case S_IFREG: break
      default: throw Failure(reason: "it is not a regular file (a device, a FIFO or a socket)")
      }
      if !replacing {
        throw Failure(reason: "the file already exists; add --force to replace it")
      }
    }
    let folder = PathText.parent(of: path)
    let name = PathText.lastComponent(of: path)
    let temporary =
      (folder.isEmpty ? "" : folder + "/")
      + ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw failure(errno: errno) }
    defer { unlink(temporary) }
    var code = data.withUnsafeBytes { writeAll($0, to: descriptor) }
    if code == 0, fsync(descriptor) != 0 { code = errno }
    if close(descriptor) != 0, code == 0 { code = errno }
    guard code == 0 else { throw failure(errno: code) }
    if replacing {
      guard rename(temporary, path) == 0 else { throw failure(errno: errno) }
    } else {
      guard link(temporary, path) == 0 else { throw failure(errno: errno) }
    }
  }

  /// Writes all of `bytes` to `descriptor`, again after a signal interrupts a write (the
  /// one write loop of the Demo's output files).
  ///
  /// - Returns: 0, or the `errno` of the write that failed (`EIO` for one that wrote
  ///   nothing).
  static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
    var written = 0
    while written < bytes.count {
      let result = Glibc.write(
        descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
      if result > 0 {
        written += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        return result < 0 ? errno : EIO
      }
    }
    return 0
  }

  /// The plain reason for `errno` `code`.
  static func failure(errno code: Int32) -> Failure {
    switch code {
    case ENOSPC, EDQUOT: Failure(reason: "the disk is full")
    case ENOENT: Failure(reason: "the folder does not exist")
    case EEXIST: Failure(reason: "the file already exists; add --force to replace it")
    case EISDIR: Failure(reason: "it is a folder; name a file inside it")
    case EACCES, EPERM, EROFS: Failure(reason: "this user may not write there")
    default: Failure(reason: String(cString: strerror(code)).lowercased())
    }
  }
}
