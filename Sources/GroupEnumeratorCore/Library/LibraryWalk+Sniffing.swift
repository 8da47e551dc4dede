import FoundationEssentials

extension LibraryWalk {
  /// Whether a `.json` file of `folder` is a Google Takeout sidecar by its content (the
  /// cheap check: at most ``TakeoutSidecar/maximumSize`` bytes, read whole, a JSON object
  /// with a `title` or `photoTakenTime` key).
  static func isTakeoutSidecar(_ file: OtherFile, in folder: FileDescriptor) -> Bool {
    guard (1...Int64(TakeoutSidecar.maximumSize)).contains(file.fileSize)
    else { return false }
    let bytes = try? LibraryFile.withOpened(
      directory: folder, relativePath: file.path.lastComponentBytes, displayPath: file.path
    ) { opened throws(AssetProblem) in
      try opened.bytes(at: 0, length: min(opened.count, TakeoutSidecar.maximumSize + 1))
    }
    return bytes.map(TakeoutSidecar.isTakeoutSidecar) ?? false
  }

  /// Decides what a regular file is: media by its extension when it has a media one (its
  /// content is sniffed later, by the reader), a sidecar by its extension (never read),
  /// else media or not by its first bytes; a file that is media neither by content nor by
  /// name (``MediaSniffer/isMediaName(_:)``) is an other file.
  ///
  /// Names starting `._` are always read here: AppleDouble files carry media extensions
  /// (`._IMG_0001.JPG`) and must never be counted.
  ///
  /// - Returns: The file, sidecar or other file; `nil` for an AppleDouble file.
  func sniff(
    name: [UInt8], in folder: FileDescriptor, path: LibraryPath, status: FileStatus
  ) -> Entry? {
    let promised = MediaSniffer.format(forName: name)
    var file = ScannedFile(
      path: path, fileSize: status.size, modificationDate: status.modificationDate,
      format: nil, type: promised?.isVideo == true ? .video : .photo, problem: nil)
    let mayBeAppleDouble = name.starts(with: [0x2E, 0x5F])
    let isSidecar = promised == nil && MediaSniffer.isSidecar(name: name)
    if isSidecar, !mayBeAppleDouble { return .sidecar(file) }
    let header: [UInt8]
    var isAudioMovie = false
    if status.size == 0 {
      header = []
    } else if promised != nil, !mayBeAppleDouble {
      file.needsSniffing = true
      return .file(file)
    } else {
      do {
        header = try LibraryFile.withOpened(
          directory: folder, relativePath: name, displayPath: path
        ) { file throws(AssetProblem) in
          let header = try file.bytes(at: 0, length: MediaSniffer.headerLength)
          // A movie not named as media may be sound alone (an `.m4a` of a general
          // brand): its tracks tell, from its `moov`, within the movie reader's budgets.
          if promised == nil, !isSidecar, MediaSniffer.audioFormat(ofHeader: header) == nil,
            let format = MediaSniffer.format(ofHeader: header, name: name),
            [.mp4, .m4v, .quickTime, .threeGPP].contains(format)
          {
            isAudioMovie = QuickTimeMetadataReader.isAudioOnly(file)
          }
          return header
        }
      } catch {
        guard promised != nil || (!isSidecar && MediaSniffer.isMediaName(name)) else {
          return .other(
            OtherFile(
              path: path, fileSize: status.size, modificationDate: status.modificationDate,
              reason: .unreadable, message: error.message))
        }
        file.type = MediaSniffer.isVideoName(name) ? .video : .photo
        file.problem = error
        return .file(file)
      }
    }
    if MediaSniffer.isAppleDouble(header: header) { return nil }
    if isSidecar { return .sidecar(file) }
    if promised == nil {
      if let audio = MediaSniffer.audioFormat(ofHeader: header)
        ?? (isAudioMovie ? "a movie of sound tracks only" : nil)
      {
        return .other(LibraryWalk.audio(file, format: audio))
      }
      if MediaSniffer.format(ofHeader: header, name: name) == nil,
        let image = MediaSniffer.unreadImage(ofHeader: header, name: name)
      {
        file.type = .photo
        return .file(LibraryWalk.unreadImage(file, image))
      }
    }
    if let format = MediaSniffer.format(ofHeader: header, name: name) {
      file.format = format
      file.type = format.isVideo ? .video : .photo
      return .file(file)
    }
    guard let promised else {
      guard MediaSniffer.isMediaName(name) else {
        return .other(LibraryWalk.notMedia(file, isEmpty: header.isEmpty))
      }
      return .file(LibraryWalk.unsupported(file, isEmpty: header.isEmpty))
    }
    if header.isEmpty {
      file.problem = AssetProblem(.emptyFile, "'\(path.escaped)' is empty (0 bytes).")
    } else {
      file.problem = AssetProblem(
        .unrecognizedFormat,
        "The content of '\(path.escaped)' is not \(promised.rawValue),"
          + " nor any other photo or video format this library reads.")
    }
    return .file(file)
  }

