import Foundation

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
///   then 3GPP's `udta/loci` (TS 26.244 §8.2.2).
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
  /// problem). The shared corpus's movies have at most 147 boxes in all; 262,144 leaves
  /// room for hours of fragmented MP4 (a `moof` and an `mdat` per fragment) and walks in
  /// about a third of a second (4 million empty boxes took 4.5 s).
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
          + "more than a year from now; it was ignored."))
  }
}

/// One walk over one file's boxes, collecting metadata and problems.
private struct MovieWalk<Source: ByteSource> {
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

  mutating func readUserData(_ userData: BoxHeader, depth: Int) {
    guard var boxes = children(of: userData, depth: depth) else { return }
    while let box = next(&boxes) {
      switch box.type {
      case .userDataLocation where userDataLocation == nil:
        do {
          let item = try UserDataLocationBox(
            parsing: reader.content(of: box, prefix: UserDataLocationBox.maximumLength))
          userDataLocation = ISO6709.location(parsing: item.text)
          if userDataLocation == nil {
            report(
              AssetProblem(
                .invalidValue,
                "The '©xyz' location '\(item.text)' is not an ISO 6709 point; it was ignored."))
          }
        } catch {
          report(error)
        }
      case .locationInformation where locationInformation == nil:
        do {
          let box = try LocationInformationBox(
            parsing: reader.content(of: box, prefix: LocationInformationBox.maximumLength))
          locationInformation = box.location
          if locationInformation == nil {
            report(
              AssetProblem(
                .invalidValue,
                "The 'loci' location \(box.latitude), \(box.longitude) is out of range; "
                  + "it was ignored."))
          }
        } catch {
          report(error)
        }
      case .userDataMake where userDataMake == nil:
        userDataMake = userDataText(box, name: "©mak")
      case .userDataModel where userDataModel == nil:
        userDataModel = userDataText(box, name: "©mod")
      case .userDataDate where userDataDate == nil:
        readUserDataDate(box)
      case .goProMetadata where goProModel == nil:
        readGoProMetadata(box)
      case .metadata: readMetadata(box, depth: depth + 1)
      default: break
      }
    }
  }

