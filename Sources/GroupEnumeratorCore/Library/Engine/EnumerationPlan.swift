/// The assets of an enumeration, in order, before the bulk of the reading: every Live
/// Photo candidate read (so that a confirmed pair counts once in the total), the other
/// files still to read, and each group's counts as they will be listed.
///
/// Every call plans with this one function (through
/// ``LibraryRun/plan(groups:filter:fileSelection:)``), so the listing, the streams, the
/// path lookup and the group list agree on which files make one asset.
struct EnumerationPlan: Sendable {
  /// Every asset to report, in group order then by path.
  var units: [EnumerationUnit]
  /// Each planned group's counts by type, as listed: a confirmed pair once, as a Live
  /// Photo; every other file as the type its name gave it.
  var counts: [ScannedGroup.Key: [AssetType: Int]]
  /// How many files were read while planning (both halves of every candidate).
  var filesRead: Int

  /// Plans `groups`.
  ///
  /// - Parameters:
  ///   - groups: The scanned groups to list, in order.
  ///   - filter: Which assets to include.
  ///   - fileSelection: Which files to list. A candidate is read when either half is
  ///     selected, and a confirmed pair is listed when either half is.
  ///   - read: Reads jobs (in parallel), in job order; `nil` for a job not read
  ///     (cancelled). It may throw ``LibraryError/cancelled``.
  /// - Throws: What `read` throws.
  static func make(
    groups: [ScannedGroup], filter: AssetFilter,
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool,
    read: ([ReadJob]) async throws(LibraryError) -> [Asset?]
  ) async throws(LibraryError) -> EnumerationPlan {
    let candidates = groups.flatMap { group in
      LivePhotoPairing.candidates(in: group.files)
        .filter { fileSelection($0.still) || fileSelection($0.video) }
        .map { (candidate: $0, group: group.key) }
    }
    let candidateJobs = candidates.flatMap { entry in
      [
        ReadJob(file: entry.candidate.still, group: entry.group),
        ReadJob(file: entry.candidate.video, group: entry.group),
      ]
    }
    let preread = candidateJobs.isEmpty ? [] : try await read(candidateJobs)
    var readAlready: [LibraryPath: Asset] = [:]
    for case let asset? in preread { readAlready[asset.path] = asset }
    var pairedStills: [LibraryPath: (pair: Asset, video: ScannedFile)] = [:]
    var pairedVideos: Set<LibraryPath> = []
    for (candidate, _) in candidates {
      guard let still = readAlready[candidate.still.path],
        let video = readAlready[candidate.video.path],
        LivePhotoPairing.halvesAreWhatTheirNamesSay(still: still, video: video),
        LivePhotoPairing.confirms(still: still.metadata, video: video.metadata)
      else { continue }
      pairedStills[still.path] = (
        LivePhotoPairing.merge(still: still, video: video), candidate.video
      )
      pairedVideos.insert(video.path)
    }
    var units: [EnumerationUnit] = []
    units.reserveCapacity(groups.reduce(0) { $0 + $1.files.count })
    var counts: [ScannedGroup.Key: [AssetType: Int]] = [:]
    // Most groups hold no candidate at all: their files then cost no path hashing here.
    let hasPairs = !pairedStills.isEmpty
    let hasReadAlready = !readAlready.isEmpty
    for group in groups {
      let key = group.key
      let files = group.files
      var groupCounts: [AssetType: Int] = [:]
      // By position, not `for file in files`: a file is copied (its path, sidecars and
      // problem retained) only into the job that reads it.
      for position in files.indices {
        let path = files[position].path
        if hasPairs, pairedVideos.contains(path) { continue }
        if hasPairs, let (pair, video) = pairedStills[path] {
          guard fileSelection(files[position]) || fileSelection(video),
            filter.includes(.livePhoto)
          else { continue }
          units.append(.read(pair))
          groupCounts[.livePhoto, default: 0] += 1
        } else if filter.includes(files[position].type), fileSelection(files[position]) {
          units.append(
            (hasReadAlready ? readAlready[path].map(EnumerationUnit.read) : nil)
              ?? .toRead(ReadJob(file: files[position], group: key)))
          groupCounts[files[position].type, default: 0] += 1
        }
      }
      counts[key] = groupCounts
    }
    return EnumerationPlan(units: units, counts: counts, filesRead: candidateJobs.count)
  }
}

extension EnumerationPlan {
  /// How many assets of each type pass `filter`, counting each Live Photo candidate (by
  /// name) once: a group's counts without reading its files.
  static func counts(of files: [ScannedFile], filter: AssetFilter) -> [AssetType: Int] {
    var counts: [AssetType: Int] = [:]
    for file in files where filter.includes(file.type) { counts[file.type, default: 0] += 1 }
    let pairs = LivePhotoPairing.candidates(in: files).count
    if pairs > 0 {
      counts[.photo, default: 0] -= filter.includes(.photo) ? pairs : 0
      counts[.video, default: 0] -= filter.includes(.video) ? pairs : 0
      if filter.includes(.livePhoto) { counts[.livePhoto, default: 0] += pairs }
      counts = counts.filter { $0.value > 0 }
    }
    return counts
  }
}

/// One asset of an enumeration: read during the Live Photo pass, or still to read.
enum EnumerationUnit: Sendable {
  case read(Asset)
  case toRead(ReadJob)

  /// The file still to read, or `nil` when the asset was read while planning.
  var job: ReadJob? {
    if case .toRead(let job) = self { return job }
    return nil
  }
}
