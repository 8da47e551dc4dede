import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The sample library every newcomer lists first (`make demo`).
private let sampleLibrary = Sample.library

/// Collects a stream into an array.
private func collect(_ stream: some AsyncSequence<Asset, LibraryError>) async throws(LibraryError)
  -> [Asset]
{
  var assets: [Asset] = []
  for try await asset in stream { assets.append(asset) }
  return assets
}

@Suite struct AssetStreamTests {
  @Test(arguments: AssetFilter.allCases, [1, 3, 256])
  func theStreamDeliversWhatEnumerateListsInTheSameOrder(filter: AssetFilter, batchSize: Int)
    async throws
  {
    let library = AssetsLibrary(root: sampleLibrary)
    let listed = try await library.enumerate(filter: filter).assets
    let streamed = try await collect(library.assets(filter: filter, batchSize: batchSize))
    #expect(!listed.isEmpty)
    #expect(streamed.map(\.path) == listed.map(\.path))
    #expect(streamed == listed)
  }

  @Test func theLivePhotoIsStreamedOnceAsOneAsset() async throws {
    let streamed = try await collect(AssetsLibrary(root: sampleLibrary).assets(batchSize: 1))
    let live = streamed.filter { $0.type == .livePhoto }
    #expect(live.map(\.path) == [LibraryPath("DCIM/100APPLE/IMG_0200.HEIC")])
    #expect(!streamed.contains { $0.path == LibraryPath("DCIM/100APPLE/IMG_0200.MOV") })
  }

  @Test func aMissingRootThrowsRootNotFoundOnTheFirstNext() async throws {
    let missing = sampleLibrary.appendingPathComponent("no such folder")
    let stream = AssetsLibrary(root: missing).assets()
    await #expect(throws: LibraryError.rootNotFound(path: missing.path)) {
      _ = try await collect(stream)
    }
  }

  @Test func aStreamWhoseTaskIsCancelledThrowsCancelledAtTheNextBatch() async throws {
    let library = AssetsLibrary(root: sampleLibrary)
    let task = Task { () async throws(LibraryError) -> Int in
      var delivered = 0
      for try await _ in library.assets(batchSize: 1) {
        delivered += 1
        withUnsafeCurrentTask { $0?.cancel() }
      }
      return delivered
    }
    await #expect(throws: LibraryError.cancelled) { _ = try await task.value }
  }

  @Test func aLoopThatStopsEarlyGetsTheFirstAssetsInOrder() async throws {
    let library = AssetsLibrary(root: sampleLibrary)
    let listed = try await library.enumerate().assets
    var firstTwo: [Asset] = []
    for try await asset in library.assets(batchSize: 1) {
      firstTwo.append(asset)
      if firstTwo.count == 2 { break }
    }
    #expect(firstTwo == Array(listed.prefix(2)))
  }
}

@Suite struct AssetAtPathTests {
  @Test func everyFileOfEveryAssetFindsThatAsset() async throws {
    let library = AssetsLibrary(root: sampleLibrary)
    let listed = try await library.enumerate().assets
    let resources = listed.flatMap { asset in asset.resources.map { (asset, $0.path) } }
    #expect(resources.count > listed.count)  // a Live Photo's movie, sidecars
    for (asset, path) in resources {
      let found = try await library.asset(at: path)
      #expect(found == asset, "\(path)")
    }
  }

  @Test func theMovieAndTheSidecarOfALivePhotoGiveTheLivePhoto() async throws {
    let library = AssetsLibrary(root: sampleLibrary)
    for name in ["IMG_0200.HEIC", "IMG_0200.MOV", "IMG_0200.AAE"] {
      let found = try await library.asset(at: LibraryPath("DCIM/100APPLE/\(name)"))
      #expect(found?.type == .livePhoto, "\(name)")
      #expect(found?.path == LibraryPath("DCIM/100APPLE/IMG_0200.HEIC"), "\(name)")
    }
  }

  @Test(arguments: [
    "IMG_0003.JPG",  // nothing there
    "DCIM",  // a folder
    ".hidden.jpg",  // hidden
    "@eaDir/IMG_0001.JPG/SYNOPHOTO_THUMB_S.jpg",  // a NAS thumbnail folder
    "/IMG_0001.JPG",  // absolute, not relative to the root
    "img_0001.jpg",  // another case
    "",  // the root itself
  ])
  func aPathThatIsNoListedFileFindsNothing(path: String) async throws {
    let found = try await AssetsLibrary(root: sampleLibrary).asset(at: LibraryPath(path))
    #expect(found == nil)
  }

  @Test func aMissingRootThrowsRootNotFound() async throws {
    let missing = sampleLibrary.appendingPathComponent("no such folder")
    await #expect(throws: LibraryError.rootNotFound(path: missing.path)) {
      _ = try await AssetsLibrary(root: missing).asset(at: LibraryPath("IMG_0001.JPG"))
    }
  }
}
