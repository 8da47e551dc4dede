import FoundationEssentials
import GroupEnumeratorCore
import Synchronization

extension DemoCommand {
  /// How many pictures the page draws at once.
  nonisolated static let pageDrawingWidth = 2
  /// How many pictures the page asks its worker processes for at once: one more than there
  /// are workers, so that a worker that hands back a picture is given the next one at once
  /// (the request waits in ``WorkerPictures`` for it) while the page links the one it got.
  nonisolated static let pageRequestsAtOnce = pageDrawingWidth + 1
  /// How far ahead of the first row not yet written the page may draw: bounds the
  /// pictures held when one is slow.
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
  ///
  /// The picture cache's stored pictures are handed on while the library is read, on the
  /// threads that read it (``PageRows``): the folder is made when the first asset has been
  /// read, and the rows are written in order as long as every row before has its picture;
  /// the rest wait for the drawing.
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
    let rows = PageRows(
      output: output, replacing: options.replacesOutput, library: library,
      head: HTMLPage(strings: strings).head(library: location.displayPath),
      page: HTMLPage(strings: strings))
    let summary: AssetsLibrary.StreamSummary
    do throws(LibraryError) {
      summary = try await library.streamAssets(
        filter: options.filter,
        progress: { current, total in progressBar?.update(current: current, total: total) },
        preparePlaced: { asset, place in rows.prepare(asset, number: place + 1) },
        deliver: { row in rows.deliver(row) })
    } catch {
      progressBar?.clear()
      // A row that could not be written stopped the reading: said below, as a failure.
      guard error == .cancelled, let failure = rows.failure else {
        rows.discard()
        throw error
      }
      rows.discard()
      stderr.write(message(failure))
      return DemoCommand.failure
    }
    progressBar?.clear()
    if let failure = rows.start() {
      rows.discard()
      stderr.write(message(failure))
      return DemoCommand.failure
    }
    let waiting = rows.takeWaiting()
    progressBar?.activity = .drawing
    progressBar?.update(current: summary.assetCount - waiting.count, total: summary.assetCount)
    var writeFailure: PageFolder.Failure?
    if !waiting.isEmpty, case .success(let folder) = rows.folder() {
      let source = pagePictureSource(for: library, pictureWorker: pictureWorker)
      writeFailure = await drawPictures(
        of: waiting, source: source,
        atOnce: source is WorkerPictures ? pageRequestsAtOnce : pageDrawingWidth,
        stored: rows.stored, folder: folder,
        written: { row, picture in
          progressBar?.update(current: row.number, total: summary.assetCount)
          return rows.write(row.asset, picture: picture)
        })
      await source.shutDown()
    }
    progressBar?.clear()
    progressBar?.activity = .loading
    if Task.isCancelled {
      rows.discard()
      return interrupted
    }
    let folderProblems = summary.folderProblems.sorted { $0.key < $1.key }.map {
      (path: $0.key, problem: $0.value)
    }
    do throws(PageFolder.Failure) {
      if let writeFailure { throw writeFailure }
      try rows.publish(folderProblems: folderProblems)
    } catch {
      rows.discard()
      stderr.write(message(error))
      return failure
    }
    for (path, problem) in folderProblems {
      stderr.write(
        "warning: "
          + OutputHygiene.message(strings.folderProblem(path.escaped, problem.description))
          + "\n")
    }
    for warning in summary.warnings {
      stderr.write("warning: " + OutputHygiene.message(warning) + "\n")
    }
    return success
  }

  /// Draws the picture of each of `rows` that has none yet (`source` is asked for `atOnce`
  /// at a time) and writes it into `folder`. Calls `written` with
  /// each row and its picture in order; stops when `written` returns `false`, a picture
  /// cannot be written (returned), or the task is cancelled.
  private static func drawPictures(
    of rows: [PageRows.Waiting], source: any PictureSource, atOnce: Int,
    stored: StoredPictureReader?, folder: PageFolder,
    written: (PageRows.Waiting, PagePicture) -> Bool
  ) async -> PageFolder.Failure? {
    typealias Drawn = (index: Int, outcome: Result<PagePicture, PageFolder.Failure>)
    return await withTaskGroup(of: Drawn.self) { group -> PageFolder.Failure? in
      var next = 0
      var running = 0
      var count = 0
      var done: [Int: PagePicture] = [:]
      while count < rows.count {
        // The next rows of the window: those with a picture are done, the others drawn.
        while next < rows.count, next < count + pageDrawingWindow {
          if let picture = rows[next].picture {
            done[next] = picture
          } else {
            guard running < atOnce else { break }
            let row = rows[next]
            let index = next
            group.addTask {
              (
                index,
                await drawPicture(
                  of: row.asset, number: row.number, source: source, stored: stored,
                  folder: folder)
              )
            }
            running += 1
          }
          next += 1
        }
        while let picture = done.removeValue(forKey: count) {
          count += 1
          guard written(rows[count - 1], picture) else {
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

  /// Hands on the picture cache's stored entry of `asset` into the folder as the picture
  /// of row `number`: the picture written (`nil` when there is no stored entry), or the
  /// failure that stops the page.
  nonisolated static func handOnStored(
    _ asset: Asset, number: Int, stored: StoredPictureReader, folder: PageFolder,
    entryFolders: StoredPictureReader.EntryFolders
  ) -> Result<PagePicture?, PageFolder.Failure> {
    switch folder.linkStored(asset, number: number, reader: stored, folders: entryFolders) {
    case .linked(let picture): return .success(picture)
    case .noEntry: return .success(nil)
    case .notLinked: break
    }
    // An entry that cannot be linked by its name here: read, checked and handed on.
    do throws(PageFolder.Failure) {
      return .success(
        try stored.withPicture(for: asset, fitting: HTMLPage.side) {
          (entry, descriptor) throws(PageFolder.Failure) -> PagePicture in
          try folder.handOn(entry, descriptor: descriptor, number: number)
        })
    } catch {
      return .failure(error)
    }
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
