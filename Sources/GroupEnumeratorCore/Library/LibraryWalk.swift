import FoundationEssentials

/// One walk of a library, the traversal: the state behind
/// ``LibraryScanner/scan(in:scope:isCancelled:didListFolder:)``. It lists the folders,
/// files what the entry classifier (`LibraryWalk+Entries.swift`) makes of each entry in
/// its group (the Camera Roll or the folder's album), attaches sidecars, and reports the
/// folders it cannot list.
///
/// Depth-first with an explicit stack. Each stack frame is an open folder on the current
/// path whose entries have all been read and whose files have all been sniffed; only its
/// subfolders are still pending. So at most one folder per level is open at a time.
struct LibraryWalk {
  /// A folder on the current path.
  private struct Frame {
    /// The open folder listing (its descriptor is the base for `*at` calls).
    var stream: DirectoryStream
    var path: LibraryPath
    var depth: Int
    /// Subfolder names still to visit, last first.
    var pendingFolders: [[UInt8]]
  }

  /// Folder names that NAS software fills with thumbnails and deleted files.
  private static let skippedFolderNames: Set<[UInt8]> = [
    Array("@eaDir".utf8), Array("#recycle".utf8), Array(".@__thumb".utf8),
  ]

  /// How many files are read between two polls of `isCancelled`.
  private static let filesPerCancellationCheck = 256

  let options: LibraryOptions
  private let isCancelled: () -> Bool
  /// Called with each folder's path once its entries are read, before any subfolder is
  /// entered: a test seam for swapping a folder under the walk.
  private let didListFolder: (LibraryPath) -> Void
  private var frames: [Frame] = []
  private var cameraRoll: [ScannedFile] = []
  private var albums: [LibraryPath: [ScannedFile]] = [:]
  private var otherFiles: [OtherFile] = []
  private var folderProblems: [FolderProblem] = []
  private var filesSinceCheck = 0

  init(
    options: LibraryOptions, isCancelled: @escaping () -> Bool,
    didListFolder: @escaping (LibraryPath) -> Void = { _ in }
  ) {
    self.options = options
    self.isCancelled = isCancelled
    self.didListFolder = didListFolder
  }

  /// Walks every folder below `root`.
  ///
  /// - Throws: ``LibraryError`` when the root cannot be listed or the walk is cancelled.
  mutating func run(root: LibraryRoot) throws(LibraryError) {
    defer {
      for frame in frames { frame.stream.close() }
      frames.removeAll()
    }
    try checkCancellation()
    // A descriptor of its own for listing the root, so its offset is never shared with
    // the root descriptor other readers use.
    let stream: DirectoryStream
    do throws(SystemCallError) {
      let listing = try root.descriptor.open(
        at: Array(".".utf8), options: [.directory, .closeOnExec])
      do {
        stream = try DirectoryStream(listing)
      } catch {
        listing.close()
        throw error
      }
    } catch {
      throw LibraryRoot.error(error, path: root.path)
    }
    frames.append(Frame(stream: stream, path: .root, depth: 0, pendingFolders: []))
    if let failure = try read(into: frames.count - 1) {
      throw LibraryRoot.error(failure, path: root.path)
    }
    try descend()
  }

  /// Lists only the folders `scope` names: each of ``WalkScope/folders`` alone, each of
  /// ``WalkScope/subtrees`` with everything below it, the same way ``run(root:)`` lists
  /// them (same classification, sidecars, groups). A folder the full walk would not
  /// enter (hidden, a NAS folder, left out by the selection, too deep, reached through a
  /// symbolic link) or that is gone is not listed. A scope naming the root as a subtree
  /// is the full walk.
  ///
  /// - Throws: ``LibraryError`` when the root cannot be listed or the walk is cancelled.
  mutating func run(root: LibraryRoot, scope: WalkScope) throws(LibraryError) {
    if scope.subtrees.contains(.root) { return try run(root: root) }
    defer {
      for frame in frames { frame.stream.close() }
      frames.removeAll()
    }
    let subtrees = scope.subtrees.filter { tree in
      !scope.subtrees.contains { $0 != tree && $0.encloses(tree) }
    }
    let alone = scope.folders.filter { folder in !subtrees.contains { $0.encloses(folder) } }
    for path in (subtrees.union(alone)).sorted() {
      try checkCancellation()
      guard isWalked(path), let descriptor = root.openFolder(path) else {
        continue
      }
      guard try push(descriptor, path: path, depth: path.componentBytes.count) else { continue }
      if !subtrees.contains(path) { frames[frames.count - 1].pendingFolders = [] }
      try descend()
    }
  }

