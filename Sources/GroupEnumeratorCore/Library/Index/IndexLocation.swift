public import FoundationEssentials

/// Where an enumeration keeps its index of what it read (``LibraryOptions/index``).
///
/// With an index, a file whose device, inode, size, modification and change times (and
/// whose sidecars) are unchanged since the last enumeration is not opened: its asset comes
/// from the index. The output is the same as without it; only the time differs. The index
/// is an SQLite database, never inside the library (a path inside it is refused with a
/// warning, and the library is read without an index).
public enum IndexLocation: Sendable, Hashable {
  /// No index: every file is read (the default).
  case none
  /// The index file at this URL, created when missing, rebuilt (with a warning) when it
  /// belongs to another library, has another schema or is damaged.
  case file(URL)
  /// This library's own index in the user's cache folder:
  /// `$XDG_CACHE_HOME/groupenumerator/`, or `$HOME/.cache/groupenumerator/` when
  /// `XDG_CACHE_HOME` is unset, empty or not an absolute path. The file is named after
  /// the library root's canonical path (a readable stem and a hash of the whole path), so
  /// each library has its own; missing folders are created, readable by the user only.
  ///
  /// When neither variable gives an absolute path, the folder cannot be created, or it is
  /// inside the library, the library is read without an index, with a warning.
  case userCache
}

extension IndexLocation {
  /// The environment ``userCache`` is found in, when a test sets one; `nil` for the
  /// process's.
  @TaskLocal static var environmentForTesting: [String: String]?

  /// The environment ``userCache`` is found in: the process's, unless a test set another.
  static var environment: [String: String] {
    environmentForTesting ?? ProcessInfo.processInfo.environment
  }

  /// The name of the subfolder of the cache folder that holds the indexes.
  static let cacheSubfolder = "groupenumerator"

  /// The longest stem taken from the root's last path component, in bytes.
  static let stemLimit = 48

  /// The folder that holds the default indexes, from `environment`: `$XDG_CACHE_HOME`
  /// (when set to an absolute path; XDG has a relative one ignored),
  /// else `$HOME/.cache`, followed by ``cacheSubfolder``.
  ///
  /// - Returns: The folder's path, not yet resolved or created; `nil` when neither
  ///   variable is an absolute path.
  static func cacheFolder(in environment: [String: String]) -> String? {
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
      return PathText.appending(cacheSubfolder, to: cache)
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return PathText.appending(cacheSubfolder, to: PathText.appending(".cache", to: home))
    }
    return nil
  }

  /// The file name of the default index of the library whose canonical root path is
  /// `rootPath`: the root's last component with every byte other than ASCII letters,
  /// digits, `-`, `_` and `.` made `_` (at most ``stemLimit`` bytes, never starting with
  /// `.`), a dash, the 64-bit FNV-1a hash of the whole path in hex, and `.sqlite`.
  ///
  /// Two roots with one stem get different names from their hashes; two whose hashes
  /// collide share a file, which then records one root, and each run of the other
  /// rebuilds it (with a warning): never a wrong answer.
  static func fileName(forRoot rootPath: [UInt8]) -> String {
    let last = rootPath.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
    var stem = last.prefix(stemLimit).map { byte -> UInt8 in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
        UInt8(ascii: "."):
        byte
      default: UInt8(ascii: "_")
      }
    }
    if stem.first == UInt8(ascii: ".") { stem[0] = UInt8(ascii: "_") }
    let readable = stem.isEmpty ? "root" : String(decoding: stem, as: UTF8.self)
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in rootPath {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return readable + "-" + String(repeating: "0", count: 16 - hex.count) + hex + ".sqlite"
  }
}
