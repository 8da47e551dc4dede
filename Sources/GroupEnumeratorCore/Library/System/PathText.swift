/// Path arithmetic on strings, without touching the file system and without Foundation's
/// `NSString`.
///
/// `lastComponent(of:)` and `parent(of:)` first drop trailing slashes and fold every run
/// of slashes into one ("//a//b//" is read as "/a/b"), as `NSString`'s path methods do;
/// `appending(_:to:)` joins with one slash and changes nothing else, as
/// `appendingPathComponent` does. Unlike Foundation's, no input traps.
package enum PathText {
  /// The path's last component: "/a/b.jpg" gives "b.jpg", "/a/" gives "a", "/" gives "/",
  /// "" gives "".
  package static func lastComponent(of path: String) -> String {
    let folded = fold(path)
    guard folded.count > 1, let slash = folded.lastIndex(of: "/") else { return folded }
    return String(folded[folded.index(after: slash)...])
  }

  /// The path without its last component: "/a/b" gives "/a", "/a" gives "/", "a" gives
  /// "", "/" gives "/".
  package static func parent(of path: String) -> String {
    let folded = fold(path)
    guard let slash = folded.lastIndex(of: "/") else { return "" }
    return slash == folded.startIndex ? "/" : String(folded[..<slash])
  }

  /// `component` after `path` with one slash between them: ("/a", "b") gives "/a/b",
  /// ("/a/", "b") gives "/a/b", ("", "b") gives "b", ("/a", "") gives "/a".
  package static func appending(_ component: String, to path: String) -> String {
    if path.isEmpty { return component }
    if component.isEmpty { return path }
    return path.hasSuffix("/") ? path + component : path + "/" + component
  }

  /// The path with every run of slashes folded into one and no trailing slash, except
  /// for "/" itself.
  private static func fold(_ path: String) -> String {
    guard path.utf8.contains(UInt8(ascii: "/")) else { return path }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(path.utf8.count)
    for byte in path.utf8 where !(byte == UInt8(ascii: "/") && bytes.last == byte) {
      bytes.append(byte)
    }
    if bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
  }
}
