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
/// several: `IMG_1.JPG`, `IMG_1.CR2` and `IMG_1.xmp`) is listed as an asset of its own,
/// with an ``AssetProblem/Code/unsupported`` problem saying why. Sidecars are read later,
/// by ``SidecarReader``, and only where the media file left a gap.
///
/// Google Takeout's `.json` sidecars are not sidecars by their extension; a `.json` file
/// the walk listed becomes one only when its name fits a media file the way Takeout names
/// them and its content says so (``attachTakeoutSidecars(in:isTakeoutSidecar:)``).
enum SidecarMatching {
  /// Attaches each of `sidecars` to the one file of `files` it belongs to, and appends
  /// the others to `files` as assets of their own.
  ///
  /// - Parameters:
  ///   - sidecars: The sidecars of one folder, as the walk found them.
  ///   - files: Every other file of that folder (media or not); each file's
  ///     ``ScannedFile/sidecars`` end up sorted by path.
  /// - Complexity: O(*n* + *s* log *s*) for *n* files and *s* sidecars.
  static func attach(_ sidecars: [ScannedFile], to files: inout [ScannedFile]) {
    guard !sidecars.isEmpty else { return }
    var byBase: [[UInt8]: [Int]] = [:]
    var byName: [[UInt8]: [Int]] = [:]
    for (index, file) in files.enumerated() {
      let name = lowercased(file.path.lastComponentBytes)
      byBase[base(of: name), default: []].append(index)
      byName[name, default: []].append(index)
    }
    var attachedTo: Set<Int> = []
    var orphans: [ScannedFile] = []
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
    files += orphans
  }

  /// Attaches each Google Takeout sidecar among `files` to the one media file it
  /// describes, removing it from `files`.
  ///
  /// A `.json` file (not media) is a Takeout sidecar when its name is one Takeout gives
  /// the sidecar of a media file of the folder (``takeoutMediaNames(forSidecarNamed:)``,
  /// and, for a name cut at 51 bytes, a media name it is the start of), exactly one asset
  /// fits as for other sidecars, and `isTakeoutSidecar` (the cheap content check: small,
  /// JSON with a `title` or `photoTakenTime` key) says so. Any other `.json` file stays
  /// in `files`, untouched.
  ///
  /// - Parameters:
  ///   - files: The files of one folder, sidecars already attached.
  ///   - isTakeoutSidecar: Reads a candidate and says whether it is one.
  /// - Complexity: O(*n*) name lookups for *n* files, plus a scan of the folder's media
  ///   names for each `.json` name of exactly 51 bytes.
  static func attachTakeoutSidecars(
    in files: inout [ScannedFile], isTakeoutSidecar: (ScannedFile) -> Bool
  ) {
    var mediaByName: [[UInt8]: [Int]] = [:]
    var candidates: [Int] = []
    for (index, file) in files.enumerated() {
      let name = file.path.lastComponentBytes
      if file.isMedia {
        mediaByName[lowercased(name), default: []].append(index)
      } else if MediaSniffer.lowercasedExtension(of: name) == "json" {
        candidates.append(index)
      }
    }
    guard !candidates.isEmpty, !mediaByName.isEmpty else { return }
    var attached: Set<Int> = []
    var owners: Set<Int> = []
    for index in candidates {
      let name = lowercased(files[index].path.lastComponentBytes)
      var matches: [Int] = []
      for mediaName in takeoutMediaNames(forSidecarNamed: name) {
        for match in mediaByName[mediaName] ?? [] where !matches.contains(match) {
          matches.append(match)
        }
      }
      if matches.isEmpty, name.count == takeoutNameLimit {
        // The media file's own name was cut: the sidecar's name is its start.
        let start = name.dropLast(5)
        for (mediaName, indices) in mediaByName
        where mediaName.count > start.count && mediaName.starts(with: start) {
          matches += indices
        }
      }
      guard !matches.isEmpty, let target = owner(among: matches.sorted(), of: files),
        isTakeoutSidecar(files[index])
      else { continue }
      let sidecar = files[index]
      files[target].sidecars.append(
        AssetResource(path: sidecar.path, role: .sidecar, format: nil, fileSize: sidecar.fileSize))
      attached.insert(index)
      owners.insert(target)
    }
    for index in owners { files[index].sidecars.sort { $0.path < $1.path } }
    if !attached.isEmpty {
      files = files.indices.filter { !attached.contains($0) }.map { files[$0] }
    }
  }

