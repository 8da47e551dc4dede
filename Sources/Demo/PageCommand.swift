import Foundation
import GroupEnumerator
import Synchronization

extension DemoCommand {
  /// How many pictures the page draws at once.
  nonisolated static let pageDrawingWidth = 2
  /// How far ahead of the first row not yet written the page may draw: bounds the rows
  /// held when one picture is slow.
  nonisolated static let pageDrawingWindow = 64

  /// Where the page's pictures are drawn: the one place that picks the source. With
  /// `pictureWorker` (the Demo itself), in ``pageDrawingWidth`` worker processes, so that
  /// a decoder's crash, hang or memory blow-up costs one picture; in this process without.
  nonisolated static func pagePictureSource(
    for library: AssetsLibrary, pictureWorker: String?
  ) -> any PictureSource {
    pictureSource(
      library, workers: pageDrawingWidth, executable: pictureWorker, handsOnStored: true)
  }

  /// `Demo --format html --output DIR`: reads the library (a progress bar), then draws an
  /// 80 × 80 aspect-fit picture of each asset, a few at a time (a second bar), into
  /// `DIR/pictures/`, and writes `DIR/index.html` last (``PageFolder``, ``HTMLPage``).
  /// An asset with no picture gets a placeholder and the reason; a picture file that
  /// cannot be written (a full disk) fails the run, which leaves no `index.html`.
  static func page(
    _ options: DemoOptions, _ location: LibraryLocation, stderr: inout some TextOutputStream,
    progressBar: ProgressBar?, pictureWorker: String?
  ) async throws(LibraryError) -> Int32 {
    guard let output = options.output else { return usageFailure }
    let strings = Strings(language: options.language)
    let library = location.library
    func message(_ failure: PageFolder.Failure) -> String {
      let text = strings.cannotWritePage(output, reason: failure.reason)
      return "Error: \(OutputHygiene.message(text))\n"
    }
    // A wrong --output is said before the library is read; nothing is made yet.
    do throws(PageFolder.Failure) {
      try PageFolder.check(output, replacing: options.replacesOutput, library: library.root)
    } catch {
      stderr.write(message(error))
      return failure
    }
    let contents = try await library.enumerate(
      filter: options.filter,
      progress: { current, total in progressBar?.update(current: current, total: total) })
    progressBar?.clear()
    let folder: PageFolder
    let index: PageFolder.IndexFile
    do throws(PageFolder.Failure) {
      folder = try PageFolder.open(
        output, replacing: options.replacesOutput, library: library.root)
      index = try folder.startIndex()
    } catch {
      stderr.write(message(error))
      return failure
    }
    var page = HTMLPage(strings: strings)
    index.write(page.head(library: location.displayPath))
    let assets = contents.assets
    progressBar?.activity = .drawing
    progressBar?.update(current: 0, total: assets.count)
    let source = pagePictureSource(for: library, pictureWorker: pictureWorker)
    let writeFailure = await drawPictures(
      of: assets, source: source, stored: StoredPictureReader(library: library),
      folder: folder,
      written: { asset, picture, count in
        index.write(page.row(asset, picture: picture))
        progressBar?.update(current: count, total: assets.count)
        return !index.hasFailed
      })
    await source.shutDown()
    progressBar?.clear()
    progressBar?.activity = .loading
    if Task.isCancelled {
      index.discard()
      return interrupted
    }
    let folderProblems = contents.folderProblems.sorted { $0.key < $1.key }.map {
      (path: $0.key, problem: $0.value)
    }
    index.write(page.end(folderProblems: folderProblems))
    do throws(PageFolder.Failure) {
      if let writeFailure { throw writeFailure }
      try index.publish()
    } catch {
      index.discard()
      stderr.write(message(error))
      return failure
    }
    for (path, problem) in folderProblems {
      stderr.write(
        "warning: "
          + OutputHygiene.message(strings.folderProblem(path.escaped, problem.description))
          + "\n")
    }
    for warning in contents.warnings {
      stderr.write("warning: " + OutputHygiene.message(warning) + "\n")
    }
    return success
  }

