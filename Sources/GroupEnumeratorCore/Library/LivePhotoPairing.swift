import FoundationEssentials

/// Finds Live Photos: a still and a movie of the same shot in the same folder.
///
/// Candidates come from names alone, before anything is read: `IMG_1234.HEIC` with
/// `IMG_1234.MOV`, or with `IMG_1234_HEVC.MOV` (how some iCloud download tools name the
/// movie); names compare without regard to ASCII case. Once both halves are read, a
/// candidate is confirmed by equal Apple content identifiers, or, without identifiers, by
/// capture times within ``maximumCaptureGap`` seconds (see ``confirms(still:video:)``).
enum LivePhotoPairing {
  /// The most two halves' capture times may differ, in seconds.
  static let maximumCaptureGap: Double = 10

  /// A still and a movie that may be one Live Photo.
  struct Candidate: Sendable, Hashable {
    var still: ScannedFile
    var video: ScannedFile
  }

  /// The candidates among one group's files: per folder and base name, exactly one still
  /// and one movie.
  ///
  /// - Complexity: O(*n* log *n*) in the number of files.
  static func candidates(in files: [ScannedFile]) -> [Candidate] {
    // Most albums hold no movie (or nothing but movies): no names to compare.
    // By position, not `for file in files`: each file is copied (its path, sidecars and
    // problem retained) only when it is kept.
    let movies = files.indices.filter { files[$0].type == .video }
    guard !movies.isEmpty, movies.count < files.count else { return [] }
    // The movies first (an album's few): a still is kept only when a movie shares its
    // key, so the many stills of a mixed album cost a look-up each, not an insertion.
    var videos: [Key: [ScannedFile]] = [:]
    for position in movies {
      guard let key = key(of: files[position]) else { continue }
      videos[key, default: []].append(files[position])
    }
    var stills: [Key: [ScannedFile]] = [:]
    for position in files.indices where files[position].type != .video {
      guard let key = key(of: files[position]), videos[key] != nil else { continue }
      stills[key, default: []].append(files[position])
    }
    var result: [Candidate] = []
    for (key, keyStills) in stills {
      guard keyStills.count == 1, let still = keyStills.first, let keyVideos = videos[key],
        keyVideos.count == 1, let video = keyVideos.first
      else { continue }
      result.append(Candidate(still: still, video: video))
    }
    return result.sorted { $0.still.path < $1.still.path }
  }

  /// Whether what was read of both halves makes them one shot.
  ///
  /// Content identifiers decide when both halves have one. Otherwise the capture times
  /// must both be known and agree within ``maximumCaptureGap`` — so that two unrelated
  /// files that merely share a name are not paired — unless a half could not be read at
  /// all (a broken half still pairs, and its problem is reported on the Live Photo).
  static func confirms(still: MediaMetadata, video: MediaMetadata) -> Bool {
    if let stillIdentifier = still.contentIdentifier,
      let videoIdentifier = video.contentIdentifier
    {
      return stillIdentifier == videoIdentifier
    }
    if isBroken(still) || isBroken(video) { return true }
    let stillDate = still.dateTimeOriginal ?? still.dateTimeDigitized ?? still.modificationDateTime
    let videoDate = video.quickTimeCreationDate ?? video.movieHeaderCreationDate
    guard let stillDate, let videoDate else { return false }
    return areClose(stillDate, videoDate)
  }

  /// Whether the content of each read half is what its name made it a candidate as:
  /// candidates are chosen by name, and a movie named `.jpg` (or a photo named `.mov`) is
  /// never half of a Live Photo. Content that is not media at all (a broken half) passes.
  static func halvesAreWhatTheirNamesSay(still: Asset, video: Asset) -> Bool {
    let stillFormat = still.resources.first?.format
    let videoFormat = video.resources.first?.format
    return stillFormat?.isVideo != true && videoFormat.map(\.isVideo) != false
  }

