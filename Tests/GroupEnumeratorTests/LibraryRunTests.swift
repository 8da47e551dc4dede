import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The engine's run under every entry point: a call whose task is cancelled stops with
/// ``LibraryError/cancelled``, whatever it would have read.
@Suite struct LibraryRunTests {
  /// A library of plain photos, two albums and no Live Photo candidate: the group list reads
  /// no file of it, so only the run's cancellation can stop it.
  private static func plainLibrary() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.add(Sample.photoWithGPS, as: "IMG_0001.JPG")
    try folder.add(Sample.photoWithoutMetadata, as: "Trip/IMG_0002.jpg")
    try folder.add(Sample.mp4, as: "Clips/clip.mp4")
    return folder
  }

  @Test func aCancelledTaskListsNoGroupsEvenWhereNoFileIsRead() async throws {
    let folder = try Self.plainLibrary()
    let library = AssetsLibrary(root: folder.root)
    let types: AssetGroup.Types = [.savedPhotos, .album, .library]
    let task = Task { () async throws(LibraryError) -> [AssetGroup] in
      withUnsafeCurrentTask { $0?.cancel() }
      return try await library.groups(types: types)
    }
    await #expect(throws: LibraryError.cancelled) { _ = try await task.value }
    // Not cancelled, the same call lists the Camera Roll, both albums and All Photos.
    let groups = try await library.groups(types: types)
    #expect(groups.map(\.kind) == [.savedPhotos, .album, .album, .library])
  }

  @Test func aCancelledTaskListsNoGroupsWhereLivePhotoCandidatesAreRead() async throws {
    let library = AssetsLibrary(root: Sample.library)
    let task = Task { () async throws(LibraryError) -> [AssetGroup] in
      withUnsafeCurrentTask { $0?.cancel() }
      return try await library.groups()
    }
    await #expect(throws: LibraryError.cancelled) { _ = try await task.value }
  }

  /// Every other entry point, cancelled the same way, ends the same way.
  @Test func everyEntryPointOfACancelledTaskThrowsCancelled() async throws {
    let folder = try Self.plainLibrary()
    let library = AssetsLibrary(root: folder.root)
    let path = LibraryPath("IMG_0001.JPG")
    let url = try #require(URL(string: "assets-library://asset/?id=\(UUID())"))
    let calls: [@Sendable () async throws -> Void] = [
      { _ = try await library.enumerate() },
      { _ = try await library.streamAssets(prepare: { $0 }, deliver: { _ in true }) },
      { for try await _ in library.assets() {} },
      { _ = try await library.asset(at: path) },
      { _ = try await library.asset(for: url) },
      { _ = try await library.otherFiles() },
      { _ = try await AssetFinder(library: library).asset(at: path) },
    ]
    for (number, call) in calls.enumerated() {
      let task = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        try await call()
      }
      await #expect(throws: LibraryError.cancelled, "call \(number)") { try await task.value }
      // Each call succeeds when not cancelled.
      try await call()
    }
  }
}
