import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// Turns what `lookup` and `thumbnail` were given — an asset URL or a file path — into
/// the asset URL the library looks up.
///
/// A path is taken relative to the library root when a file of that name is there;
/// otherwise relative to the working directory (or as given when absolute), and it must
/// then lie inside the root. Folders on the way are resolved with `realpath`, the file
/// name itself is not: the library never follows a symbolic link, so a link names no
/// asset.
///
/// This goes through the public API only (an asset's URL depends on its path alone), so
/// it can later be swapped for a library `asset(at:)` lookup.
enum AssetLocation {
  /// Why a path names no file of the library.
  enum Failure: Error, Equatable {
    /// The path lies outside the library root (or is the root itself).
    case outsideLibrary(path: String, root: String)
  }

  /// The URL the library looks `reference` up by, and the path inside the library when
  /// a path was given.
  ///
  /// - Parameters:
  ///   - reference: What the command line named.
  ///   - root: The library root as the library opens it.
  ///   - workingDirectory: The directory relative paths start from (`nil`: the process's).
  /// - Returns: The asset URL, and the path relative to the root for a path reference.
  /// - Throws: ``Failure/outsideLibrary(path:root:)``.
  static func resolve(
    _ reference: DemoOptions.AssetReference, root: String, workingDirectory: String? = nil
  ) throws(Failure) -> (url: URL, path: LibraryPath?) {
    switch reference {
    case .url(let url):
      return (url, nil)
    case .path(let text):
      let path = try relativePath(
        of: Array(text.utf8), root: Array(root.utf8),
        workingDirectory: workingDirectory.map { Array($0.utf8) })
      return (url(of: path), path)
    }
  }

  /// The URL of the asset whose primary file is at `path`, without reading anything.
  static func url(of path: LibraryPath) -> URL {
    Asset(
      path: path, group: .album, groupPath: path.parent, type: .photo, resources: [],
      fileModificationDate: Date(timeIntervalSince1970: 0), metadata: MediaMetadata()
    ).url
  }

  /// The path of `argument` relative to `root`.
  ///
  /// - Throws: ``Failure/outsideLibrary(path:root:)`` for a path that resolves outside
  ///   the root, or to the root itself.
  static func relativePath(
    of argument: [UInt8], root: [UInt8], workingDirectory: [UInt8]? = nil
  ) throws(Failure) -> LibraryPath {
    let slash = UInt8(ascii: "/")
    let outside = Failure.outsideLibrary(
      path: LibraryPath(bytes: argument).escaped, root: LibraryPath(bytes: root).escaped)
    // The root cannot be resolved (missing, unreadable): take the path as relative to it
    // and let the library report what is wrong with the root.
    guard let realRoot = realPath(root) else {
      guard let inside = lexicallyInside(argument) else { throw outside }
      return inside
    }
    var absolute = argument
    if argument.first != slash {
      let inside = lexicallyInside(argument)
      if let inside, exists(realRoot + [slash] + inside.bytes) { return inside }
      // A path as the listing prints it, with bytes that are not UTF-8 as `%XX`.
      if let unescaped = LibraryPath(escaped: String(decoding: argument, as: UTF8.self)),
        unescaped.bytes != argument, let listed = lexicallyInside(unescaped.bytes),
        exists(realRoot + [slash] + listed.bytes)
      {
        return listed
      }
      let base = workingDirectory ?? realPath(Array(".".utf8))
      if let base, exists(base + [slash] + argument) {
        absolute = base + [slash] + argument
      } else if let inside {
        return inside  // Nothing there: the library says it has no such asset.
      } else {
        throw outside
      }
    }
    while absolute.count > 1, absolute.last == slash { absolute.removeLast() }
    guard let lastSlash = absolute.lastIndex(of: slash) else { throw outside }
    let name = Array(absolute[(lastSlash + 1)...])
    let parent = lastSlash == 0 ? [slash] : Array(absolute[..<lastSlash])
    guard !name.isEmpty, name != [0x2E], name != [0x2E, 0x2E], let realParent = realPath(parent)
    else { throw outside }
    let full = (realParent == [slash] ? [] : realParent) + [slash] + name
    let prefix = realRoot == [slash] ? [slash] : realRoot + [slash]
    guard full.count > prefix.count, full.starts(with: prefix) else { throw outside }
    return LibraryPath(bytes: Array(full[prefix.count...]))
  }

  /// `path` without `.` components and empty ones, `nil` when it is absolute, climbs
  /// above its start with `..`, or names nothing.
  private static func lexicallyInside(_ path: [UInt8]) -> LibraryPath? {
    guard path.first != UInt8(ascii: "/") else { return nil }
    var components: [[UInt8]] = []
    for component in path.split(separator: UInt8(ascii: "/")) {
      if component.elementsEqual([0x2E]) { continue }
      if component.elementsEqual([0x2E, 0x2E]) {
        guard components.popLast() != nil else { return nil }
        continue
      }
      components.append(Array(component))
    }
    guard !components.isEmpty else { return nil }
    return LibraryPath(bytes: Array(components.joined(separator: [UInt8(ascii: "/")])))
  }

  /// `realpath(3)` of `path`, or `nil` when it cannot be resolved.
  private static func realPath(_ path: [UInt8]) -> [UInt8]? {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    guard let resolved = realpath(cPath, nil) else { return nil }
    defer { free(resolved) }
    return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
  }

  /// Whether something (a link included) is at `path`.
  private static func exists(_ path: [UInt8]) -> Bool {
    var status = stat()
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    return lstat(cPath, &status) == 0
  }
}