  /// Whether two capture dates can be the same moment.
  ///
  /// Two instants compare directly. A local time whose zone is unknown compared with an
  /// instant may differ by any whole zone offset (in quarter hours, up to 14 hours), so
  /// the gap must be within ``maximumCaptureGap`` of such an offset.
  static func areClose(_ first: CaptureDate, _ second: CaptureDate) -> Bool {
    if let firstInstant = first.date, let secondInstant = second.date {
      return abs(firstInstant.timeIntervalSince(secondInstant)) <= maximumCaptureGap
    }
    guard let firstClock = first.wallClockAsUTC, let secondClock = second.wallClockAsUTC else {
      return false
    }
    let gap = abs(firstClock.timeIntervalSince(secondClock))
    let bothLocal =
      first.zone != .utc && second.zone != .utc && first.date == nil
      && second.date == nil
    if bothLocal { return gap <= maximumCaptureGap }
    let quarterHour: Double = 900
    let offByZone = (gap / quarterHour).rounded() * quarterHour
    return offByZone <= 14 * 3600 && abs(gap - offByZone) <= maximumCaptureGap
  }

  /// Whether a half could not be read: empty, unrecognised or unreadable content, or
  /// malformed or truncated so badly that it yielded no capture date.
  private static func isBroken(_ metadata: MediaMetadata) -> Bool {
    let unreadable: Set<AssetProblem.Code> = [
      .emptyFile, .unrecognizedFormat, .unreadable, .notRegularFile, .vanished,
    ]
    let codes = Set(metadata.problems.map(\.code))
    if !codes.isDisjoint(with: unreadable) { return true }
    let hasDate =
      metadata.dateTimeOriginal != nil || metadata.quickTimeCreationDate != nil
      || metadata.movieHeaderCreationDate != nil
    return (codes.contains(.malformed) || codes.contains(.truncated)) && !hasDate
  }

  /// One Live Photo asset from its two read halves: the still's metadata, with the movie's
  /// duration and, where the still has none, its dates; problems of the movie say which
  /// file they are about. Resources: the still, the movie, then both halves' sidecars.
  static func merge(still: Asset, video: Asset) -> Asset {
    var metadata = still.metadata
    metadata.duration = video.metadata.duration
    metadata.quickTimeCreationDate = video.metadata.quickTimeCreationDate
    metadata.movieHeaderCreationDate = video.metadata.movieHeaderCreationDate
    metadata.contentIdentifier =
      still.metadata.contentIdentifier ?? video.metadata.contentIdentifier
    if metadata.location == nil { metadata.location = video.metadata.location }
    let videoProblems = video.problems.map {
      AssetProblem($0.code, "\(video.name): \($0.message)")
    }
    // Both halves' sidecars (the walk gives them to the still), after the two halves.
    let sidecars = (still.resources + video.resources).filter { $0.role == .sidecar }
      .sorted { $0.path < $1.path }
    return Asset(
      path: still.path, group: still.group, groupPath: still.groupPath, type: .livePhoto,
      resources: still.resources.filter { $0.role != .sidecar }
        + video.resources.filter { $0.role != .sidecar }.map {
          AssetResource(
            path: $0.path, role: .pairedVideo, format: $0.format, fileSize: $0.fileSize)
        } + sidecars,
      fileModificationDate: still.fileModificationDate, metadata: metadata,
      problems: videoProblems)
  }

  /// The folder and lower-cased base name a file pairs by, as one byte string: the
  /// path up to its last name, then that name's base lower-cased (a name holds no slash,
  /// so two keys are equal exactly when both the folder and the base are). One array per
  /// file, hashed in one call: every still of an album that holds a movie is keyed.
  private struct Key: Hashable {
    var bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
      bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

  /// The key of `file`; `nil` for a name without a base (no dot, or only a leading one).
  private static func key(of file: ScannedFile) -> Key? {
    file.path.bytes.withUnsafeBufferPointer { path -> Key? in
      let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
      guard let dot = path[nameStart...].lastIndex(of: UInt8(ascii: ".")), dot > nameStart
      else { return nil }
      var end = dot
      // A movie named `IMG_1234_HEVC.MOV` pairs with `IMG_1234.HEIC`.
      let suffix = hevcSuffix
      if file.type == .video, dot - nameStart > suffix.count,
        zip(path[(dot - suffix.count)..<dot], suffix).allSatisfy({ lowercased($0) == $1 })
      {
        end = dot - suffix.count
      }
      var key: [UInt8] = []
      key.reserveCapacity(end)
      key.append(contentsOf: path[..<nameStart])
      for byte in path[nameStart..<end] { key.append(lowercased(byte)) }
      return Key(bytes: key)
    }
  }

  /// The end of a movie's base name that some iCloud download tools add, lower-cased.
  private static let hevcSuffix = Array("_hevc".utf8)

  private static func lowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
  }
}