  /// The longest name Google Takeout gives a sidecar, `.json` included: longer names
  /// are cut to it.
  static let takeoutNameLimit = 51

  /// The names (lower-cased) of the media files a Google Takeout sidecar named `name`
  /// (lower-cased) may describe:
  ///
  /// - `img.jpg.json` → `img.jpg`;
  /// - `img.jpg.supplemental-metadata.json` → `img.jpg`, also with that suffix cut short
  ///   (`img.jpg.supplemental-metad.json`, `img.jpg.suppl.json`: Takeout cuts the whole
  ///   name at ``takeoutNameLimit`` bytes);
  /// - the duplicate form, whose counter Takeout moves to the end: `img.jpg(1).json` and
  ///   `img.jpg.supplemental-metadata(1).json` → `img(1).jpg`.
  ///
  /// - Returns: The names, without repeats; empty when `name` does not end in `.json`.
  static func takeoutMediaNames(forSidecarNamed name: [UInt8]) -> [[UInt8]] {
    let json = Array(".json".utf8)
    guard name.count > json.count, name.suffix(json.count).elementsEqual(json) else { return [] }
    var stem = Array(name.dropLast(json.count))
    // `(n)` at the end: a duplicate's counter.
    var counter: [UInt8] = []
    if stem.last == UInt8(ascii: ")"), let open = stem.lastIndex(of: UInt8(ascii: "(")),
      open > 0, open + 2 < stem.count,
      stem[(open + 1)..<(stem.count - 1)].allSatisfy({ (0x30...0x39).contains($0) })
    {
      counter = Array(stem[open...])
      stem.removeSubrange(open...)
    }
    var bases = [stem]
    let suffix = Array("supplemental-metadata".utf8)
    if let dot = stem.lastIndex(of: UInt8(ascii: ".")), dot > 0 {
      let tail = stem[(dot + 1)...]
      if !tail.isEmpty, tail.count <= suffix.count, suffix.starts(with: tail) {
        bases.append(Array(stem[..<dot]))
      }
    }
    var names: [[UInt8]] = []
    for base in bases {
      var mediaName = base
      if !counter.isEmpty {
        // `img.jpg` with `(1)` → `img(1).jpg`.
        let dot = base.lastIndex(of: UInt8(ascii: ".")) ?? base.endIndex
        mediaName.insert(contentsOf: counter, at: dot)
      }
      if !mediaName.isEmpty, !names.contains(mediaName) { names.append(mediaName) }
    }
    return names
  }

  /// The index of the file that owns a sidecar fitting `matches`: the only one, or the
  /// still of the one Live Photo candidate two matches make.
  private static func owner(among matches: [Int], of files: [ScannedFile]) -> Int? {
    if matches.count == 1 { return matches[0] }
    guard matches.count == 2,
      let pair = LivePhotoPairing.candidates(in: matches.map { files[$0] }).first
    else { return nil }
    return matches.first { files[$0].path == pair.still.path }
  }

  /// A sidecar that fits no single asset, as an asset of its own.
  private static func orphan(_ sidecar: ScannedFile, matching matches: [ScannedFile])
    -> ScannedFile
  {
    var file = sidecar
    let name = sidecar.path.lastComponentBytes
    let dot = name.lastIndex(of: UInt8(ascii: ".")) ?? name.endIndex
    let base = LibraryPath.escape(Array(name[..<dot]))
    let ext = LibraryPath.escape(Array(name[dot...]))
    let why =
      matches.isEmpty
      ? "no photo or video in its folder is named '\(base)'"
      : "it fits more than one asset in its folder ("
        + matches.map(\.path.lastComponent).sorted().joined(separator: ", ") + ")"
    file.isMedia = false
    file.type = MediaSniffer.isVideoName(name) ? .video : .photo
    file.problem = AssetProblem(
      .unsupported,
      "'\(sidecar.path.escaped)' is a sidecar file (\(ext)) but \(why), so it is listed"
        + " on its own; it is not a photo or video GroupEnumerator can read.")
    return file
  }

  /// A lower-cased name without its last extension; the whole name when it has none.
  private static func base(of name: [UInt8]) -> [UInt8] {
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else {
      return name
    }
    return Array(name[..<dot])
  }

  private static func lowercased(_ name: [UInt8]) -> [UInt8] {
    name.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
  }
}