  /// Writes the picture of each of `assets` into `folder`: the picture cache's stored
  /// entry when there is one (looked up and handed on a batch at a time, off Swift's
  /// concurrency threads), else one `source` draws, ``pageDrawingWidth`` at a time. Calls
  /// `written` with each asset and its picture in order, and how many have been written;
  /// stops when `written` returns `false`, a picture cannot be written (returned), or the
  /// task is cancelled.
  private static func drawPictures(
    of assets: [Asset], source: any PictureSource, stored: StoredPictureReader?,
    folder: PageFolder, written: (Asset, PagePicture, Int) -> Bool
  ) async -> PageFolder.Failure? {
    typealias Drawn = (index: Int, outcome: Result<PagePicture, PageFolder.Failure>)
    return await withTaskGroup(of: Drawn.self) { group -> PageFolder.Failure? in
      var looked = 0
      var misses: [Int] = []
      var running = 0
      var count = 0
      var done: [Int: PagePicture] = [:]
      while count < assets.count {
        // The stored pictures of the next rows of the window, when the drawing has
        // little left to do.
        if looked < assets.count, looked < count + pageDrawingWindow,
          misses.count < pageDrawingWidth
        {
          let batch = looked..<min(assets.count, count + pageDrawingWindow)
          looked = batch.upperBound
          let found = await handOnStored(assets, batch, stored: stored, folder: folder)
          for (offset, outcome) in found.enumerated() {
            switch outcome {
            case .failure(let failure):
              group.cancelAll()
              return failure
            case .success(.some(let picture)): done[batch.lowerBound + offset] = picture
            case .success(.none): misses.append(batch.lowerBound + offset)
            }
          }
        }
        while running < pageDrawingWidth, !misses.isEmpty {
          let index = misses.removeFirst()
          let asset = assets[index]
          group.addTask {
            (
              index,
              await drawPicture(
                of: asset, number: index + 1, source: source, stored: stored, folder: folder)
            )
          }
          running += 1
        }
        while let picture = done.removeValue(forKey: count) {
          count += 1
          guard written(assets[count - 1], picture, count) else {
            group.cancelAll()
            return nil
          }
        }
        if Task.isCancelled {
          group.cancelAll()
          return nil
        }
        guard running > 0 else { continue }
        guard let drawn = await group.next() else { break }
        running -= 1
        switch drawn.outcome {
        case .failure(let failure):
          group.cancelAll()
          return failure
        case .success(let picture):
          done[drawn.index] = picture
        }
      }
      return nil
    }
  }

