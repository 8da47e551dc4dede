import Foundation

extension AssetsLibrary {
  /// The assets that pass `filter`, delivered one at a time in the order
  /// ``enumerate(filter:progress:)`` lists them: group order, then by file name.
  ///
  /// ```swift
  /// for try await asset in library.assets(filter: .photos) {
  ///   print(asset.name)
  /// }
  /// ```
  ///
  /// The sequence walks the library once, when iteration starts, and then reads one group
  /// at a time, `batchSize` files at once (in parallel, up to
  /// ``LibraryOptions/maximumConcurrency``), handing each batch out before reading the
  /// next. Nothing is read ahead of what the loop asks for, so a loop that stops early
  /// reads little, and breaking out of it closes the library's root folder.
  ///
  /// Memory: besides the batch, the sequence holds what the walk found (one small record
  /// per file, which every enumeration needs) and, for the group being read, the assets
  /// of its Live Photo candidates (a still and a movie with one base name), which are
  /// read when the group starts so that each pair is delivered once, as one asset. It
  /// never holds the assets already delivered, so a library of any size streams in the
  /// memory of its file list plus one batch. Unlike ``enumerate(filter:progress:)`` it
  /// reports no progress and no folder problems (``groups(types:)`` and
  /// ``enumerate(filter:progress:)`` do).
  ///
  /// With an index (``LibraryOptions/index``), a file unchanged since it was stored is
  /// taken from it and a file read is stored; when the last asset has been delivered the
  /// rows of files that are gone are dropped. A loop that stops early keeps what was
  /// stored so far (results are written in batches of a few hundred).
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - batchSize: How many files are read before the first of them is delivered; at
  ///     least 1.
  /// - Returns: A sequence that throws ``LibraryError`` for a library-level fault (the
  ///   root missing, not a folder or unreadable) and ``LibraryError/cancelled`` when the
  ///   iterating task is cancelled; a bad file is an asset with problems, as everywhere.
  public func assets(filter: AssetFilter = .all, batchSize: Int = 256)
    -> some AsyncSequence<Asset, LibraryError>
  {
    AssetStream(library: self, filter: filter, batchSize: max(1, batchSize))
  }
}

/// The sequence behind ``AssetsLibrary/assets(filter:batchSize:)``.
struct AssetStream: AsyncSequence, Sendable {
  typealias Element = Asset
  typealias Failure = LibraryError

  let library: AssetsLibrary
  let filter: AssetFilter
  let batchSize: Int

  func makeAsyncIterator() -> Iterator {
    Iterator(library: library, filter: filter, batchSize: batchSize)
  }

  /// Pulls batches from the library as the loop asks for assets.
  struct Iterator: AsyncIteratorProtocol {
    typealias Element = Asset
    typealias Failure = LibraryError

    private let library: AssetsLibrary
    private let filter: AssetFilter
    private let batchSize: Int
    /// The open root (every file is opened beneath it) and what the walk found; `nil`
    /// before the first call and after the last.
    private var walked: (root: LibraryRoot, scan: LibraryScan)?
    /// The index ``LibraryOptions/index`` names, opened after the walk; `nil` without one.
    private var index: IndexStore?
    private var groupIndex = 0
    private var queue: GroupQueue?
    private var batch: [Asset] = []
    private var batchIndex = 0
    private var isFinished = false
    /// The warnings opening the index gave (when it could not be used).
    private var indexWarnings: [String] = []

    init(library: AssetsLibrary, filter: AssetFilter, batchSize: Int) {
      self.library = library
      self.filter = filter
      self.batchSize = batchSize
    }

    mutating func next() async throws(LibraryError) -> Asset? {
      try await next(isolation: nil)
    }

    mutating func next(isolation actor: isolated (any Actor)?) async throws(LibraryError)
      -> Asset?
    {
      while !isFinished {
        if batchIndex < batch.count {
          defer { batchIndex += 1 }
          return batch[batchIndex]
        }
        do throws(LibraryError) {
          try await fill()
        } catch {
          finish()
          throw error
        }
      }
      return nil
    }

    /// Reads the next batch into ``batch``, or finishes when no file is left.
    private mutating func fill() async throws(LibraryError) {
      batch = []
      batchIndex = 0
      if Task.isCancelled { throw .cancelled }
      if walked == nil {
        let (root, scan) = try await library.scanCancellable()
        walked = (root, scan)
        let (opened, warnings) = await library.openIndex(root: root)
        index = opened
        indexWarnings = warnings
      }
      guard let (root, scan) = walked else { return }
      let width = library.options.maximumConcurrency
      while batch.isEmpty {
        if queue == nil || queue?.isEmpty == true {
          guard groupIndex < scan.groups.count else {
            // Every file was walked and delivered: store what is left and drop the rows
            // of files that are gone, as a listing does.
            await library.closeIndex(index, scan: scan)
            IndexObserver.recordClosing(index, warnings: indexWarnings)
            finish()
            return
          }
          let group = scan.groups[groupIndex]
          groupIndex += 1
          queue = try await GroupQueue.prepare(
            group: group, filter: filter, fileSelection: { _ in true },
            root: root, index: index, width: width)
        }
        if var current = queue {
          queue = nil
          batch = try await current.nextBatch(
            size: batchSize, root: root, index: index, width: width)
          queue = current
        }
      }
    }

