import FoundationEssentials

/// Reads a QuickTime movie's or an ISO base media file's (MP4, M4V, 3GP) metadata with
/// our own bounds-checked box reader: no C library ever sees the bytes.
///
/// What it reads:
/// - `moov/mvhd`: creation time as a UTC instant, and duration.
/// - the first video track (`trak` whose `mdia/hdlr` handler is `vide`): `tkhd` width and
///   height as stored, and its matrix as an EXIF ``MediaMetadata/orientation`` (1…8).
///   Width and height are *not* swapped for a quarter turn; orientation 6 or 8 makes
///   ``MediaMetadata/displayedWidth`` and ``MediaMetadata/displayedHeight`` swap them,
///   as for photos.
/// - Apple keyed metadata (`moov/meta` or `moov/udta/meta` with handler `mdta`, `keys`
///   and `ilst`): `com.apple.quicktime.creationdate`, `…location.ISO6709` and
///   `…content.identifier`, `…make` and `…model`.
/// - `moov/udta/©mak` and `©mod` (QuickTime user data text), the make and model when the
///   keyed ones are absent.
/// - `moov/udta/©xyz`, used for the location when Apple's key is absent; then `©xyz` as an
///   item of `udta/meta/ilst` (handler `mdir`, where ffmpeg and most re-encoders write it);
///   then 3GPP's `udta/loci`.
///
/// How it stays safe on hostile files (docs/Robustness.md): it reads one box header
/// at a time and descends only into `moov`, `trak`, `mdia`, `udta`, `meta`, `ilst` and
/// the `ilst` items, never deeper than ``BoxReader/maximumDepth``; it skips every other
/// box by its size without loading it, so a huge `mdat` costs one header read (the top
/// level is walked to its end, so that a truncated trailing `mdat` is reported: a top-level
/// box, or header, that runs past the end of the file is a ``AssetProblem/Code/truncated``
/// problem, and the boxes inside it that the cut clamps are not reported again); it walks
/// at most ``maximumBoxCount`` boxes; a box larger than its parent is read as truncated;
/// each box's content is loaded up to a small fixed limit.
enum QuickTimeMetadataReader {
  /// The most boxes one file's walk visits before giving up (with an `unsupported`
  /// problem). Real movies hold a few hundred boxes; 262,144 leaves room for hours of
  /// fragmented MP4 (a `moof` and an `mdat` per fragment) while a hostile file's walk
  /// stays short (docs/Robustness.md has the figures).
  static let maximumBoxCount = 1 << 18

  /// Seconds from 1904-01-01 to 1970-01-01, both UTC.
  static let secondsFrom1904To1970: UInt64 = 2_082_844_800

  /// Reads everything the engine needs from a movie file. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  static func read(from source: some ByteSource) -> MediaMetadata {
    read(from: source, now: Date())
  }

  /// Reads a movie file, judging creation times against `now` (later than a year ahead
  /// of it is implausible) and walking at most `boxLimit` boxes.
  static func read(
    from source: some ByteSource, now: Date, boxLimit: Int = maximumBoxCount
  ) -> MediaMetadata {
    var walk = MovieWalk(reader: BoxReader(source: source), now: now, boxLimit: boxLimit)
    walk.readFile()
    return walk.finish()
  }

  /// Whether a movie holds sound tracks and no video track (an `.m4a` whose brand is a
  /// general one): such a file is audio, not a video. Walks the boxes as ``read(from:)``
  /// does, within the same budgets. A movie whose walk found any problem is not called
  /// audio: a damaged video track may be what is missing.
  static func isAudioOnly(_ source: some ByteSource) -> Bool {
    var walk = MovieWalk(reader: BoxReader(source: source), now: Date(), boxLimit: maximumBoxCount)
    walk.readFile()
    return !walk.hasVideoTrack && walk.hasSoundTrack && walk.metadata.problems.isEmpty
  }

  /// The movie header's creation time as a UTC capture date.
  ///
  /// - Returns: `.success(nil)` for 0 (not set); a failure message for a time before 1970
  ///   or more than a year after `now`.
  static func movieHeaderDate(secondsSince1904 seconds: UInt64, now: Date) -> Result<
    CaptureDate?, AssetProblem
  > {
    guard seconds != 0 else { return .success(nil) }
    let latest = now.timeIntervalSince1970 + 366 * 86_400
    if seconds >= secondsFrom1904To1970,
      let unix = Int64(exactly: seconds - secondsFrom1904To1970), Double(unix) <= latest,
      let date = CaptureDate(
        utc: Date(timeIntervalSince1970: Double(unix)), source: .quickTimeMovieHeader)
    {
      return .success(date)
    }
    return .failure(
      AssetProblem(
        .invalidValue,
        "The movie header's creation time (\(seconds) seconds since 1904) is before 1970 or "
          + "\(AssetProblem.dateDependentWords); it was ignored."))
  }
}