  /// Hands on the picture cache's stored entries of `assets[batch]` into the folder, on
  /// ``pageLookupWidth`` Dispatch threads at once (each a run of the batch, as the listing
  /// reads its files on two): for each, the picture written (`nil` for one with no stored
  /// entry), or the failure that stops the page (nothing after it is returned; a run
  /// after it may have linked pictures that no page then shows, as a run that fails
  /// leaves).
  private static func handOnStored(
    _ assets: [Asset], _ batch: Range<Int>, stored: StoredPictureReader?, folder: PageFolder
  ) async -> [Result<PagePicture?, PageFolder.Failure>] {
    guard let stored else { return batch.map { _ in .success(nil) } }
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let runs = max(1, min(pageLookupWidth, batch.count))
        let length = (batch.count + runs - 1) / runs
        let results = Mutex(
          [[Result<PagePicture?, PageFolder.Failure>]](repeating: [], count: runs))
        DispatchQueue.concurrentPerform(iterations: runs) { run in
          let lower = batch.lowerBound + run * length
          let upper = min(lower + length, batch.upperBound)
          guard lower < upper else { return }
          let outcomes = handOnStored(assets, lower..<upper, stored: stored, folder: folder)
          results.withLock { $0[run] = outcomes }
        }
        var outcomes: [Result<PagePicture?, PageFolder.Failure>] = []
        outcomes.reserveCapacity(batch.count)
        for run in results.withLock({ $0 }) {
          outcomes += run
          if case .failure = run.last { break }
        }
        continuation.resume(returning: outcomes)
      }
    }
  }

  /// How many threads look up and hand on the stored entries of a batch at once.
  nonisolated static let pageLookupWidth = 2

  /// ``handOnStored(_:_:stored:folder:)``'s work for one run of a batch, on the calling
  /// thread; stops at the first failure, which is the last outcome.
  nonisolated private static func handOnStored(
    _ assets: [Asset], _ run: Range<Int>, stored: StoredPictureReader, folder: PageFolder
  ) -> [Result<PagePicture?, PageFolder.Failure>] {
    var outcomes: [Result<PagePicture?, PageFolder.Failure>] = []
    outcomes.reserveCapacity(run.count)
    let entryFolders = stored.entryFolders()
    var folders: FolderCursor?
    for index in run {
      switch folder.linkStored(
        assets[index], number: index + 1, reader: stored, folders: entryFolders)
      {
      case .linked(let picture):
        outcomes.append(.success(picture))
        continue
      case .noEntry:
        outcomes.append(.success(nil))
        continue
      case .notLinked: break
      }
      // An entry that cannot be linked by its name here: read, checked and handed on.
      let cursor = folders ?? stored.folderCursor()
      folders = cursor
      do throws(PageFolder.Failure) {
        let picture = try stored.withPicture(
          for: assets[index], fitting: HTMLPage.side, folders: cursor
        ) {
          (entry, descriptor) throws(PageFolder.Failure) -> PagePicture in
          try folder.handOn(entry, descriptor: descriptor, number: index + 1)
        }
        outcomes.append(.success(picture))
      } catch {
        outcomes.append(.failure(error))
        break
      }
    }
    return outcomes
  }

  /// The picture of `asset` for the page's row `number`, drawn by `source` and written
  /// into the folder: a placeholder with the reason when the source has none or gives one
  /// that is not a JPEG or PNG within the square (a worker's output is checked too; a
  /// stored entry, PNG, may be up to the cache's `normal` size).
  nonisolated static func drawPicture(
    of asset: Asset, number: Int, source: any PictureSource,
    stored storedReader: StoredPictureReader?, folder: PageFolder
  ) async -> Result<PagePicture, PageFolder.Failure> {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let image: AssetImage
    switch await source.picture(of: asset, side: HTMLPage.side, fills: false) {
    case .failure(let failure): return .success(.missing(reason: failure.message))
    case .success(let drawn): image = drawn
    }
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
    let signature = image.isPNG ? png : jpeg
    // A stored entry (PNG) may be up to the cache's `normal` size; the browser scales it.
    let stored = image.isPNG && image.source == .thumbnailCache
    let limit = stored ? HTMLPage.storedSide : HTMLPage.side
    guard (1...limit).contains(image.pixelWidth), (1...limit).contains(image.pixelHeight),
      image.data.starts(with: signature)
    else {
      return .success(
        .missing(
          reason: "the picture drawn is not a JPEG or PNG of at most 80 × 80 pixels"
            + " (128 × 128 for a stored one)"))
    }
    // The entry a worker just stored, handed on: linked from the cache as a later page
    // links it (no new file), when a valid entry of the same size is there (the stored
    // one holds the cache's text chunks, which the bytes handed back lack).
    if stored, let reader = storedReader {
      switch folder.linkStored(
        asset, number: number, reader: reader, folders: reader.entryFolders(),
        accepting: { $0 == image.pixelWidth && $1 == image.pixelHeight })
      {
      case .linked(let picture): return .success(picture)
      case .noEntry: break
      case .notLinked:
        do throws(PageFolder.Failure) {
          let linked = try reader.withPicture(for: asset, fitting: HTMLPage.side) {
            (entry, descriptor) throws(PageFolder.Failure) -> PagePicture? in
            guard entry.width == image.pixelWidth, entry.height == image.pixelHeight else {
              return nil
            }
            return try folder.handOn(entry, descriptor: descriptor, number: number)
          }
          if case .some(.some(let picture)) = linked { return .success(picture) }
        } catch {
          return .failure(error)
        }
      }
    }
    let name = PageFolder.pictureName(number: number, isPNG: image.isPNG)
    do throws(PageFolder.Failure) {
      try folder.writePicture(image.data, named: name)
    } catch {
      return .failure(error)
    }
    let (width, height) = HTMLPage.fitted(width: image.pixelWidth, height: image.pixelHeight)
    return .success(
      .file(path: PageFolder.picturesName + "/" + name, width: width, height: height))
  }
}
