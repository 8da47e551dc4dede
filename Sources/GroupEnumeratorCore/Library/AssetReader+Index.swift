import FoundationEssentials

extension AssetReader {
  /// A reader for one worker: ``read(_:root:index:folders:)`` with a ``FolderCursor`` of
  /// its own when there is an index (closed when the reader is dropped).
  static func reader(root: LibraryRoot, index: IndexStore?) -> (ReadJob) -> Asset {
    guard let index else { return { job in read(job, root: root) } }
    let folders = FolderCursor(root: root)
    return { job in read(job, root: root, index: index, folders: folders) }
  }

  /// Reads `job`'s file, or takes its asset from `index` when the file and its sidecars
  /// are unchanged since it was stored: the one place where a stored result replaces
  /// reading a file.
  ///
  /// A file read here is stored for the next run, unless it changed too recently for its
  /// key to be trusted (``FileKey/isRecent(comparedTo:)``) or its reading met a passing
  /// error (``AssetProblem/isPassing``). A run that checks every file's end
  /// (``LibraryRoot/verifiesFileEnds``) takes only rows stored by such a run, and stores
  /// that it did, so a checked file is not checked again while unchanged.
  ///
  /// - Parameters:
  ///   - index: The run's index, or `nil` to read every file.
  ///   - folders: Where the keys are taken (the calling worker's own); `nil` for a new
  ///     one, closed on return.
  static func read(
    _ job: ReadJob, root: LibraryRoot, index: IndexStore?, folders: FolderCursor? = nil
  ) -> Asset {
    guard let index else { return read(job, root: root) }
    let folders = folders ?? FolderCursor(root: root)
    guard let key = folders.key(of: job.file.path),
      let sidecars = sidecarKeys(of: job.file, folders: folders)
    else { return read(job, root: root) }
    let lookup = index.lookUp(job.file.path, key: key, sidecars: sidecars)
    if case .found(let stored) = lookup,
      let asset = StoredResult.decode(
        stored, job: job, fileSize: key.size, needsCheckedEnd: root.verifiesFileEnds)
    {
      index.countTaken()
      return asset
    }
    let asset = read(job, root: root)
    // A passing error (too many open files, EIO on a share…) is this run's, not the file's.
    if !key.isRecent(), !asset.problems.contains(where: \.isPassing) {
      let isNew: Bool
      if case .missing = lookup { isNew = true } else { isNew = false }
      index.store(
        IndexStore.Row(
          path: job.file.path.bytes, key: key, sidecars: sidecars,
          result: StoredResult.encode(
            asset, sidecarCount: job.file.sidecars.count, checkedEnd: root.verifiesFileEnds),
          isNew: isNew))
    }
    return asset
  }

  /// The keys of a file's sidecars (whose content can fill its metadata's gaps), as the
  /// bytes a stored row is compared with; `nil` when one cannot be examined or is too new
  /// to trust.
  private static func sidecarKeys(of file: ScannedFile, folders: FolderCursor) -> [UInt8]? {
    guard !file.sidecars.isEmpty else { return [] }
    var writer = StoredResult.Writer()
    writer.integer(file.sidecars.count)
    for sidecar in file.sidecars {
      guard let key = folders.key(of: sidecar.path), !key.isRecent()
      else { return nil }
      writer.bytes(sidecar.path.bytes)
      for value in [
        Int64(bitPattern: key.device), Int64(bitPattern: key.inode), key.size,
        key.modificationSeconds, key.modificationNanoseconds, key.changeSeconds,
        key.changeNanoseconds,
      ] {
        writer.integer(value)
      }
    }
    return writer.output
  }
}
