import FoundationEssentials

/// Streaming: the assets handed over as they are read, without holding them all.
extension AssetsLibrary {
  /// What a streamed enumeration found besides the assets it delivered.
  ///
  /// Package access, as ``streamAssets(filter:progress:prepare:deliver:)``: for the Demo's
  /// listing and the benchmarks, not a promise to users.
  package struct StreamSummary: Sendable {
    /// The groups, Camera Roll first, then albums by path.
    package let groups: [AssetGroup]
    /// Folders that could not be listed, with the reason; their files were not delivered.
    package let folderProblems: [LibraryPath: AssetProblem]
    /// The files that are not assets, by path, with their reasons (see
    /// ``Contents/otherFiles``). The walk found them before the first asset was read, so
    /// they cost no memory beyond the file list every enumeration holds.
    package let otherFiles: [OtherFile]
    /// How many assets were delivered.
    package let assetCount: Int
    /// How long each phase took; `delivery` includes the time the delivery closure took.
    package let statistics: EnumerationStatistics
    /// What went wrong beside the library that did not change what was delivered (an
    /// index that was rebuilt or could not be used), each a sentence for people.
    package let warnings: [String]
  }

  /// Reads every asset that passes `filter` and hands each to `deliver` in the order of
  /// ``enumerate(filter:progress:)`` — group order, then file name — as soon as it and
  /// every asset before it are read, without keeping them.
  ///
  /// `prepare` turns each asset into what `deliver` needs (formatted text, say) on the
  /// worker that read it, so that this work runs in parallel too.
  ///
  /// Memory stays bounded whatever the library's size: at most ``streamWindow`` assets are
  /// read ahead of the one being delivered. Files that are not assets are not delivered:
  /// they come back in the summary's ``StreamSummary/otherFiles``, to be listed after the
  /// assets.
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - progress: Called on the main actor with `(current, total)`, as for
  ///     ``enumerate(filter:progress:)``.
  ///   - prepare: Called once per asset, on the worker thread that read it, in any order.
  ///   - deliver: Called once per asset with what `prepare` made, one call at a time, in
  ///     order, on a worker thread (it may block, e.g. to write). Return `false` to stop:
  ///     no further call is made and the enumeration throws ``LibraryError/cancelled``.
  /// - Returns: The groups, the folders that could not be listed, the other files, and the
  ///   count.
  /// - Throws: ``LibraryError`` for a library-level fault, cancellation or a stop.
  package func streamAssets<Item: Sendable>(
    filter: AssetFilter = .all,
    progress: @escaping @MainActor @Sendable (_ current: Int, _ total: Int) -> Void = { _, _ in },
    prepare: @escaping @Sendable (Asset) -> Item,
    deliver: @escaping @Sendable (Item) -> Bool
  ) async throws(LibraryError) -> StreamSummary {
    try await streamAssets(
      filter: filter, progress: progress, preparePlaced: { asset, _ in prepare(asset) },
      deliver: deliver)
  }

  /// ``streamAssets(filter:progress:prepare:deliver:)`` whose `preparePlaced` is also given
  /// the asset's place in the delivery (0 for the first asset delivered, then 1, …), so
  /// that work which needs it (naming the asset's picture after its row, say) runs in
  /// parallel too.
  package func streamAssets<Item: Sendable>(
    filter: AssetFilter = .all,
    progress: @escaping @MainActor @Sendable (_ current: Int, _ total: Int) -> Void = { _, _ in },
    preparePlaced: @escaping @Sendable (_ asset: Asset, _ place: Int) -> Item,
    deliver: @escaping @Sendable (Item) -> Bool
  ) async throws(LibraryError) -> StreamSummary {
    let run = try await LibraryRun.start(self, index: .everything)
    let plan = try await run.plan(filter: filter)
    let (delivered, statistics) = try await run.deliverInOrder(
      plan, window: AssetsLibrary.streamWindow, progress: progress,
      // The reader takes the items as `any Sendable`, so that its code is compiled for one
      // type: this function is generic, and a call from another module runs it
      // unspecialised, where the reader's state (a dictionary of `Item`s under a lock)
      // would look up generic metadata several times per asset.
      prepare: { asset, place in preparePlaced(asset, place) },
      deliver: { item in
        // Every item was made by `preparePlaced` above, so the cast cannot fail; if it
        // did, stopping (a cancelled run) is still better than a trap.
        guard let item = item as? Item else { return false }
        return deliver(item)
      })
    return StreamSummary(
      groups: run.groups(plan, filter: filter), folderProblems: run.folderProblems,
      otherFiles: run.scan.otherFiles, assetCount: delivered, statistics: statistics,
      warnings: run.warnings)
  }

  /// How many assets ``streamAssets(filter:progress:prepare:deliver:)`` reads ahead of
  /// delivery.
  package static let streamWindow = 1024

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
    /// The run (the open root, what the walk found, the index); `nil` before the first
    /// call and after the last.
    private var run: LibraryRun?
    private var groupIndex = 0
    private var queue: GroupQueue?
    private var batch: [Asset] = []
    private var batchIndex = 0
    private var isFinished = false

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
      if let run {
        try run.cancellation.check()
      } else {
        run = try await LibraryRun.start(library, index: .everything)
      }
      guard let run else { return }
      while batch.isEmpty {
        if queue == nil || queue?.isEmpty == true {
          guard groupIndex < run.scan.groups.count else {
            // Every file was walked and delivered: store what is left and drop the rows
            // of files that are gone, as a listing does.
            await run.finish()
            finish()
            return
          }
          let group = run.scan.groups[groupIndex]
          groupIndex += 1
          queue = try await run.queue(for: group, filter: filter)
        }
        if var current = queue {
          queue = nil
          batch = try await run.nextBatch(of: &current, size: batchSize)
          queue = current
        }
      }
    }

    /// Lets go of the root and the file list: nothing more is delivered.
    private mutating func finish() {
      isFinished = true
      run = nil
      queue = nil
      batch = []
      batchIndex = 0
    }
  }
}