  /// The 3GPP `date` item: the text alone, no length or language before it.
  mutating func readUserDataDate(_ box: BoxHeader) {
    let bytes: [UInt8]
    do {
      bytes = try reader.content(of: box, prefix: 64).bytes
    } catch {
      report(error)
      return
    }
    if let text = String(validating: bytes, as: UTF8.self),
      let date = QuickTimeDateText.captureDate(parsing: text)
    {
      userDataDate = date.recorded(as: .threeGPPDate)
    } else {
      let printable = bytes.prefix(40).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }
      report(
        AssetProblem(
          .invalidValue,
          "The 'date' item '\(String(decoding: printable, as: UTF8.self))' is not an ISO 8601 "
            + "date; it was ignored."))
    }
  }

  /// A GoPro camera's `udta/GPMF`: GoPro Metadata Format entries (a four-character key,
  /// a type, a structure size and a 16-bit repeat count, the data padded to 4 bytes; type
  /// 0 nests entries), whose `MINF` is the camera's model (`GoPro Max`, `HERO8 Black`).
  /// At most ``GoProMetadata/maximumLength`` bytes are read.
  mutating func readGoProMetadata(_ box: BoxHeader) {
    let bytes: [UInt8]
    do {
      bytes = try reader.content(of: box, prefix: GoProMetadata.maximumLength).bytes
    } catch {
      report(error)
      return
    }
    guard let text = GoProMetadata.model(in: bytes[...]) else { return }
    goProModel = cameraText(String(decoding: text, as: UTF8.self), name: "GPMF 'MINF'")
  }

  /// A `udta` text item (`©mak`, `©mod`: the layout of ``UserDataLocationBox``), cleaned
  /// as ``CameraText`` says; `nil` (reported) when it is not usable text.
  mutating func userDataText(_ box: BoxHeader, name: String) -> String? {
    do {
      let item = try UserDataLocationBox(
        parsing: reader.content(of: box, prefix: UserDataLocationBox.maximumLength))
      return cameraText(item.text, name: "'\(name)'")
    } catch {
      report(error)
      return nil
    }
  }

  /// `text` cleaned as ``CameraText`` says; `nil` (reported when unusable) otherwise.
  mutating func cameraText(_ text: String, name: String) -> String? {
    do {
      return try CameraText.parse(Array(text.utf8))
    } catch {
      report(AssetProblem(.invalidValue, "The \(name) text \(error.reason); it was ignored."))
      return nil
    }
  }

  /// Reads an Apple `mdta` metadata box: `hdlr`, then `keys`, then `ilst`.
  ///
  /// QuickTime's `meta` is a plain container while ISO/IEC 14496-12 §8.11.1 makes it a full
  /// box; which one this is shows in where the `hdlr` child starts.
  mutating func readMetadata(_ meta: BoxHeader, depth: Int) {
    let start: [UInt8]
    do {
      start = try reader.read(at: meta.contentRange.lowerBound, length: min(12, meta.contentLength))
    } catch {
      report(error)
      return
    }
    let handlerBytes = FourCharacterCode.handler.bytes
    let isFullBox =
      start.count >= 12 && Array(start[4..<8]) != handlerBytes
      && (Array(start[8..<12]) == handlerBytes || start[0..<4].allSatisfy { $0 == 0 })
    guard var boxes = children(of: meta, depth: depth, contentOffset: isFullBox ? 4 : 0) else {
      return
    }
    var handler: FourCharacterCode?
    var keysBox: BoxHeader?
    var itemList: BoxHeader?
    while let box = next(&boxes) {
      switch box.type {
      case .handler where handler == nil:
        do {
          handler = try HandlerBox(parsing: reader.content(of: box, prefix: 64)).handlerType
        } catch {
          report(error)
        }
      case .metadataKeys where keysBox == nil: keysBox = box
      case .metadataItemList where itemList == nil: itemList = box
      default: break
      }
    }
    if handler == .itunesMetadataHandler, let itemList {
      readNamedItems(itemList, depth: depth + 1)
      return
    }
    guard !hasKeyedMetadata, handler == .metadataHandler, let keysBox, let itemList else {
      return
    }
    hasKeyedMetadata = true
    let keys: MetadataKeysBox
    do {
      keys = try MetadataKeysBox(
        parsing: reader.content(of: keysBox, limit: MetadataKeysBox.maximumLength))
    } catch {
      report(error)
      return
    }
    guard var items = children(of: itemList, depth: depth + 1) else { return }
    while let item = next(&items) {
      let index = MetadataItemListBox.keyIndex(of: item)
      guard let name = keys.key(forIndex: index),
        let key = MetadataItemListBox.Key(rawValue: name)
      else { continue }
      readItem(item, key: key, depth: depth + 2)
    }
  }

  /// Reads the items of an iTunes-style `ilst` (handler `mdir`), whose items are named by
  /// their own box type: only `©xyz`, the location, is kept.
  mutating func readNamedItems(_ itemList: BoxHeader, depth: Int) {
    guard itemListLocation == nil, var items = children(of: itemList, depth: depth) else {
      return
    }
    while let item = next(&items) {
      guard item.type == .userDataLocation, let text = firstText(of: item, depth: depth + 1)
      else { continue }
      itemListLocation = ISO6709.location(parsing: text)
      if itemListLocation == nil {
        report(
          AssetProblem(
            .invalidValue,
            "The 'ilst' '©xyz' location '\(text)' is not an ISO 6709 point; it was ignored."))
      }
      return
    }
  }

  /// The text of an item's first `data` box, or `nil` (reported) when it is not text.
  mutating func firstText(of item: BoxHeader, depth: Int) -> String? {
    guard var boxes = children(of: item, depth: depth) else { return nil }
    while let box = next(&boxes) {
      guard box.type == .data else { continue }
      do {
        let value = try MetadataDataBox(
          parsing: reader.content(of: box, limit: MetadataDataBox.maximumLength + 8))
        if let text = value.text { return text }
        report(
          AssetProblem(
            .invalidValue,
            "The item at offset \(box.offset) is not text (type \(value.typeIndicator)); "
              + "it was ignored."))
      } catch {
        report(error)
      }
      return nil
    }
    return nil
  }

  mutating func readItem(_ item: BoxHeader, key: MetadataItemListBox.Key, depth: Int) {
    guard var boxes = children(of: item, depth: depth) else { return }
    while let box = next(&boxes) {
      guard box.type == .data else { continue }
      let value: MetadataDataBox
      do {
        value = try MetadataDataBox(
          parsing: reader.content(of: box, limit: MetadataDataBox.maximumLength + 8))
      } catch {
        report(error)
        return
      }
      guard let text = value.text else {
        report(
          AssetProblem(
            .invalidValue,
            "The '\(key.rawValue)' item at offset \(box.offset) is not text (type "
              + "\(value.typeIndicator)); it was ignored."))
        return
      }
      apply(text, to: key)
      return
    }
  }

  mutating func apply(_ text: String, to key: MetadataItemListBox.Key) {
    switch key {
    case .creationDate:
      if let date = QuickTimeDateText.captureDate(parsing: text) {
        metadata.quickTimeCreationDate = date
      } else {
        report(
          AssetProblem(
            .invalidValue, "The creation date '\(text)' is not an ISO 8601 date; it was ignored."))
      }
    case .location:
      if let location = ISO6709.location(parsing: text) {
        keyedLocation = location
      } else {
        report(
          AssetProblem(
            .invalidValue, "The location '\(text)' is not an ISO 6709 point; it was ignored."))
      }
    case .make:
      if let make = cameraText(text, name: "'\(key.rawValue)'") { metadata.make = make }
    case .model:
      if let model = cameraText(text, name: "'\(key.rawValue)'") { metadata.model = model }
    case .contentIdentifier:
      let identifier = text.trimmingCharacters(
        in: .whitespacesAndNewlines.union(.controlCharacters))
      if identifier.isEmpty {
        report(AssetProblem(.invalidValue, "The content identifier is empty; it was ignored."))
      } else {
        metadata.contentIdentifier = identifier
      }
    }
  }
}

extension QuickTimeMetadataReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }
}
