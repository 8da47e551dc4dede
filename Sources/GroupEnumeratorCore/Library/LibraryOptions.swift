import FoundationEssentials

/// Options that change what a library walk includes.
///
/// Symbolic links are never followed, inside the library or out of it: a link is skipped
/// where it is found, and every file is opened without following one (see
/// ``AssetsLibrary``).
public struct LibraryOptions: Sendable, Hashable {
  /// Whether hidden files and folders (leading dot) are included. Default `false`.
  public var includesHiddenFiles: Bool
  /// How many files are read at once. Default: the number of active processors.
  public var maximumConcurrency: Int
  /// Which files the walk keeps (by extension, or excluded by pattern). Default: all.
  public var selection: FileSelection
  /// Where to keep the index of what was read, so that the next enumeration opens only
  /// new and changed files. Default ``IndexLocation/none``.
  public var index: IndexLocation
  /// Whether every photo's end is checked (a JPEG's end-of-image marker, a PNG's `IEND`
  /// chunk), so that a file cut short gets a ``AssetProblem/Code/truncated`` problem.
  /// Default `false`: the check runs only where the file's last bytes were read anyway
  /// (a file of at most 16 KiB, which is read whole), because on a real photo the end is
  /// a second read far from the first: from a cold disk, a seek per file
  /// (docs/Performance.md has the cost). With an index, a file checked once is not
  /// checked again while it is unchanged.
  public var verifiesFileEnds: Bool
  /// Where drawn pictures are kept for the next request. Default
  /// ``PictureCacheLocation/freedesktop``, the desktop's shared thumbnail cache.
  public var pictureCache: PictureCacheLocation
  /// Whether what goes wrong with the index (not found, locked, rebuilt) is left unsaid:
  /// for an index kept on the caller's own account rather than asked for by its user (the
  /// Demo's page keeps the library's own index unasked). What is listed is the same either
  /// way. Default `false`.
  package var keepsIndexQuietly = false

  /// Creates options.
  ///
  /// - Parameters:
  ///   - includesHiddenFiles: Whether hidden files and folders are included.
  ///   - maximumConcurrency: How many files are read at once; at least 1. `nil` for the
  ///     number of active processors.
  ///   - selection: Which files the walk keeps. Default: all.
  ///   - index: Where to keep the index of what was read. Default: no index.
  ///   - verifiesFileEnds: Whether every photo's end is checked. Default `false`.
  ///   - pictureCache: Where drawn pictures are kept. Default: the desktop's thumbnail
  ///     cache.
  public init(
    includesHiddenFiles: Bool = false, maximumConcurrency: Int? = nil,
    selection: FileSelection = .all, index: IndexLocation = .none,
    verifiesFileEnds: Bool = false, pictureCache: PictureCacheLocation = .freedesktop
  ) {
    self.pictureCache = pictureCache
    self.includesHiddenFiles = includesHiddenFiles
    self.selection = selection
    self.index = index
    self.verifiesFileEnds = verifiesFileEnds
    self.maximumConcurrency = max(
      1, maximumConcurrency ?? ProcessInfo.processInfo.activeProcessorCount)
  }
}
