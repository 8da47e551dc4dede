import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

/// `streamAssets(filter:progress:prepare:deliver:)`: the same assets as `enumerate`, in
/// the same order, one delivery at a time, and a stop that really stops.
@Suite struct StreamingTests {
  @Test(arguments: [AssetFilter.all, .photos, .videos])
  func theFixturesStreamInTheOrderEnumerateReturns(filter: AssetFilter) async throws {
    let library = AssetsLibrary(root: Sample.library)
    let whole = try await library.enumerate(filter: filter)
    let delivered = Mutex<[LibraryPath]>([])
    let log = await MainActor.run { ProgressLog() }
    let summary = try await library.streamAssets(
      filter: filter, progress: { log.record($0, $1) }, prepare: { $0.path },
      deliver: { path in
        delivered.withLock { $0.append(path) }
        return true
      })
    #expect(delivered.withLock { $0 } == whole.assets.map(\.path))
    #expect(summary.assetCount == whole.assets.count)
    #expect(summary.groups == whole.groups)
    await log.expectWellFormed(total: whole.assets.count)
  }

  @Test func aLibraryLargerThanTheWindowIsDeliveredWholeAndInOrder() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    let count = AssetsLibrary.streamWindow * 2 + 17
    for index in 0..<count {
      try library.write([], as: String(format: "Album/%05d.jpg", index))
    }
    let names = Mutex<[String]>([])
    let inFlight = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)
    _ = try await AssetsLibrary(root: library.root, options: LibraryOptions(maximumConcurrency: 4))
      .streamAssets(
        prepare: { $0.name },
        deliver: { name in
          if inFlight.add(1, ordering: .relaxed).newValue > 1 {
            overlapped.store(true, ordering: .relaxed)
          }
          names.withLock { $0.append(name) }
          inFlight.subtract(1, ordering: .relaxed)
          return true
        })
    #expect(names.withLock { $0 } == (0..<count).map { String(format: "%05d.jpg", $0) })
    let didOverlap = overlapped.load(ordering: .relaxed)
    #expect(!didOverlap, "two deliveries ran at once")
  }

  /// `preparePlaced` is given each asset's place in the delivery, on the reading threads,
  /// in any order: the Demo's page names each picture after its row with it.
  @Test func eachAssetIsPreparedWithItsPlaceInTheDelivery() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    let count = AssetsLibrary.streamWindow + 300
    for index in 0..<count {
      try library.write([], as: String(format: "Album %d/%05d.jpg", index % 3, index))
    }
    let delivered = Mutex<[String]>([])
    let places = Mutex<[Int]>([])
    let summary = try await AssetsLibrary(
      root: library.root, options: LibraryOptions(maximumConcurrency: 4)
    )
    .streamAssets(
      preparePlaced: { asset, place in (name: asset.name, place: place) },
      deliver: { item in
        delivered.withLock { $0.append(item.name) }
        places.withLock { $0.append(item.place) }
        return true
      })
    #expect(summary.assetCount == count)
    #expect(places.withLock { $0 } == Array(0..<count))
    // The albums in order, each by name: the places follow the delivery, not the files.
    let expected = (0..<3).flatMap { album in
      stride(from: album, to: count, by: 3).map { String(format: "%05d.jpg", $0) }
    }
    #expect(delivered.withLock { $0 } == expected)
  }

  @Test func returningFalseStopsTheDeliveriesAndThrowsCancelled() async throws {
    let library = AssetsLibrary(root: Sample.library)
    let deliveries = Atomic<Int>(0)
    await #expect(throws: LibraryError.cancelled) {
      _ = try await library.streamAssets(
        prepare: { $0.path },
        deliver: { _ in deliveries.add(1, ordering: .relaxed).newValue < 3 })
    }
    let delivered = deliveries.load(ordering: .relaxed)
    #expect(delivered == 3)
  }

  @Test func cancellingTheTaskEndsTheStreamWithCancelled() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    for index in 0..<3000 { try library.write([], as: "A/\(index).jpg") }
    let started = AsyncStream<Void>.makeStream()
    let root = library.root
    let task = Task {
      try await AssetsLibrary(root: root).streamAssets(
        prepare: { $0.path },
        deliver: { _ in
          started.continuation.yield()
          usleep(1000)
          return true
        })
    }
    for await _ in started.stream { break }
    task.cancel()
    await #expect(throws: LibraryError.cancelled) { _ = try await task.value }
  }
}