/// One walk over one file's boxes, collecting metadata and problems.
struct MovieWalk<Source: ByteSource> {
  let reader: BoxReader<Source>
  let now: Date
  let boxLimit: Int
  var metadata = MediaMetadata()
  var boxCount = 0
  var isOverBudget = false
  /// Whether a top-level box ran past the end of the file (reported as truncated).
  var isTruncated = false
  var hasMovieHeader = false
  var hasVideoTrack = false
  var hasSoundTrack = false
  var hasKeyedMetadata = false
  var keyedLocation: Location?
  var userDataLocation: Location?
  var itemListLocation: Location?
  var locationInformation: Location?
  var userDataMake: String?
  var userDataModel: String?
  var userDataDate: CaptureDate?
  var goProModel: String?

  init(reader: BoxReader<Source>, now: Date, boxLimit: Int) {
    self.reader = reader
    self.now = now
    self.boxLimit = boxLimit
  }

  mutating func finish() -> MediaMetadata {
    metadata.location = keyedLocation ?? userDataLocation ?? itemListLocation ?? locationInformation
    metadata.make = metadata.make ?? userDataMake
    metadata.model = metadata.model ?? userDataModel ?? goProModel
    metadata.quickTimeCreationDate = metadata.quickTimeCreationDate ?? userDataDate
    return metadata
  }

  mutating func report(_ error: BoxParsingError) { metadata.report(error.assetProblem) }

  mutating func report(_ problem: AssetProblem) { metadata.report(problem) }

  /// The next box of a walk, reporting (and ending the walk on) malformed headers.
  mutating func next(_ boxes: inout BoxIterator<Source>) -> BoxHeader? {
    guard !isOverBudget else { return nil }
    let header: BoxHeader?
    do {
      header = try boxes.next()
    } catch {
      if boxes.depth == 0, case .truncatedHeader = error {
        isTruncated = true
        report(AssetProblem(.truncated, error.description))
      } else {
        report(error)
      }
      return nil
    }
    guard let header else { return nil }
    boxCount += 1
    guard boxCount <= boxLimit else {
      isOverBudget = true
      // `unsupported`, like every other budget: the file may be fine, only too costly.
      let message = BoxParsingError.tooManyBoxes(limit: boxLimit).assetProblem.message
      metadata.reportTrippedBudget(AssetProblem(.unsupported, message))
      return nil
    }
    if let truncation = header.truncation {
      if boxes.depth == 0 {
        // The file ends inside a top-level box: it was cut short.
        isTruncated = true
        report(AssetProblem(.truncated, truncation.description))
      } else if !(isTruncated && header.end == reader.source.count) {
        // Clamped by the cut that was reported already, or else malformed.
        report(truncation)
      }
    }
    return header
  }

  /// A walk over a box's children, or `nil` (reported) when they would lie too deep.
  mutating func children(of parent: BoxHeader, depth: Int, contentOffset: Int = 0)
    -> BoxIterator<Source>?
  {
    do {
      return try BoxIterator(
        childrenOf: parent, depth: depth, reader: reader, contentOffset: contentOffset)
    } catch {
      report(error)
      return nil
    }
  }

