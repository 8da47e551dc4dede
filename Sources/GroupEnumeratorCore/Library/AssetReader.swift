import FoundationEssentials

/// Turns one scanned file into an asset: opens it beneath the root, hands it to the
/// reader for its format, and files every failure under the asset.
enum AssetReader {
  /// Reads `job`'s file. Never throws: problems end up in the asset. A file the walk
  /// gave a problem (unreadable, or media no reader takes) is not opened.
  /// The file's sidecars become resources after it; its `.xmp` and Takeout `.json`
  /// sidecars are read where its own metadata has no date or no place
  /// (``SidecarReader``).
  ///
  /// A file the walk listed by its extension (``ScannedFile/needsSniffing``) is opened
  /// once: its first read (``PrefetchedByteSource/firstReadLength(count:)``) decides its
  /// format and is then the reader's first bytes too.
  ///
  /// - Parameter root: The open library root; the caller holds it while the file is read.
  static func read(_ job: ReadJob, root: LibraryRoot) -> Asset {
    var file = job.file
    var metadata = MediaMetadata()
    if let problem = file.problem {
      metadata.report(problem)
      metadata.pixelWidth = file.unreadImage?.width
      metadata.pixelHeight = file.unreadImage?.height
    } else if let format = file.format {
      metadata = readMetadata(of: file.path, format: format, root: root)
    } else if file.needsSniffing {
      (file, metadata) = sniffAndRead(file, root: root)
    }
    if !file.sidecars.isEmpty {
      // After the media file is closed; only where its own metadata left a gap.
      SidecarReader.apply(file.sidecars, root: root, to: &metadata)
    }
    let role: AssetResource.Role = file.type == .video ? .video : .photo
    var type = file.type
    var resources = [
      AssetResource(path: file.path, role: role, format: file.format, fileSize: file.fileSize)
    ]
    if type == .photo, let range = metadata.embeddedVideoRange {
      // A motion photo: the still and the video inside its file are one Live Photo.
      type = .livePhoto
      resources.append(
        AssetResource(
          path: file.path, role: .pairedVideo, format: .mp4, fileSize: Int64(range.count),
          byteRange: Int64(range.lowerBound)..<Int64(range.upperBound)))
    }
    return Asset(
      path: file.path, group: job.group.kind, groupPath: job.group.path, type: type,
      resources: resources + file.sidecars,
      fileModificationDate: file.modificationDate, metadata: metadata)
  }

  /// Opens a file listed by its extension, sniffs its content from the first read, and
  /// reads its metadata with the reader for what the content is.
  ///
  /// - Returns: The file with its format (or problem) decided, and its metadata.
  static func sniffAndRead(
    _ file: ScannedFile, root: LibraryRoot
  ) -> (ScannedFile, MediaMetadata) {
    var file = file
    var metadata = MediaMetadata()
    do {
      metadata = try LibraryFile.withOpened(root: root, path: file.path) {
        opened throws(AssetProblem) in
        if file.needsStatus {
          file.fileSize = Int64(opened.count)
          file.modificationDate = opened.modificationDate
          file.needsStatus = false
        }
        let prefix = try opened.bytes(
          at: 0, length: PrefetchedByteSource<LibraryFile>.firstReadLength(count: opened.count))
        let note: AssetProblem?
        (file, note) = sniffed(file, header: prefix)
        guard file.problem == nil, let format = file.format else { return MediaMetadata() }
        var metadata = readMetadata(
          from: PrefetchedByteSource(
            opened, prefix: prefix, verifiesEnds: root.verifiesFileEnds),
          format: format)
        if let note { metadata.problems.insert(note, at: 0) }
        return metadata
      }
    } catch {
      file.problem = error
    }
    if file.needsStatus {
      // Not opened (unreadable, vanished…): the size and time of what is there, if any.
      file.needsStatus = false
      if let status = BeneathOpener.status(in: root.descriptor, relativePath: file.path.bytes) {
        file.fileSize = max(0, status.size)
        file.modificationDate = status.modificationDate
      }
    }
    if let problem = file.problem {
      metadata.report(problem)
      metadata.pixelWidth = file.unreadImage?.width
      metadata.pixelHeight = file.unreadImage?.height
    }
    return (file, metadata)
  }

