import FoundationEssentials

/// One photo or video found by the walk (not read yet), by its name or its content.
/// Files that are neither are ``OtherFile``s, not scanned files.
struct ScannedFile: Sendable, Hashable {
  /// Path relative to the root.
  var path: LibraryPath
  /// Size in bytes from `fstatat`.
  var fileSize: Int64
  /// Modification time from `fstatat`.
  var modificationDate: Date
  /// The format sniffed from the first bytes; `nil` when the content is not a known
  /// media format (then `problem` says why, and the extension chose the type), or when
  /// the content is still to be sniffed (``needsSniffing``).
  var format: MediaFormat?
  /// `.photo` or `.video` (never `.livePhoto`: pairing happens later). For a file with a
  /// media extension it is the extension's type, and it stays so whatever the content
  /// turns out to be: it was counted in the run's `total` before anything was read.
  var type: AssetType
  /// Why the file could not be sniffed, if it could not.
  var problem: AssetProblem?
  /// Whether the walk only `fstatat`ed the file because its extension names a media
  /// format: its content is sniffed by the reader, from the first read it makes anyway
  /// (``AssetReader/sniffed(_:header:)``), so every file is opened once.
  var needsSniffing = false
  /// Whether ``fileSize`` and ``modificationDate`` are still to be filled in: the walk
  /// did not `fstatat` the file (its `d_type` said it is regular), and the reader takes
  /// them from its `fstat` of the open file.
  var needsStatus = false
  /// Sidecars (``MediaSniffer/isSidecar(name:)``) of this file in its folder, with role
  /// ``AssetResource/Role/sidecar``: extra resources of its asset (``SidecarReader``
  /// reads the `.xmp` and Takeout `.json` ones where the file left a gap).
  var sidecars: [AssetResource] = []
  /// An image format no reader takes (its ``problem`` says so), with the pixel size its
  /// header gave, which becomes the asset's.
  var unreadImage: MediaSniffer.UnreadImage?
}

/// One group found by the walk, its files sorted by path bytes.
struct ScannedGroup: Sendable, Hashable {
  var kind: AssetGroup.Kind
  /// The folder: the root for the Camera Roll.
  var path: LibraryPath
  var files: [ScannedFile]
}

/// What a walk of the library found.
struct LibraryScan: Sendable {
  /// The Camera Roll first (when it has files), then albums sorted by path bytes.
  var groups: [ScannedGroup]
  /// The files that are not assets, sorted by path bytes.
  var otherFiles: [OtherFile] = []
  /// Folders that could not be listed, each with the reason.
  var folderProblems: [FolderProblem]
}

/// A folder that could not be read during the walk.
struct FolderProblem: Sendable, Hashable {
  var path: LibraryPath
  var problem: AssetProblem
}

/// Walks a library folder with `openat`/`fdopendir`, never following symbolic links out
/// of the root, keeping names as bytes.
///
/// The walk is iterative (an explicit stack, at most ``maximumDepth`` folders deep) and
/// holds one open folder per level of the current path. A regular file whose extension
/// names a media format is only `fstatat`ed: its type comes from the extension, and its
/// content is sniffed later by the reader, which opens it once (a movie named `.jpg` is
/// then read as a movie but stays counted as a photo, with a ``AssetProblem/Code/misnamed``
/// problem). Every other regular file's first ``MediaSniffer/headerLength`` bytes are read
/// here, so content decides what is media: a JPEG without an extension is a photo.
///
/// Nothing regular is lost. A sidecar (`.xmp`, `.aae`, `.thm`, `.lrv`, `.lrf`; see
/// ``SidecarMatching``) is not read: it becomes an extra resource of the one asset of
/// its folder it is named after. A file with a photo or video extension that no reader
/// takes (``MediaSniffer/isMediaName(_:)``: an `.x3f`, an `.mpg`) whose content is no
/// format we know is an asset with an ``AssetProblem/Code/unsupported`` problem. A file
/// that is neither media by name nor by content, and a sidecar that fits no single asset,
/// is an ``OtherFile`` (``LibraryScan/otherFiles``), not an asset; a folder holding only
/// such files is not an album.
///
/// Skipped: hidden names (leading `.`, unless ``LibraryOptions/includesHiddenFiles``),
/// NAS folders (`@eaDir`, `#recycle`, `.@__thumb`), symbolic links (never followed),
/// FIFOs, sockets, devices, AppleDouble files (by content, `00 05 16 07`), and what
/// ``LibraryOptions/selection`` leaves out.
struct LibraryScanner {
  let root: String
  let options: LibraryOptions

  /// How many folders deep the walk goes; deeper folders are reported, not read.
  static let maximumDepth = 256

  /// Walks the library.
  ///
  /// - Parameter isCancelled: Polled between folders and every 256 files; when it returns
  ///   `true` the walk throws ``LibraryError/cancelled``.
  /// - Returns: The groups and the folders that could not be read.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root.
  func scan(isCancelled: () -> Bool = { false }) throws(LibraryError) -> LibraryScan {
    let libraryRoot = try LibraryRoot(path: root)
    return try scan(in: libraryRoot, isCancelled: isCancelled)
  }

  /// Walks the library below an already opened root.
  ///
  /// - Parameters:
  ///   - libraryRoot: The opened root folder; its path must be ``root``.
  ///   - scope: The folders to list; `nil` for the whole library.
  ///   - isCancelled: Polled between folders and every 256 files.
  ///   - didListFolder: Called with each folder's path after its entries are read and
  ///     before its subfolders are entered (a test seam).
  /// - Returns: The groups and the folders that could not be read.
  /// - Throws: ``LibraryError`` for an unlistable root or cancellation.
  func scan(
    in libraryRoot: LibraryRoot, scope: WalkScope? = nil, isCancelled: () -> Bool = { false },
    didListFolder: (LibraryPath) -> Void = { _ in }
  ) throws(LibraryError) -> LibraryScan {
    try withoutActuallyEscaping(isCancelled) { isCancelled throws(LibraryError) in
      try withoutActuallyEscaping(didListFolder) { didListFolder throws(LibraryError) in
        var walk = LibraryWalk(
          options: options, isCancelled: isCancelled,
          didListFolder: { path in
            didListFolder(path)
            scope?.didListFolder(path)
          })
        if let scope {
          try walk.run(root: libraryRoot, scope: scope)
        } else {
          try walk.run(root: libraryRoot)
        }
        return walk.result()
      }
    }
  }
}

/// The folders a walk lists when not the whole library (a watcher reading what changed).
struct WalkScope: Sendable {
  /// Folders listed alone, without their subfolders.
  var folders: Set<LibraryPath> = []
  /// Folders listed with everything below them; the root here means the whole library.
  var subtrees: Set<LibraryPath> = []
  /// Called with each folder listed (a test seam and a statistic).
  var didListFolder: @Sendable (LibraryPath) -> Void = { _ in }
}

extension LibraryPath {
  /// Whether the folder at `path` is this folder or below it.
  func encloses(_ path: LibraryPath) -> Bool {
    isRoot || path == self
      || (path.bytes.count > bytes.count && path.bytes.starts(with: bytes)
        && path.bytes[bytes.count] == UInt8(ascii: "/"))
  }
}
