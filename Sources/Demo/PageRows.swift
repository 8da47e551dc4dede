import FoundationEssentials
import GroupEnumeratorCore
import Synchronization

/// The page's rows while the library is read (``DemoCommand/page(_:_:stderr:progressBar:pictureWorker:)``).
///
/// Each asset is prepared on the thread that read it (``prepare(_:number:)``): its stored
/// picture is handed on from the picture cache into the folder (linked; checked through
/// its new name, so a stale, damaged or foreign entry is never shown) and its row's cells
/// are made. Each is then delivered in order, one at a time (``deliver(_:)``): the row is
/// written to the page at once when it and every row before it have their pictures;
/// otherwise it waits (``takeWaiting()``) for the pictures drawn after the reading.
///
/// The folder is made or emptied (``PageFolder/open(_:replacing:library:)``) when the first
/// asset has been read, or by ``start()`` when there is none: a library that cannot be
/// read leaves the output as it was.
final class PageRows: Sendable {
  /// A row not yet written: its asset, its number (from 1), and its picture when it has
  /// one (a row after one that has none waits with it).
  struct Waiting: Sendable {
    let asset: Asset
    let number: Int
    let picture: PagePicture?
  }

  /// What ``prepare(_:number:)`` makes of an asset.
  struct Prepared: Sendable {
    let asset: Asset
    let number: Int
    /// The picture handed on from the cache (`nil`: none is stored), or the failure that
    /// stops the page.
    let picture: Result<PagePicture?, PageFolder.Failure>
    /// The row's cells (``HTMLPage/cells(_:picture:)``), when it has its picture.
    let cells: String?
  }

  /// The page's `index.html` and what is not yet in it; one thread at a time.
  private struct State {
    var page: HTMLPage
    let head: String
    var index: PageFolder.IndexFile?
    var waiting: [Waiting] = []
    var failure: PageFolder.Failure?
  }

  /// The picture cache's reader; `nil` without a cache.
  let stored: StoredPictureReader?
  private let entryFolders: StoredPictureReader.EntryFolders?
  private let cellMaker: HTMLPage
  private let output: String
  private let replacing: Bool
  private let libraryRoot: URL
  private let opened = Mutex<Result<PageFolder, PageFolder.Failure>?>(nil)
  private let state: Mutex<State>

  /// Rows for the page of `library` in the folder `output`, whose `index.html` starts
  /// with `head` and whose rows `page` writes.
  init(output: String, replacing: Bool, library: AssetsLibrary, head: String, page: HTMLPage) {
    self.output = output
    self.replacing = replacing
    libraryRoot = library.root
    stored = StoredPictureReader(library: library)
    entryFolders = stored?.entryFolders()
    cellMaker = page
    state = Mutex(State(page: page, head: head))
  }

  /// The output folder, made or emptied the first time it is asked for.
  func folder() -> Result<PageFolder, PageFolder.Failure> {
    opened.withLock { opened in
      if let opened { return opened }
      let result: Result<PageFolder, PageFolder.Failure>
      do throws(PageFolder.Failure) {
        result = .success(
          try PageFolder.open(output, replacing: replacing, library: libraryRoot))
      } catch {
        result = .failure(error)
      }
      opened = result
      return result
    }
  }

  /// Hands on the stored picture of `asset`, row `number`, and makes the row's cells when
  /// it has one; on any thread.
  func prepare(_ asset: Asset, number: Int) -> Prepared {
    guard let stored, let entryFolders else {
      return Prepared(asset: asset, number: number, picture: .success(nil), cells: nil)
    }
    let picture: Result<PagePicture?, PageFolder.Failure>
    switch folder() {
    case .failure(let failure): picture = .failure(failure)
    case .success(let folder):
      picture = DemoCommand.handOnStored(
        asset, number: number, stored: stored, folder: folder, entryFolders: entryFolders)
    }
    guard case .success(.some(let handedOn)) = picture else {
      return Prepared(asset: asset, number: number, picture: picture, cells: nil)
    }
    return Prepared(
      asset: asset, number: number, picture: picture,
      cells: cellMaker.cells(asset, picture: handedOn))
  }

  /// Takes the next row, in order: written when no row waits, else kept waiting.
  /// `false` stops the reading (a failure: ``failure``).
  func deliver(_ row: Prepared) -> Bool {
    state.withLock { state in
      guard state.failure == nil else { return false }
      let picture: PagePicture?
      switch row.picture {
      case .failure(let failure):
        state.failure = failure
        return false
      case .success(let handedOn): picture = handedOn
      }
      guard state.waiting.isEmpty, picture != nil, let cells = row.cells else {
        state.waiting.append(Waiting(asset: row.asset, number: row.number, picture: picture))
        return true
      }
      if let failure = start(&state) {
        state.failure = failure
        return false
      }
      guard let index = state.index else { return false }
      index.write(state.page.row(row.asset, cells: cells))
      return !index.hasFailed
    }
  }

  /// Why ``deliver(_:)`` stopped the reading, if it did: a picture or the page that could
  /// not be written (the unfinished page is then removed).
  var failure: PageFolder.Failure? {
    state.withLock { state -> PageFolder.Failure? in
      if let failure = state.failure { return failure }
      guard let index = state.index, index.hasFailed else { return nil }
      // A page whose write failed is not published: removed, and the failure thrown.
      do throws(PageFolder.Failure) {
        try index.publish()
      } catch {
        return error
      }
      return nil
    }
  }

  /// Opens the folder, when no asset did, and starts the page.
  func start() -> PageFolder.Failure? {
    state.withLock { start(&$0) }
  }

  private func start(_ state: inout State) -> PageFolder.Failure? {
    guard state.index == nil else { return nil }
    switch folder() {
    case .failure(let failure): return failure
    case .success(let folder):
      do throws(PageFolder.Failure) {
        let index = try folder.startIndex()
        index.write(state.head)
        state.index = index
        return nil
      } catch {
        return error
      }
    }
  }

  /// The rows not yet written, in order; none are kept.
  func takeWaiting() -> [Waiting] {
    state.withLock { state in
      let waiting = state.waiting
      state.waiting = []
      return waiting
    }
  }

  /// Writes the row of `asset` with `picture` (after the rows written before); `false`
  /// when the page cannot be written (``publish(folderProblems:)`` says why).
  func write(_ asset: Asset, picture: PagePicture) -> Bool {
    state.withLock { state in
      guard let index = state.index else { return false }
      index.write(state.page.row(asset, picture: picture))
      return !index.hasFailed
    }
  }

  /// Ends the page with the summary and `folderProblems` and gives it its name.
  func publish(folderProblems: [(path: LibraryPath, problem: AssetProblem)]) throws(PageFolder
    .Failure)
  {
    try state.withLock { state throws(PageFolder.Failure) in
      guard let index = state.index else { return }
      index.write(state.page.end(folderProblems: folderProblems))
      try index.publish()
    }
  }

  /// Removes the unfinished page, if one was started.
  func discard() {
    state.withLock { $0.index?.discard() }
  }
}
