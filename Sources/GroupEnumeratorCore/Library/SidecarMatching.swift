/// Attaches sidecars to the assets they belong to, one folder at a time.
///
/// A sidecar `<base>.<ext>` (``MediaSniffer/isSidecar(name:)``) belongs to the file of its
/// folder whose name without its extension is `<base>`, ignoring ASCII case: `IMG_1.xmp`
/// and `img_1.AAE` belong to `IMG_1.JPG`. An XMP sidecar may also carry the whole name of
/// its file, as darktable writes them (`IMG_1.JPG.xmp`).
///
/// A sidecar attaches only when exactly one asset fits: one file, or the still and the
/// movie of one Live Photo candidate (`IMG_1.HEIC`, `IMG_1.MOV` and `IMG_1.AAE`), where it
/// goes to the still and so to the Live Photo. Any other sidecar (no file of that name, or
/// several: `IMG_1.JPG`, `IMG_1.CR2` and `IMG_1.xmp`) is an ``OtherFile`` (reason
/// ``OtherFile/Reason/unmatchedSidecar``) whose message says why. Matching reads no sidecar: ``SidecarReader`` reads an `.xmp`
/// or Takeout `.json` sidecar later, only where its file's own metadata left a gap.
enum SidecarMatching {
  /// Attaches each of `sidecars` to the one file of `files` it belongs to, and returns
  /// the others as other files.
  ///
  /// - Parameters:
  ///   - sidecars: The sidecars of one folder, as the walk found them.
  ///   - files: The photos and videos of that folder; each file's
  ///     ``ScannedFile/sidecars`` end up sorted by path.
  /// - Returns: The sidecars that fit no single file, in the order given.
  /// - Complexity: O(*n* + *s* log *s*) for *n* files and *s* sidecars.
  static func attach(_ sidecars: [ScannedFile], to files: inout [ScannedFile]) -> [OtherFile] {
    guard !sidecars.isEmpty else { return [] }
    var byBase: [[UInt8]: [Int]] = [:]
    var byName: [[UInt8]: [Int]] = [:]
    for (index, file) in files.enumerated() {
      let name = lowercased(file.path.lastComponentBytes)
      byBase[base(of: name), default: []].append(index)
      byName[name, default: []].append(index)
    }
    var attachedTo: Set<Int> = []
    var orphans: [OtherFile] = []
    for sidecar in sidecars {
      let name = lowercased(sidecar.path.lastComponentBytes)
      let sidecarBase = base(of: name)
      var matches = byBase[sidecarBase] ?? []
      if MediaSniffer.lowercasedExtension(of: name) == "xmp" {
        for index in byName[sidecarBase] ?? [] where !matches.contains(index) {
          matches.append(index)
        }
      }
      if let target = owner(among: matches, of: files) {
        files[target].sidecars.append(
          AssetResource(
            path: sidecar.path, role: .sidecar, format: nil, fileSize: sidecar.fileSize))
        attachedTo.insert(target)
      } else {
        orphans.append(orphan(sidecar, matching: matches.map { files[$0] }))
      }
    }
    for index in attachedTo { files[index].sidecars.sort { $0.path < $1.path } }
    return orphans
  }

  /// The index of the file that owns a sidecar fitting `matches`: the only one, or the
  /// still of the one Live Photo candidate two matches make.
  static func owner(among matches: [Int], of files: [ScannedFile]) -> Int? {
    if matches.count == 1 { return matches[0] }
    guard matches.count == 2,
      let pair = LivePhotoPairing.candidates(in: matches.map { files[$0] }).first
    else { return nil }
    return matches.first { files[$0].path == pair.still.path }
  }

  /// A sidecar that fits no single asset, as an other file.
  private static func orphan(_ sidecar: ScannedFile, matching matches: [ScannedFile])
    -> OtherFile
  {
    let name = sidecar.path.lastComponentBytes
    let dot = name.lastIndex(of: UInt8(ascii: ".")) ?? name.endIndex
    let base = LibraryPath.escape(Array(name[..<dot]))
    let ext = LibraryPath.escape(Array(name[dot...]))
    let why =
      matches.isEmpty
      ? "no photo or video in its folder is named '\(base)'"
      : "it fits more than one asset in its folder ("
        + matches.map(\.path.lastComponent).sorted().joined(separator: ", ") + ")"
    return OtherFile(
      path: sidecar.path, fileSize: sidecar.fileSize, modificationDate: sidecar.modificationDate,
      reason: .unmatchedSidecar,
      message: "'\(sidecar.path.escaped)' is a sidecar file (\(ext)) but \(why), so it is listed"
        + " on its own; it is not a photo or video GroupEnumerator can read.")
  }

  /// A lower-cased name without its last extension; the whole name when it has none.
  private static func base(of name: [UInt8]) -> [UInt8] {
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else {
      return name
    }
    return Array(name[..<dot])
  }

  /// `name` with its ASCII letters lower-cased.
  static func lowercased(_ name: [UInt8]) -> [UInt8] {
    name.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
  }
}
