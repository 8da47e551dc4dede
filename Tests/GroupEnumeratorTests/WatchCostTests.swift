import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// What a watch keeps and how it falls back: its state holds keys, not assets; a file
/// written unnamed and linked in is reported; running out of inotify watches is said.
@Suite(.serialized) struct WatchCostTests {
  /// A small real JPEG (1.5 KB, with GPS).
  let jpeg: [UInt8]

  init() throws {
    jpeg = try sampleBytes(Sample.photoWithGPS)
  }

  /// How many values of type `T` `value` holds, looking through its stored properties,
  /// collections and optionals (at most `depth` levels down).
  private func count<T>(_: T.Type, in value: Any, depth: Int = 12) -> Int {
    if value is T { return 1 }
    guard depth > 0 else { return 0 }
    return Mirror(reflecting: value).children.reduce(0) { sum, child in
      sum + count(T.self, in: child.value, depth: depth - 1)
    }
  }

  @Test func theWatchStateHoldsNoAsset() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "a.jpg")
    try folder.write(jpeg, as: "Album/b.jpg")
    try folder.write(jpeg, as: "Album/c.jpg")
    let library = AssetsLibrary(root: folder.root)
    let watcher = try await ChangeWatcher.start(library: library, interval: .milliseconds(250))
    let snapshot = await watcher.snapshot
    #expect(snapshot.assets.count == 3)
    #expect(count(LibrarySnapshot.Entry.self, in: snapshot) == 3)
    #expect(count(FileKey.self, in: snapshot) == 3)
    #expect(count(Asset.self, in: snapshot) == 0)
    #expect(count(MediaMetadata.self, in: snapshot) == 0)
  }

  @Test func aDeletedAssetIsNamedAsItWasLastSeen() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    try folder.write(jpeg, as: "Album/b.jpg")
    let watched = try await WatchedLibrary(folder)
    let before = try #require(try await watched.library.enumerate().assets.first)
    #expect(before.name == "a.jpg")
    #expect(unlink(folder.absolute("Album/a.jpg")) == 0)
    #expect(await watched.recorder.wait { !$0.deleted.isEmpty })
    let gone = try #require(watched.recorder.now.deleted.first)
    #expect(gone.id == before.id && gone.url == before.url && gone.path == before.path)
    #expect(gone.group == before.group && gone.groupPath == before.groupPath)
    #expect(gone.type == before.type && gone.fileSize == before.fileSize)
    #expect(gone.resources.map(\.path) == before.resources.map(\.path))
    #expect(gone.resources.map(\.role) == before.resources.map(\.role))
    #expect(gone.fileModificationDate == before.fileModificationDate)
    #expect(try await watched.settles())
    await watched.recorder.stop()
  }

  @Test func aPhotoWrittenUnnamedAndLinkedInIsReported() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    let watched = try await WatchedLibrary(folder)
    // `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`): an unnamed file in the folder, written,
    // then given its name with `linkat` through /proc/self/fd, as `glibc`'s manual shows.
    let oTmpfile: Int32 = 0o20_000_000 | O_DIRECTORY
    let descriptor = open(folder.absolute("Album"), oTmpfile | O_WRONLY | O_CLOEXEC, 0o644)
    try #require(descriptor >= 0, "O_TMPFILE unsupported here: errno \(errno)")
    let written = jpeg.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    #expect(written == jpeg.count)
    let linked = linkat(
      AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, folder.absolute("Album/new.jpg"),
      AT_SYMLINK_FOLLOW)
    #expect(linked == 0)
    close(descriptor)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "new.jpg" } })
    #expect(try await watched.settles())
    let new = watched.recorder.now.inserted.filter { $0.name == "new.jpg" }
    #expect(new.count == 1)
    #expect(new.first?.fileSize == Int64(jpeg.count))
    #expect(new.first?.problems == [])
    await watched.recorder.stop()
  }

  @Test func aPhotoWrittenUnnamedOutsideTheLibraryAndLinkedInIsReported() async throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    let watched = try await WatchedLibrary(folder)
    // Its writes and close are reported on no watch of the library: only its name is.
    let oTmpfile: Int32 = 0o20_000_000 | O_DIRECTORY
    let descriptor = open(outside.path, oTmpfile | O_WRONLY | O_CLOEXEC, 0o644)
    try #require(descriptor >= 0, "O_TMPFILE unsupported here: errno \(errno)")
    defer { close(descriptor) }
    let written = jpeg.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    #expect(written == jpeg.count)
    let linked = linkat(
      AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, folder.absolute("Album/in.jpg"),
      AT_SYMLINK_FOLLOW)
    try #require(linked == 0, "linkat: errno \(errno)")
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "in.jpg" } })
    #expect(try await watched.settles())
    await watched.recorder.stop()
  }

  @Test func runningOutOfWatchesIsSaidOnceAndRescansStillReport() async throws {
    let folder = try TemporaryFolder()
    for album in 0..<4 { try folder.write(jpeg, as: "Album \(album)/a.jpg") }
    let library = AssetsLibrary(root: folder.root)
    // Two watches for five folders: three are left to the rescans.
    let watcher = try await ChangeWatcher.start(
      library: library, interval: .milliseconds(250), watchLimit: 2)
    let changes = LibraryChanges(watcher: watcher)
    let recorder = ChangeRecorder(changes, from: try await library.enumerate())
    let warnings = await changes.warnings()
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains("fs.inotify.max_user_watches") == true)
    #expect(warnings.first?.contains("read again") == true)
    for album in 0..<4 { try writeFile(folder.absolute("Album \(album)/b.jpg"), jpeg) }
    #expect(await recorder.wait { $0.inserted.count == 4 })
    #expect(await changes.warnings().isEmpty)
    await recorder.stop()
  }

  @Test func everyFolderWatchedWarnsOfNothing() async throws {
    let folder = try TemporaryFolder()
    for album in 0..<4 { try folder.write(jpeg, as: "Album \(album)/a.jpg") }
    let library = AssetsLibrary(root: folder.root)
    let changes = try await library.changes()
    #expect(await changes.warnings().isEmpty)
  }
}
