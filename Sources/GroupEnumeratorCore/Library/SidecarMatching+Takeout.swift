/// Google Takeout's `.json` sidecars, which are not sidecars by their extension: a `.json`
/// file the walk listed becomes one only when its name fits a media file of its folder the
/// way Takeout names them and its content says so. Matching only: what the sidecar says is
/// read later, by ``SidecarReader``, and only where the media file left a gap.
extension SidecarMatching {
  /// Attaches each Google Takeout sidecar among a folder's other files to the one media
  /// file it describes, removing it from `others`.
  ///
  /// A `.json` other file (``OtherFile/Reason/notMedia``) is a Takeout sidecar when its
  /// name is one Takeout gives the sidecar of a media file of the folder
  /// (``takeoutMediaNames(forSidecarNamed:)``, and, for a name cut at 51 bytes, a media
  /// name it is the start of), exactly one asset fits as for other sidecars, and
  /// `isTakeoutSidecar` (the cheap content check: small, JSON with a `title` or
  /// `photoTakenTime` key) says so. Any other `.json` file stays an other file, untouched.
  ///
  /// - Parameters:
  ///   - others: The other files of one folder.
  ///   - files: The media files of that folder, sidecars already attached.
  ///   - isTakeoutSidecar: Reads a candidate and says whether it is one.
  /// - Complexity: O(*n*) name lookups for *n* files, plus, for each `.json` name of
  ///   exactly 51 bytes, a binary search of the folder's media names sorted once (and at
  ///   most three names read after it: more than two matches fit no single asset).
  static func attachTakeoutSidecars(
    from others: inout [OtherFile], to files: inout [ScannedFile],
    isTakeoutSidecar: (OtherFile) -> Bool
  ) {
    let candidates = others.indices.filter {
      others[$0].reason == .notMedia
        && MediaSniffer.lowercasedExtension(of: others[$0].path.lastComponentBytes) == "json"
    }
    guard !candidates.isEmpty, !files.isEmpty else { return }
    var mediaByName: [[UInt8]: [Int]] = [:]
    for (index, file) in files.enumerated() {
      mediaByName[lowercased(file.path.lastComponentBytes), default: []].append(index)
    }
    // The media names in byte order, made only when a cut name needs them: the names that
    // start with a given prefix are then one run, found by binary search.
    var sortedNames: [[UInt8]]?
    var attached: Set<Int> = []
    var owners: Set<Int> = []
    for index in candidates {
      let name = lowercased(others[index].path.lastComponentBytes)
      var matches: [Int] = []
      for mediaName in takeoutMediaNames(forSidecarNamed: name) {
        for match in mediaByName[mediaName] ?? [] where !matches.contains(match) {
          matches.append(match)
        }
      }
      if matches.isEmpty, name.count == takeoutNameLimit {
        // The media file's own name was cut: the sidecar's name is its start.
        let start = Array(name.dropLast(5))
        if sortedNames == nil {
          sortedNames = mediaByName.keys.sorted { $0.lexicographicallyPrecedes($1) }
        }
        let sorted = sortedNames ?? []
        var position = firstIndex(notBefore: start, in: sorted)
        while position < sorted.count, matches.count <= 2, sorted[position].starts(with: start) {
          if sorted[position].count > start.count { matches += mediaByName[sorted[position]] ?? [] }
          position += 1
        }
      }
      guard !matches.isEmpty, let target = owner(among: matches.sorted(), of: files),
        isTakeoutSidecar(others[index])
      else { continue }
      let sidecar = others[index]
      files[target].sidecars.append(
        AssetResource(path: sidecar.path, role: .sidecar, format: nil, fileSize: sidecar.fileSize))
      attached.insert(index)
      owners.insert(target)
    }
    for index in owners { files[index].sidecars.sort { $0.path < $1.path } }
    if !attached.isEmpty {
      others = others.indices.filter { !attached.contains($0) }.map { others[$0] }
    }
  }

  /// The index of the first of `sorted` (in byte order) that is not before `name`.
  ///
  /// - Complexity: O(log *n*) comparisons.
  private static func firstIndex(notBefore name: [UInt8], in sorted: [[UInt8]]) -> Int {
    var low = 0
    var high = sorted.count
    while low < high {
      let middle = low + (high - low) / 2
      if sorted[middle].lexicographicallyPrecedes(name) { low = middle + 1 } else { high = middle }
    }
    return low
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
}