  /// Walks the top level to its end, reading the first `moov`. Boxes after it are walked
  /// too (one header each) so that a file cut short in its trailing `mdat` is reported.
  mutating func readFile() {
    var boxes = BoxIterator(topLevelOf: reader)
    var hasMovie = false
    while let box = next(&boxes) {
      if box.type == .movie, !hasMovie {
        hasMovie = true
        readMovie(box)
      }
    }
    if !hasMovie, !isOverBudget {  // Past the budget, where a 'moov' is is unknown.
      report(AssetProblem(.malformed, "The file has no 'moov' box, so no movie metadata."))
    }
  }

  mutating func readMovie(_ movie: BoxHeader) {
    guard var boxes = children(of: movie, depth: 0) else { return }
    // The walk below reads many small headers inside it: fetch the box in one read.
    reader.source.prefetch(movie.offset..<movie.end)
    while let box = next(&boxes) {
      switch box.type {
      case .movieHeader where !hasMovieHeader:
        hasMovieHeader = true
        readMovieHeader(box)
      case .track where !hasVideoTrack: readTrack(box, depth: 1)
      case .userData: readUserData(box, depth: 1)
      case .metadata: readMetadata(box, depth: 1)
      default: break
      }
    }
    if !hasMovieHeader {
      report(AssetProblem(.malformed, "The 'moov' box has no 'mvhd' movie header."))
    }
  }

  mutating func readMovieHeader(_ box: BoxHeader) {
    let header: MovieHeaderBox
    do {
      header = try MovieHeaderBox(
        parsing: reader.content(of: box, prefix: MovieHeaderBox.loadLength))
    } catch {
      report(error)
      return
    }
    switch QuickTimeMetadataReader.movieHeaderDate(
      secondsSince1904: header.creationTime, now: now)
    {
    case .success(let date): metadata.movieHeaderCreationDate = date
    case .failure(let problem): report(problem)
    }
    if header.timescale == 0 {
      report(
        AssetProblem(
          .invalidValue,
          "The movie header at offset \(box.offset) has a timescale of 0; the duration was "
            + "ignored."))
    }
    metadata.duration = header.seconds
  }

  mutating func readTrack(_ track: BoxHeader, depth: Int) {
    guard var boxes = children(of: track, depth: depth) else { return }
    var trackHeader: TrackHeaderBox?
    var handler: FourCharacterCode?
    while let box = next(&boxes) {
      switch box.type {
      case .trackHeader where trackHeader == nil:
        do {
          trackHeader = try TrackHeaderBox(
            parsing: reader.content(of: box, prefix: TrackHeaderBox.loadLength))
        } catch {
          report(error)
        }
      case .media where handler == nil:
        handler = readMediaHandler(box, depth: depth + 1)
      default: break
      }
    }
    if handler == .soundHandler { hasSoundTrack = true }
    guard handler == .videoHandler, let trackHeader else { return }
    hasVideoTrack = true
    metadata.pixelWidth = trackHeader.width
    metadata.pixelHeight = trackHeader.height
    metadata.orientation = trackHeader.orientation
    if trackHeader.orientation == nil {
      report(
        AssetProblem(
          .unsupported,
          "The video track's matrix \(trackHeader.matrix) is not a quarter turn or a mirror; "
            + "its orientation was ignored."))
    }
  }

  /// The handler type in `mdia/hdlr`.
  mutating func readMediaHandler(_ media: BoxHeader, depth: Int) -> FourCharacterCode? {
    guard var boxes = children(of: media, depth: depth) else { return nil }
    while let box = next(&boxes) {
      guard box.type == .handler else { continue }
      do {
        return try HandlerBox(parsing: reader.content(of: box, prefix: 64)).handlerType
      } catch {
        report(error)
        return nil
      }
    }
    return nil
  }

}

extension QuickTimeMetadataReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }
}
