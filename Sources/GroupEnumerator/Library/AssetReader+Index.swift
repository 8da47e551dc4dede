import Foundation

extension AssetReader {
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
  /// - Parameter index: The run's index, or `nil` to read every file.
  static func read(_ job: ReadJob, root: LibraryRoot, index: IndexStore?) -> Asset {
    guard let index, let key = FileKey.of(job.file.path, beneath: root.descriptor),
      let sidecars = sidecarKeys(of: job.file, root: root)
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
  private static func sidecarKeys(of file: ScannedFile, root: LibraryRoot) -> [UInt8]? {
    guard !file.sidecars.isEmpty else { return [] }
    var writer = StoredResult.Writer()
    writer.integer(file.sidecars.count)
    for sidecar in file.sidecars {
      guard let key = FileKey.of(sidecar.path, beneath: root.descriptor), !key.isRecent()
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