  /// A file with a photo or video extension no reader takes (an `.x3f`, an `.mpg`) whose
  /// content is no format we know, as an asset: a video when its extension is a video
  /// container's, else a photo, with an ``AssetProblem/Code/unsupported`` problem (or
  /// ``AssetProblem/Code/emptyFile`` when it is empty); its date is the file's time.
  static func unsupported(_ file: ScannedFile, isEmpty: Bool) -> ScannedFile {
    var file = file
    let name = file.path.lastComponentBytes
    file.type = MediaSniffer.isVideoName(name) ? .video : .photo
    if isEmpty {
      file.problem = AssetProblem(.emptyFile, "'\(file.path.escaped)' is empty (0 bytes).")
      return file
    }
    let ext = LibraryPath.escape(Array(name[(name.lastIndex(of: UInt8(ascii: ".")) ?? 0)...]))
    file.problem = AssetProblem(
      .unsupported,
      "'\(file.path.escaped)' is a \(ext) file, a \(file.type.rawValue) format"
        + " GroupEnumerator does not read; it is listed with the file's size and time.")
    return file
  }

  /// An audio file, as an other file: PhotoKit keeps sound out of Photos.
  static func audio(_ file: ScannedFile, format: String) -> OtherFile {
    OtherFile(
      path: file.path, fileSize: file.fileSize, modificationDate: file.modificationDate,
      reason: .audio,
      message: "'\(file.path.escaped)' is audio (\(format)), not a photo or video.")
  }

  /// An image in a format no reader takes, as a photo with an
  /// ``AssetProblem/Code/unsupported`` problem and the pixel size its header gave (its
  /// type is the caller's: a photo, or what its extension counted it as).
  static func unreadImage(_ file: ScannedFile, _ image: MediaSniffer.UnreadImage) -> ScannedFile {
    var file = file
    file.unreadImage = image
    let size = image.width.flatMap { width in image.height.map { "\(width)×\($0)" } }
    file.problem = AssetProblem(
      .unsupported,
      "'\(file.path.escaped)' is a \(image.name) image, a photo format GroupEnumerator does not"
        + " read; it is listed with "
        + (size.map { "its header's size (\($0)) and " } ?? "")
        + "the file's size and time.")
    return file
  }

  /// A file that is neither media by name nor by content, as an other file whose message
  /// says what it is.
  static func notMedia(_ file: ScannedFile, isEmpty: Bool) -> OtherFile {
    let name = file.path.lastComponentBytes
    let what: String
    if isEmpty {
      what = "is an empty file (0 bytes), not"
    } else if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex,
      dot < name.index(before: name.endIndex)
    {
      what = "is a \(LibraryPath.escape(Array(name[dot...]))) file, not"
    } else {
      what = "has no extension and its content is not"
    }
    return OtherFile(
      path: file.path, fileSize: file.fileSize, modificationDate: file.modificationDate,
      reason: .notMedia,
      message: "'\(file.path.escaped)' \(what) a photo or video GroupEnumerator can read.")
  }
}