    /// Lets go of the root and the file list: nothing more is delivered.
    private mutating func finish() {
      isFinished = true
      walked = nil
      index = nil
      queue = nil
      batch = []
      batchIndex = 0
    }
  }
}

/// The assets of one group in engine order, read a batch at a time.
///
/// Live Photo candidates are read when the group is prepared, as the engine reads them
/// before the rest, so that each confirmed pair is one asset at its still's place and
/// its movie is not delivered again.
struct GroupQueue: Sendable {
  /// The group's units in order; a delivered one becomes `nil`, so its asset is freed.
  private var units: [EnumerationUnit?]
  private var position = 0

  private init(units: [EnumerationUnit?]) {
    self.units = units
  }

  /// Whether every unit has been delivered.
  var isEmpty: Bool { position >= units.count }

  /// How many of the units not yet delivered are of each type: a confirmed Live Photo
  /// counts once, as `livePhoto`; every other file as the type its name gave it, which is
  /// the type its asset will have.
  var typeCounts: [AssetType: Int] {
    var counts: [AssetType: Int] = [:]
    for unit in units[position...] {
      switch unit {
      case .read(let asset): counts[asset.type, default: 0] += 1
      case .toRead(let job): counts[job.file.type, default: 0] += 1
      case nil: break
      }
    }
    return counts
  }

  /// Lists the group's units: Live Photo pairs read and merged, every other selected
  /// file still to read.
  ///
  /// - Parameters:
  ///   - group: The scanned group.
  ///   - filter: Which assets to include.
  ///   - fileSelection: Which files of the group to consider; a Live Photo candidate is
  ///     read when either half is selected.
  ///   - root: The open root; files are opened beneath it, and it stays open while they are.
  ///   - index: The call's index (candidates unchanged since they were stored are taken
  ///     from it, and those read are stored), or `nil`.
  ///   - width: How many files are read at once.
  /// - Throws: ``LibraryError/cancelled`` when the calling task is cancelled.
  static func prepare(
    group: ScannedGroup, filter: AssetFilter,
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool,
    root: LibraryRoot, index: IndexStore?, width: Int
  ) async throws(LibraryError) -> GroupQueue {
    let plan = try await EnumerationPlan.make(
      groups: [group], filter: filter, fileSelection: fileSelection
    ) { jobs throws(LibraryError) in
      try await read(jobs, root: root, index: index, width: width)
    }
    let units: [EnumerationUnit?] = plan.units
    return GroupQueue(units: units)
  }

  /// Reads and returns the next `size` units' assets, in order (taking those unchanged
  /// since they were stored from `index`, and storing those read).
  ///
  /// - Throws: ``LibraryError/cancelled`` when the calling task is cancelled.
  mutating func nextBatch(size: Int, root: LibraryRoot, index: IndexStore?, width: Int)
    async throws(LibraryError) -> [Asset]
  {
    let end = min(units.count, position + size)
    let slice = units[position..<end]
    let fresh = try await GroupQueue.read(
      slice.compactMap { $0?.job }, root: root, index: index, width: width)
    var freshAssets = fresh.makeIterator()
    var assets: [Asset] = []
    assets.reserveCapacity(slice.count)
    for unit in slice {
      switch unit {
      case .read(let asset): assets.append(asset)
      case .toRead:
        guard let asset = freshAssets.next() else { throw .cancelled }
        assets.append(asset)
      case nil: throw .cancelled
      }
    }
    for index in position..<end { units[index] = nil }
    position = end
    return assets
  }

  /// Reads `jobs` in parallel, in job order, stopping when the calling task is cancelled.
  private static func read(
    _ jobs: [ReadJob], root: LibraryRoot, index: IndexStore?, width: Int
  ) async throws(LibraryError) -> [Asset] {
    guard !jobs.isEmpty else { return [] }
    if Task.isCancelled { throw .cancelled }
    IndexObserver.recordJobs(jobs.count)
    let cancellation = CancellationFlag()
    let results = await withTaskCancellationHandler {
      await ParallelReader.run(
        jobs: jobs, width: width, cancellation: cancellation, throttle: nil
      ) { job in
        // The closure holds the root, so its descriptor stays open while any worker reads.
        AssetReader.read(job, root: root, index: index)
      }
    } onCancel: {
      cancellation.set()
    }
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    var assets: [Asset] = []
    assets.reserveCapacity(results.count)
    for case let asset? in results { assets.append(asset) }
    guard assets.count == jobs.count else { throw .cancelled }
    return assets
  }

}