  /// Whether the full walk lists the folder at `path`: every folder on the way is one it
  /// enters, and it is no deeper than ``LibraryScanner/maximumDepth``.
  private func isWalked(_ path: LibraryPath) -> Bool {
    let components = path.componentBytes
    guard components.count <= LibraryScanner.maximumDepth else { return false }
    var parent = LibraryPath.root
    for name in components {
      guard !name.isEmpty, name != [0x2E], name != [0x2E, 0x2E],
        name.first != UInt8(ascii: ".") || options.includesHiddenFiles,
        isEntered(folder: name, in: parent)
      else { return false }
      parent = parent.appending(name)
    }
    return true
  }

  /// Enters the pending subfolders of the frames on the stack, depth first, until the
  /// stack is empty.
  private mutating func descend() throws(LibraryError) {
    while let top = frames.last {
      guard let name = frames[frames.count - 1].pendingFolders.popLast() else {
        top.stream.close()
        frames.removeLast()
        continue
      }
      try checkCancellation()
      try enter(folder: name, of: top)
    }
  }

  /// `files` in the order of their paths' bytes. Their positions are sorted, not the
  /// files: a file is many words long, and a sort moves what it sorts many times.
  private static func sortedByPath(_ files: [ScannedFile]) -> [ScannedFile] {
    files.indices.sorted { files[$0].path < files[$1].path }.map { files[$0] }
  }

  /// The walk's findings: the Camera Roll (when it has files), then albums by path bytes,
  /// files by path bytes; other files and folder problems by path bytes.
  func result() -> LibraryScan {
    var groups: [ScannedGroup] = []
    if !cameraRoll.isEmpty {
      groups.append(
        ScannedGroup(
          kind: .savedPhotos, path: .root, files: Self.sortedByPath(cameraRoll)))
    }
    for (path, files) in albums.sorted(by: { $0.key < $1.key }) {
      groups.append(ScannedGroup(kind: .album, path: path, files: Self.sortedByPath(files)))
    }
    return LibraryScan(
      groups: groups, otherFiles: otherFiles.sorted { $0.path < $1.path },
      folderProblems: folderProblems.sorted { $0.path < $1.path })
  }

  // MARK: - Folders

  /// Opens the subfolder `name` of `parent`, reads it, and pushes it when it has
  /// subfolders of its own; a folder that cannot be read becomes a ``FolderProblem``.
  private mutating func enter(folder name: [UInt8], of parent: Frame) throws(LibraryError) {
    let path = parent.path.appending(name)
    guard parent.depth < LibraryScanner.maximumDepth else {
      folderProblems.append(
        FolderProblem(
          path: path,
          problem: AssetProblem(
            .unreadableFolder,
            "The folder '\(path.escaped)' is nested more than \(LibraryScanner.maximumDepth)"
              + " folders deep; it was not read.")))
      return
    }
    let descriptor: FileDescriptor
    do {
      descriptor = try parent.stream.descriptor.open(at: name, options: BeneathOpener.folderOptions)
    } catch {
      // Gone, or replaced by a link or a file since it was listed: nothing to read there.
      if error.errno == .noSuchFileOrDirectory || error.errno == .tooManySymbolicLinkLevels
        || error.errno == .notDirectory
      {
        return
      }
      // The message has always named the call `open`.
      reportUnreadable(folder: path, SystemCallError(function: "open", errno: error.errno))
      return
    }
    _ = try push(descriptor, path: path, depth: parent.depth + 1)
  }

