#if canImport(Glibc)
  internal import Glibc
#endif

/// Which files of a library the walk keeps, chosen the way exiftool's `-ext` and `-i`
/// choose: by extension, and by excluding names or paths with shell patterns.
///
/// The selection applies to files, before Live Photo pairing: a Live Photo is one asset
/// only when both its still and its movie are selected (`["heic", "mov"]`). A sidecar
/// goes with its asset whatever its own extension; a sidecar whose asset is not selected
/// is left out with it. An excluded folder is not entered at all.
///
/// ```swift
/// let selection = FileSelection(extensions: ["jpg", "heic"], excluding: ["Trash", "*.tmp"])
/// let library = AssetsLibrary(root: root, options: LibraryOptions(selection: selection))
/// ```
public struct FileSelection: Sendable, Hashable {
  /// The file extensions to keep, without the dot, compared ignoring ASCII case; empty
  /// keeps every extension.
  public let extensions: Set<String>
  /// Shell patterns (`fnmatch(3)` syntax: `*`, `?`, `[a-z]`, `\`) of files and folders
  /// to leave out. A pattern without `/` is matched against each name at any depth
  /// (`Trash`, `*.tmp`); a pattern with `/` against the whole path from the library root
  /// (`Trips/Kyoto 2019`, `DCIM/*/IMG_9*`; a leading `/` is ignored); a pattern ending
  /// in `/` matches folders only. `*` and `?` never match a `/`.
  public let excludedPatterns: [String]

  /// The lower-cased UTF-8 bytes of ``extensions``.
  private let extensionBytes: Set<[UInt8]>
  private let patterns: [Pattern]

  /// One excluded pattern, ready to match.
  private struct Pattern: Sendable, Hashable {
    /// The pattern's bytes, NUL-terminated, without a leading or trailing `/`.
    var cString: [CChar]
    /// Whether it is matched against the whole path rather than the last name.
    var matchesWholePath: Bool
    /// Whether it matches folders only (it ended in `/`).
    var matchesFoldersOnly: Bool
  }

  /// Every file.
  public static let all = FileSelection()

  /// Creates a selection.
  ///
  /// - Parameters:
  ///   - extensions: Extensions to keep (`"jpg"`, `".HEIC"`: a leading dot and case do
  ///     not matter); empty keeps every extension.
  ///   - patterns: Shell patterns of files and folders to leave out (see
  ///     ``excludedPatterns``).
  public init(extensions: some Sequence<String> = [String](), excluding patterns: [String] = []) {
    let normalized = extensions.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
    self.extensions = Set(normalized)
    self.excludedPatterns = patterns
    self.extensionBytes = Set(normalized.map { LibraryPath.lowercasedASCII($0.utf8) })
    self.patterns = patterns.compactMap(FileSelection.pattern)
  }

  /// Whether the selection keeps every file.
  public var selectsEverything: Bool { extensionBytes.isEmpty && patterns.isEmpty }

  /// Whether the walk enters the folder at `path` (relative to the root).
  public func includesFolder(at path: LibraryPath) -> Bool {
    !patterns.contains { matches($0, path: path, isFolder: true) }
  }

  /// Whether the file at `path` (relative to the root) is kept.
  public func includesFile(at path: LibraryPath) -> Bool {
    if !extensionBytes.isEmpty {
      let name = path.lastComponentBytes
      guard let start = LibraryPath.extensionStart(inName: name),
        extensionBytes.contains(LibraryPath.lowercasedASCII(name[start...]))
      else { return false }
    }
    return !patterns.contains { matches($0, path: path, isFolder: false) }
  }

  private func matches(_ pattern: Pattern, path: LibraryPath, isFolder: Bool) -> Bool {
    if pattern.matchesFoldersOnly, !isFolder { return false }
    let subject = pattern.matchesWholePath ? path.bytes : path.lastComponentBytes
    let cSubject = subject.map { CChar(bitPattern: $0) } + [0]
    return fnmatch(pattern.cString, cSubject, FNM_PATHNAME) == 0
  }

  private static func pattern(_ text: String) -> Pattern? {
    var bytes = Array(text.utf8)
    let foldersOnly = bytes.last == UInt8(ascii: "/")
    while bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    while bytes.first == UInt8(ascii: "/") { bytes.removeFirst() }
    guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
    return Pattern(
      cString: bytes.map { CChar(bitPattern: $0) } + [0],
      matchesWholePath: bytes.contains(UInt8(ascii: "/")) || text.hasPrefix("/"),
      matchesFoldersOnly: foldersOnly)
  }
}
