#if canImport(Glibc)
  internal import Glibc
#endif

extension AssetProblem {
  /// The `errno` values that say nothing about the file, only about this moment: the
  /// process's or the system's descriptors (`EMFILE`, `ENFILE`), memory (`ENOMEM`,
  /// `ENOBUFS`), an interrupted or busy call (`EINTR`, `EAGAIN`, `EBUSY`, `ENOLCK`), the
  /// disk or the network under a share (`EIO`, `ESTALE`, `ETIMEDOUT`, `EREMOTEIO`, the
  /// host and network errors), or a cancelled operation. The same file may read fine
  /// on the next run.
  static let passingErrnos: Set<Int32> = [
    EINTR, EIO, EAGAIN, ENOMEM, EBUSY, ENFILE, EMFILE, ENOLCK, ENOLINK, ECOMM, ENETDOWN,
    ENETUNREACH, ENETRESET, ECONNABORTED, ECONNRESET, ENOBUFS, ETIMEDOUT, EHOSTDOWN,
    EHOSTUNREACH, ESTALE, EREMOTEIO, ECANCELED,
  ]

  /// Whether the problem may be gone on the next run without the file changing: a file
  /// that vanished or was swapped for another kind between the walk and the read, or an
  /// `unreadable` problem that names a passing `errno` (``passingErrnos``, written
  /// `errno N:` as ``Errno`` describes it). A result with such a problem is never
  /// stored in the index, which would otherwise give it again under the file's unchanged
  /// key on every later run.
  package var isPassing: Bool {
    switch code {
    case .vanished, .notRegularFile: return true
    case .unreadable, .unreadableFolder:
      return Self.namedErrnos(in: message).contains {
        Self.passingErrnos.contains($0)
      }
    default: return false
    }
  }

  /// The numbers written `errno N:` in `text`.
  private static func namedErrnos(in text: String) -> [Int32] {
    let bytes = Array(text.utf8)
    let marker = Array("errno ".utf8)
    var found: [Int32] = []
    var index = 0
    while index + marker.count < bytes.count {
      guard bytes[index..<(index + marker.count)].elementsEqual(marker) else {
        index += 1
        continue
      }
      var position = index + marker.count
      var value: Int32 = 0
      var digits = 0
      while position < bytes.count, digits < 6, (0x30...0x39).contains(bytes[position]) {
        value = value * 10 + Int32(bytes[position] - 0x30)
        digits += 1
        position += 1
      }
      if digits > 0, position < bytes.count, bytes[position] == UInt8(ascii: ":") {
        found.append(value)
      }
      index = position
    }
    return found
  }
}

extension AssetProblem {
  /// The words of the one problem whose finding depends on the day it was found: a
  /// movie's creation time more than a year ahead of the clock is ignored with it.
  static let dateDependentWords = "more than a year from now"

  /// Whether the problem was found against the current date (``dateDependentWords``), so
  /// that the same file may read without it later: an enumeration holding it is not kept
  /// whole (``ContentsSnapshot``), nor is the Demo's listing replayed.
  package var dependsOnToday: Bool { message.contains(Self.dateDependentWords) }
}

extension OtherFile {
  /// Whether the file could not be examined for a reason that may be gone on the next run
  /// (``AssetProblem/isPassing``: its message names a passing `errno`).
  package var isPassing: Bool {
    reason == .unreadable && AssetProblem(.unreadable, message).isPassing
  }
}
