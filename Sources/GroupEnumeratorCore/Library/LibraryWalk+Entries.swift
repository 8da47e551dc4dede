import FoundationEssentials

/// The entry classifier of the walk: what each entry of a folder is (skipped, a folder to
/// enter, a photo or video, a sidecar, or an other file), from its `d_type`, its name and,
/// when those do not tell, its status and first bytes (``sniff(name:in:path:status:)``).
/// The traversal (``LibraryWalk``) lists the folders and gathers what this decides.
extension LibraryWalk {
  /// What one folder's entries are.
  struct Listing {
    var files: [ScannedFile] = []
    /// Sidecars, attached to `files` (or made other files) once the folder is read.
    var sidecars: [ScannedFile] = []
    /// Files that are not media.
    var others: [OtherFile] = []
    var folders: [[UInt8]] = []
  }

  /// What a regular file is to the walk.
  enum Entry {
    /// An asset of its own: media by name or by content.
    case file(ScannedFile)
    /// A sidecar, to attach to its asset by name (``SidecarMatching``).
    case sidecar(ScannedFile)
    /// Not media: listed, never an asset.
    case other(OtherFile)
  }

  /// Decides what one entry is and records it.
  ///
  /// - Parameter kind: The entry's `d_type`. A folder (`DT_DIR`) and a media-named
  ///   regular file (`DT_REG`) need no `fstatat`: the folder is opened without following
  ///   links anyway, and the file's size and time come from the reader's `fstat` of the
  ///   descriptor it opens (one system call per file fewer). Other kinds, and file
  ///   systems that leave `d_type` unknown, are `fstatat`ed; when that fails, a `DT_REG`
  ///   entry is still listed (as unreadable).
  mutating func classify(
    name: [UInt8], kind: DirectoryEntry.Kind, in folder: FileDescriptor,
    path folderPath: LibraryPath,
    into listing: inout Listing
  ) throws(LibraryError) {
    if name == [0x2E] || name == [0x2E, 0x2E] || name.isEmpty { return }
    if name.first == UInt8(ascii: "."), !options.includesHiddenFiles { return }
    if kind == .directory {
      if isEntered(folder: name, in: folderPath) { listing.folders.append(name) }
      return
    }
    if kind == .regular, !name.starts(with: [0x2E, 0x5F]),
      !MediaSniffer.isSidecar(name: name), let promised = MediaSniffer.format(forName: name)
    {
      try countFile()
      var file = ScannedFile(
        path: folderPath.appending(name), fileSize: 0,
        modificationDate: Date(timeIntervalSince1970: 0), format: nil,
        type: promised.isVideo ? .video : .photo, problem: nil)
      file.needsSniffing = true
      file.needsStatus = true
      listing.files.append(file)
      return
    }
    let status: FileStatus
    do {
      status = try folder.status(ofEntry: name)
    } catch {
      // Listed but not statable (a folder that may be listed but not searched): report
      // media-named entries (as assets) and those `readdir` says are regular files (as
      // other files); anything else, or an entry already gone, is skipped.
      let isMediaName = !MediaSniffer.isSidecar(name: name) && MediaSniffer.isMediaName(name)
      guard error.errno != .noSuchFileOrDirectory, isMediaName || kind == .regular else {
        return
      }
      let path = folderPath.appending(name)
      let problem = AssetProblem(.unreadable, "Cannot read '\(path.escaped)': \(error.errno).")
      guard isMediaName else {
        listing.others.append(
          OtherFile(
            path: path, fileSize: 0, modificationDate: Date(timeIntervalSince1970: 0),
            reason: .unreadable, message: problem.message))
        return
      }
      listing.files.append(
        ScannedFile(
          path: path, fileSize: 0, modificationDate: Date(timeIntervalSince1970: 0),
          format: nil, type: MediaSniffer.isVideoName(name) ? .video : .photo, problem: problem))
      return
    }
    switch status.kind {
    case .directory:
      if isEntered(folder: name, in: folderPath) { listing.folders.append(name) }
    case .regular:
      try countFile()
      switch sniff(name: name, in: folder, path: folderPath.appending(name), status: status) {
      case .file(let file): listing.files.append(file)
      case .sidecar(let file): listing.sidecars.append(file)
      case .other(let file): listing.others.append(file)
      case nil: break  // AppleDouble
      }
    default:
      return  // Symbolic links (not followed), FIFOs, sockets, devices.
    }
  }
}