  /// Decides the format of a file listed by its extension from its first bytes.
  ///
  /// The file's type stays the extension's (it was counted so); the content decides the
  /// format, and so the reader: a movie named `.jpg` is read by the QuickTime reader, never
  /// by gexiv2. Content that is not media (nor empty) is a problem, as in the walk.
  ///
  /// - Returns: The file with `format` or `problem` set, and a ``AssetProblem/Code/misnamed``
  ///   note when the content is a video and the name a photo, or the other way round.
  static func sniffed(_ file: ScannedFile, header: [UInt8]) -> (ScannedFile, AssetProblem?) {
    var file = file
    file.needsSniffing = false
    let name = file.path.lastComponentBytes
    let format =
      MediaSniffer.isAppleDouble(header: header)
      ? nil : MediaSniffer.format(ofHeader: header, name: name)
    guard let format else {
      if !header.isEmpty, let image = MediaSniffer.unreadImage(ofHeader: header, name: name) {
        return (LibraryWalk.unreadImage(file, image), nil)
      }
      if header.isEmpty {
        file.problem = AssetProblem(.emptyFile, "'\(file.path.escaped)' is empty (0 bytes).")
      } else {
        let promised = MediaSniffer.format(forName: name)?.rawValue ?? "media"
        file.problem = AssetProblem(
          .unrecognizedFormat,
          "The content of '\(file.path.escaped)' is not \(promised),"
            + " nor any other photo or video format this library reads.")
      }
      return (file, nil)
    }
    file.format = format
    guard format.isVideo != (file.type == .video) else { return (file, nil) }
    let named = file.type == .video ? "a video" : "a photo"
    let listed = file.type == .video ? "video" : "photo"
    return (
      file,
      AssetProblem(
        .misnamed,
        "'\(file.path.escaped)' is named like \(named) but its content is \(format.rawValue);"
          + " it is listed as a \(listed) and read as \(format.rawValue).")
    )
  }

  /// Reads the metadata of one file whose content sniffed as `format`.
  static func readMetadata(
    of path: LibraryPath, format: MediaFormat, root: LibraryRoot
  ) -> MediaMetadata {
    do {
      return try LibraryFile.withOpened(root: root, path: path) {
        file throws(AssetProblem) in
        readMetadata(
          from: PrefetchedByteSource(file, verifiesEnds: root.verifiesFileEnds), format: format)
      }
    } catch {
      var metadata = MediaMetadata()
      metadata.report(error)
      return metadata
    }
  }

  /// Reads metadata from an open file whose content sniffed as `format`, with the reader
  /// ``MetadataReaderTable`` names for it.
  ///
  /// A motion photo's still (``MediaMetadata/embeddedVideoRange``) gets the duration of
  /// the video inside it, and its dates where the still has none, as a Live Photo gets
  /// its movie's (see ``LivePhotoPairing/merge(still:video:)``).
  static func readMetadata(
    from source: PrefetchedByteSource<LibraryFile>, format: MediaFormat
  ) -> MediaMetadata {
    var metadata = MetadataReaderTable.read(from: source, format: format)
    if let range = metadata.embeddedVideoRange {
      let video = embeddedVideoMetadata(in: source, range: range)
      metadata.duration = video.duration
      metadata.quickTimeCreationDate = video.quickTimeCreationDate
      metadata.movieHeaderCreationDate = video.movieHeaderCreationDate
      for problem in video.problems {
        metadata.report(AssetProblem(problem.code, "The embedded video: \(problem.message)"))
      }
    }
    return metadata
  }

  /// The metadata of the video inside a motion photo, read by the QuickTime reader from
  /// its bytes alone.
  static func embeddedVideoMetadata(in source: some ByteSource, range: Range<Int>)
    -> MediaMetadata
  {
    QuickTimeMetadataReader.read(from: SliceByteSource(source, range: range))
  }

  /// The metadata of the video inside a motion photo's file at `path`.
  static func embeddedVideoMetadata(
    of path: LibraryPath, range: Range<Int64>, root: LibraryRoot
  ) -> MediaMetadata {
    guard let start = Int(exactly: range.lowerBound), let end = Int(exactly: range.upperBound)
    else { return MediaMetadata() }
    do {
      return try LibraryFile.withOpened(root: root, path: path) {
        file throws(AssetProblem) in embeddedVideoMetadata(in: file, range: start..<end)
      }
    } catch {
      var metadata = MediaMetadata()
      metadata.report(error)
      return metadata
    }
  }
}