  /// Lists the open folder `descriptor` at `path` (``read(into:)``) as a new frame on top
  /// of the stack; a folder that cannot be listed becomes a ``FolderProblem``.
  ///
  /// - Returns: Whether the frame was pushed (`false` when the listing could not start;
  ///   the descriptor is then closed).
  private mutating func push(
    _ descriptor: FileDescriptor, path: LibraryPath, depth: Int
  ) throws(LibraryError) -> Bool {
    let stream: DirectoryStream
    do {
      stream = try DirectoryStream(descriptor)
    } catch {
      descriptor.close()
      reportUnreadable(folder: path, error)
      return false
    }
    frames.append(Frame(stream: stream, path: path, depth: depth, pendingFolders: []))
    if let failure = try read(into: frames.count - 1) {
      reportUnreadable(folder: path, failure)
    }
    return true
  }

  private mutating func reportUnreadable(folder path: LibraryPath, _ failure: SystemCallError) {
    folderProblems.append(
      FolderProblem(
        path: path,
        problem: AssetProblem(
          .unreadableFolder,
          "Cannot read the folder '\(path.escaped)': \(failure). Its files are not listed.")))
  }

  /// Lists the folder of frame `index`, files its media in their group (each sidecar
  /// attached to its asset) and the rest as other files, and records its subfolders as
  /// pending.
  ///
  /// - Returns: The failed `readdir`, or `nil`; what was read before the failure is kept.
  private mutating func read(into index: Int) throws(LibraryError) -> SystemCallError? {
    let frame = frames[index]
    let folder = frame.stream.descriptor
    var listing = Listing()
    var failure: SystemCallError?
    while true {
      let entry: DirectoryEntry
      do {
        guard let next = try frame.stream.next() else { break }
        entry = next
      } catch {
        failure = error
        break
      }
      try classify(
        name: entry.name, kind: entry.kind, in: folder, path: frame.path, into: &listing)
    }
    frames[index].pendingFolders = listing.folders.sorted { $1.lexicographicallyPrecedes($0) }
    didListFolder(frame.path)
    listing.others += SidecarMatching.attach(listing.sidecars, to: &listing.files)
    SidecarMatching.attachTakeoutSidecars(from: &listing.others, to: &listing.files) { file in
      Self.isTakeoutSidecar(file, in: folder)
    }
    if !options.selection.selectsEverything {
      listing.files.removeAll { !options.selection.includesFile(at: $0.path) }
      listing.others.removeAll { !options.selection.includesFile(at: $0.path) }
    }
    otherFiles += listing.others
    guard !listing.files.isEmpty else { return failure }
    if LibraryWalk.isCameraRoll(frame.path) {
      cameraRoll += listing.files
    } else {
      albums[frame.path, default: []] += listing.files
    }
    return failure
  }

  /// Whether files of the folder at `path` belong to the Camera Roll: the root itself and
  /// everything under a top-level `DCIM` (any ASCII case).
  static func isCameraRoll(_ path: LibraryPath) -> Bool {
    guard let first = path.componentBytes.first else { return true }
    return first.count == 4 && first.map { $0 & 0xDF }.elementsEqual(Array("DCIM".utf8))
  }

  /// Whether the walk enters the subfolder `name` of the folder at `path`: not a NAS
  /// folder, not excluded by ``LibraryOptions/selection``.
  func isEntered(folder name: [UInt8], in path: LibraryPath) -> Bool {
    guard !LibraryWalk.skippedFolderNames.contains(name) else { return false }
    return options.selection.selectsEverything
      || options.selection.includesFolder(at: path.appending(name))
  }

  // MARK: - Cancellation

  /// Counts one more regular file, polling for cancellation every
  /// ``filesPerCancellationCheck`` files.
  mutating func countFile() throws(LibraryError) {
    filesSinceCheck += 1
    if filesSinceCheck >= LibraryWalk.filesPerCancellationCheck {
      filesSinceCheck = 0
      try checkCancellation()
    }
  }

  private func checkCancellation() throws(LibraryError) {
    if isCancelled() { throw LibraryError.cancelled }
  }
}
