import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// Iterates a library's changes in a task and keeps what they add up to: the assets and
/// groups as the changes describe them, and every change.
final class ChangeRecorder: Sendable {
  struct State: Sendable {
    var assets: [UUID: Asset] = [:]
    var groups: [UUID: AssetGroup] = [:]
    var changes: [LibraryChange] = []
    var error: LibraryError?
    var hasEnded = false

    var inserted: [Asset] { changes.flatMap(\.insertedAssets) }
    var updated: [Asset] { changes.flatMap(\.updatedAssets) }
    var deleted: [Asset] { changes.flatMap(\.deletedAssets) }
    var insertedGroups: [AssetGroup] { changes.flatMap(\.insertedGroups) }
    var deletedGroups: [AssetGroup] { changes.flatMap(\.deletedGroups) }
  }

  /// The state behind a lock, shared with the iterating task.
  final class Box: Sendable {
    let mutex: Mutex<State>
    init(_ state: State) { mutex = Mutex(state) }
  }

  private let box: Box
  private let task: Task<Void, Never>

  /// Starts iterating `changes`, from the state `initial` describes.
  init(_ changes: LibraryChanges, from initial: AssetsLibrary.Contents) {
    var start = State()
    for asset in initial.assets { start.assets[asset.id] = asset }
    for group in initial.groups { start.groups[group.id] = group }
    let box = Box(start)
    self.box = box
    task = Task {

      do {
        for try await change in changes {
          box.mutex.withLock { state in
            for asset in change.deletedAssets { state.assets[asset.id] = nil }
            for asset in change.insertedAssets + change.updatedAssets {
              state.assets[asset.id] = asset
            }
            for group in change.deletedGroups { state.groups[group.id] = nil }
            for group in change.insertedGroups + change.updatedGroups {
              state.groups[group.id] = group
            }
            state.changes.append(change)
          }
        }
      } catch {
        box.mutex.withLock { $0.error = error as? LibraryError }
      }
      box.mutex.withLock { $0.hasEnded = true }
    }
  }

  /// The state now.
  var now: State { box.mutex.withLock { $0 } }

  /// Waits until `condition` holds, at most `timeout`; polls, never asserts on a sleep.
  func wait(
    timeout: Duration = .seconds(60), until condition: (State) -> Bool
  ) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
      if condition(now) { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return condition(now)
  }

  /// Stops iterating (cancels the task) and waits for it to end.
  func stop() async {
    task.cancel()
    await task.value
  }
}

/// A value behind a lock, for closures that run elsewhere.
final class Locked<Value: Sendable>: Sendable {
  let mutex: Mutex<Value>
  init(_ value: Value) { mutex = Mutex(value) }
}

/// A watched temporary library: the folder, the library, its changes being recorded.
struct WatchedLibrary {
  let folder: TemporaryFolder
  let library: AssetsLibrary
  let changes: LibraryChanges
  let recorder: ChangeRecorder

  /// Records changes the caller already started.
  init(
    folder: TemporaryFolder, library: AssetsLibrary, changes: LibraryChanges,
    recorder: ChangeRecorder
  ) {
    self.folder = folder
    self.library = library
    self.changes = changes
    self.recorder = recorder
  }

  /// Starts watching `folder` (already filled with what the test starts from).
  init(_ folder: TemporaryFolder, options: LibraryOptions = LibraryOptions()) async throws {
    self.folder = folder
    library = AssetsLibrary(root: folder.root, options: options)
    changes = try await library.changes()
    recorder = ChangeRecorder(changes, from: try await library.enumerate())
  }

  /// Waits until the recorded state equals a fresh enumeration's, at most `timeout`.
  func settles(timeout: Duration = .seconds(60)) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
      if try await matchesEnumeration() { return true }
      try await Task.sleep(for: .milliseconds(100))
    }
    return try await matchesEnumeration()
  }

  /// Whether the recorded assets and groups are exactly what `enumerate` says now.
  func matchesEnumeration() async throws -> Bool {
    let contents = try await library.enumerate()
    let state = recorder.now
    var assets: [UUID: Asset] = [:]
    for asset in contents.assets { assets[asset.id] = asset }
    var groups: [UUID: AssetGroup] = [:]
    for group in contents.groups { groups[group.id] = group }
    return state.assets == assets && state.groups == groups
  }
}

/// This process's inotify descriptors and descriptors of anything under `path` (the
/// watch suite runs serialized, so no other test holds an inotify descriptor meanwhile).
func watchDescriptors(under path: String) throws -> [String] {
  let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
  return names.compactMap { name in
    let target = try? FileManager.default.destinationOfSymbolicLink(
      atPath: "/proc/self/fd/" + name)
    return target.flatMap { $0.hasPrefix(path) || $0.contains("inotify") ? $0 : nil }
  }.sorted()
}

/// Writes `content` to `path` with plain system calls: `open(O_CREAT | O_TRUNC)`, one
/// `write`, `close` (so the watcher sees `IN_CLOSE_WRITE`), while no test starts a child
/// (``SpawnFence``: no child holds the descriptor, whose close would be reported again).
func writeFile(_ path: String, _ content: [UInt8]) throws {
  try SpawnFence.exclusive {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw TemporaryFolder.SetupError(description: "open \(path)")
    }
    defer { close(descriptor) }
    let written = content.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == content.count else {
      throw TemporaryFolder.SetupError(description: "write \(path)")
    }
  }
}

@Suite(.serialized) struct WatchTests {
  /// A small real JPEG (1.5 KB, with GPS).
  let jpeg: [UInt8]

  init() throws {
    jpeg = try sampleBytes(Sample.photoWithGPS)
  }

  @Test func aThousandFilesInTenNewFoldersAreExactlyAThousandInsertedAssetsAndTenGroups()
    async throws
  {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "start.jpg")
    let watched = try await WatchedLibrary(folder)
    for album in 0..<10 {
      try folder.makeFolder("Album \(album)")
      for photo in 0..<100 {
        try writeFile(folder.absolute("Album \(album)/IMG_\(photo).jpg"), jpeg)
      }
    }
    #expect(await watched.recorder.wait { $0.inserted.count >= 1000 })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.inserted.count == 1000)
    #expect(Set(state.inserted.map(\.id)).count == 1000)
    #expect(state.updated.isEmpty)
    #expect(state.deleted.isEmpty)
    #expect(state.insertedGroups.count == 10)
    // A group is inserted with its first assets; its later ones update it.
    #expect(
      Set(state.insertedGroups.map(\.path)) == Set((0..<10).map { LibraryPath("Album \($0)") }))
    #expect(state.groups.values.filter { $0.kind == .album }.allSatisfy { $0.count == 100 })
    #expect(state.deletedGroups.isEmpty)
    await watched.recorder.stop()
  }

  @Test func aRewrittenFileIsOneUpdate() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    try folder.write(jpeg, as: "Album/b.jpg")
    let watched = try await WatchedLibrary(folder)
    try writeFile(folder.absolute("Album/a.jpg"), jpeg)
    #expect(await watched.recorder.wait { !$0.updated.isEmpty })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.updated.map(\.path) == [LibraryPath("Album/a.jpg")])
    #expect(state.inserted.isEmpty && state.deleted.isEmpty)
    #expect(state.changes.count == 1)
    #expect(state.changes.first?.updatedGroups.map(\.path) == [LibraryPath("Album")])
    await watched.recorder.stop()
  }

  @Test func aRenameIsADeleteAndAnInsertWithTheNewURL() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/old.jpg")
    let watched = try await WatchedLibrary(folder)
    let before = try #require(watched.recorder.now.assets.values.first)
    #expect(rename(folder.absolute("Album/old.jpg"), folder.absolute("Album/new.jpg")) == 0)
    #expect(await watched.recorder.wait { !$0.inserted.isEmpty && !$0.deleted.isEmpty })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.deleted.map(\.url) == [before.url])
    #expect(state.inserted.map(\.path) == [LibraryPath("Album/new.jpg")])
    #expect(state.inserted.first?.url != before.url)
    #expect(state.updated.isEmpty)
    await watched.recorder.stop()
  }

  @Test func aDeletedFolderDeletesItsAssetsAndItsGroup() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Keep/a.jpg")
    for name in ["x", "y", "z"] { try folder.write(jpeg, as: "Gone/Inner/\(name).jpg") }
    let watched = try await WatchedLibrary(folder)
    try FileManager.default.removeItem(atPath: folder.absolute("Gone"))
    #expect(await watched.recorder.wait { $0.deleted.count == 3 && !$0.deletedGroups.isEmpty })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.deletedGroups.map(\.path) == [LibraryPath("Gone/Inner")])
    #expect(Set(state.deleted.map(\.name)) == ["x.jpg", "y.jpg", "z.jpg"])
    #expect(state.inserted.isEmpty && state.updated.isEmpty)
    await watched.recorder.stop()
  }

  @Test func aHalfWrittenFileIsNotReportedUntilItIsClosed() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/first.jpg")
    let watched = try await WatchedLibrary(folder)
    let path = folder.absolute("Album/slow.jpg")
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    try #require(descriptor >= 0)
    let half = jpeg.count / 2
    _ = jpeg.withUnsafeBytes { write(descriptor, $0.baseAddress, half) }
    // A complete file written after the half one: once it is reported, the half one has
    // been seen by the watcher (and must not be reported).
    try writeFile(folder.absolute("Album/marker.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "marker.jpg" } })
    _ = jpeg.withUnsafeBytes { write(descriptor, $0.baseAddress! + half, jpeg.count - half) }
    try await Task.sleep(for: .milliseconds(600))
    #expect(!watched.recorder.now.inserted.contains { $0.name == "slow.jpg" })
    close(descriptor)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "slow.jpg" } })
    #expect(try await watched.settles())
    let slow = watched.recorder.now.inserted.filter { $0.name == "slow.jpg" }
    #expect(slow.count == 1)
    #expect(slow.first?.fileSize == Int64(jpeg.count))
    #expect(slow.first?.problems == [])
    await watched.recorder.stop()
  }

  @Test func withAnIndexTheChangesAreTheSame() async throws {
    let folder = try TemporaryFolder()
    let cache = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    try folder.write(jpeg, as: "Album/b.jpg")
    let index = LibraryOptions(index: .file(cache.root.appendingPathComponent("index.sqlite")))
    let watched = try await WatchedLibrary(folder, options: index)
    try writeFile(folder.absolute("Album/a.jpg"), jpeg)
    try writeFile(folder.absolute("Album/c.jpg"), jpeg)
    #expect(await watched.recorder.wait { !$0.updated.isEmpty && !$0.inserted.isEmpty })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.updated.map(\.name) == ["a.jpg"])
    #expect(state.inserted.map(\.name) == ["c.jpg"])
    #expect(state.deleted.isEmpty)
    await watched.recorder.stop()
  }

  @Test func aHardLinkIsReportedThoughNoCloseFollowsIt() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    let watched = try await WatchedLibrary(folder)
    #expect(link(folder.absolute("Album/a.jpg"), folder.absolute("Album/b.jpg")) == 0)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "b.jpg" } })
    #expect(try await watched.settles())
    await watched.recorder.stop()
  }

  @Test func aMovieArrivingBesideItsStillUpdatesThePhotoIntoALivePhoto() async throws {
    let folder = try TemporaryFolder()
    try folder.add(Sample.liveStill, as: "Live/IMG_0200.HEIC")
    let watched = try await WatchedLibrary(folder)
    let still = try #require(watched.recorder.now.assets.values.first)
    #expect(still.type == .photo)
    try folder.add(Sample.liveMovie, as: "Live/IMG_0200.MOV")
    #expect(await watched.recorder.wait { !$0.updated.isEmpty })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.updated.map(\.id) == [still.id])
    #expect(state.updated.first?.type == .livePhoto)
    #expect(state.inserted.isEmpty && state.deleted.isEmpty)
    await watched.recorder.stop()
  }

  @Test func anOverflowedEventQueueStillEndsInTheExactState() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/keep.jpg")
    try folder.write(jpeg, as: "Album/drop.jpg")
    let library = AssetsLibrary(root: folder.root)
    let changes = try await library.changes()
    let initial = try await library.enumerate()
    // Nobody reads the queue while more events than it holds are made in a watched
    // folder: each empty file created, closed and removed is three events.
    let limit =
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
      .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
    for number in 0..<(limit / 3 + 500) {
      let path = folder.absolute("Album/f\(number).jpg")
      try writeFile(path, [])
      unlink(path)
    }
    try folder.makeFolder("Late")
    for number in 0..<5 { try writeFile(folder.absolute("Late/\(number).jpg"), jpeg) }
    try folder.remove("Album/drop.jpg")
    try writeFile(folder.absolute("Album/keep.jpg"), jpeg)
    let recorder = ChangeRecorder(changes, from: initial)
    let watched = WatchedLibrary(
      folder: folder, library: library, changes: changes, recorder: recorder)
    #expect(await recorder.wait { !$0.changes.isEmpty })
    #expect(try await watched.settles())
    #expect(await changes.watcher.overflows >= 1)
    let state = recorder.now
    #expect(state.inserted.count == 5)
    #expect(state.deleted.map(\.name) == ["drop.jpg"])
    #expect(state.insertedGroups.map(\.path) == [LibraryPath("Late")])
    await recorder.stop()
  }

  @Test func theRootRemovedEndsTheChangesWithAnError() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "a.jpg")
    let watched = try await WatchedLibrary(folder)
    folder.remove()
    #expect(await watched.recorder.wait { $0.hasEnded })
    #expect(watched.recorder.now.error == .rootNotFound(path: folder.path))
  }

  @Test func everyDescriptorIsClosedWhenTheWatchIsCancelledOrDropped() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    let before = try watchDescriptors(under: folder.path)
    do {
      let watched = try await WatchedLibrary(folder)
      #expect(try watchDescriptors(under: folder.path).count > before.count)
      try writeFile(folder.absolute("Album/b.jpg"), jpeg)
      #expect(await watched.recorder.wait { !$0.inserted.isEmpty })
      await watched.recorder.stop()
    }
    #expect(await descriptorsReturn(to: before, under: folder.path))
    // Never iterated: dropping the sequence closes them too.
    do {
      let changes = try await AssetsLibrary(root: folder.root).changes()
      #expect(try watchDescriptors(under: folder.path).count > before.count)
      _ = changes
    }
    #expect(await descriptorsReturn(to: before, under: folder.path))
  }

  @Test func linksOutOfTheLibraryAreNeitherWatchedNorReported() async throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    try outside.write(jpeg, as: "Outside/o.jpg")
    try folder.write(jpeg, as: "Album/a.jpg")
    let watched = try await WatchedLibrary(folder)
    try folder.symlink("Linked", to: outside.absolute("Outside"))
    try folder.symlink("Album/link.jpg", to: outside.absolute("Outside/o.jpg"))
    try writeFile(outside.absolute("Outside/later.jpg"), jpeg)
    try writeFile(folder.absolute("Album/marker.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "marker.jpg" } })
    #expect(try await watched.settles())
    #expect(watched.recorder.now.inserted.map(\.name) == ["marker.jpg"])
    var status = stat()
    try #require(stat(outside.absolute("Outside"), &status) == 0)
    #expect(try !watchedInodes().contains(UInt64(status.st_ino)))
    await watched.recorder.stop()
  }

  @Test func aFolderRenamedIsFollowed() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Before/a.jpg")
    let watched = try await WatchedLibrary(folder)
    #expect(rename(folder.absolute("Before"), folder.absolute("After")) == 0)
    #expect(await watched.recorder.wait { !$0.insertedGroups.isEmpty })
    // A file written into the moved folder is seen there (the watch followed it).
    try writeFile(folder.absolute("After/b.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "b.jpg" } })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(state.deletedGroups.map(\.path) == [LibraryPath("Before")])
    #expect(state.insertedGroups.map(\.path) == [LibraryPath("After")])
    #expect(
      Set(state.assets.values.map(\.path)) == [
        LibraryPath("After/a.jpg"), LibraryPath("After/b.jpg"),
      ])
    await watched.recorder.stop()
  }

  @Test func theLegacyNotificationIsPostedOnTheMainActorWithTheOriginalKeys() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "Album/a.jpg")
    try folder.write(jpeg, as: "Old/o.jpg")
    let library = AssetsLibrary(root: folder.root)
    let before = try await library.enumerate()
    let received = Locked<[[String: Set<URL>]]>([])
    let observer = NotificationCenter.default.addObserver(
      forName: .ALAssetsLibraryChanged, object: library, queue: nil
    ) { notification in
      // Traps unless the notification is posted on the main actor.
      MainActor.assumeIsolated {}
      var info: [String: Set<URL>] = [:]
      for (key, value) in notification.userInfo ?? [:] {
        if let key = key as? String, let value = value as? Set<URL> { info[key] = value }
      }
      received.mutex.withLock { $0.append(info) }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    let started = Locked(false)
    let failure = Locked<LibraryError?>(nil)
    let handle = library.postChangeNotifications(
      started: { started.mutex.withLock { $0 = true } },
      fail: { error in failure.mutex.withLock { $0 = error } })
    #expect(await waitUntil { started.mutex.withLock { $0 } })
    try writeFile(folder.absolute("Album/b.jpg"), jpeg)
    try folder.makeFolder("New")
    try writeFile(folder.absolute("New/n.jpg"), jpeg)
    try FileManager.default.removeItem(atPath: folder.absolute("Old"))
    let after = try await library.enumerate()
    let expected: [String: Set<URL>] = [
      ALAssetLibraryUpdatedAssetsKey: Set(
        after.assets.filter { ["b.jpg", "n.jpg"].contains($0.name) }.map(\.url)
          + before.assets.filter { $0.name == "o.jpg" }.map(\.url)),
      ALAssetLibraryInsertedAssetGroupsKey: Set(
        after.groups.filter { $0.path == LibraryPath("New") }.map(\.url)),
      ALAssetLibraryUpdatedAssetGroupsKey: Set(
        after.groups.filter { $0.path == LibraryPath("Album") }.map(\.url)),
      ALAssetLibraryDeletedAssetGroupsKey: Set(
        before.groups.filter { $0.path == LibraryPath("Old") }.map(\.url)),
    ]
    let union: () -> [String: Set<URL>] = {
      received.mutex.withLock { $0.reduce(into: [:]) { $0.merge($1) { $0.union($1) } } }
    }
    #expect(await waitUntil { union() == expected })
    #expect(union() == expected)
    handle.cancel()
    await handle.wait()
    #expect(failure.mutex.withLock { $0 } == nil)
  }

  /// Waits until `condition` holds, at most a minute; polls, never asserts on a sleep.
  private func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
  }

  /// Waits until this process's watch descriptors are `expected` again.
  private func descriptorsReturn(to expected: [String], under path: String) async -> Bool {
    for _ in 0..<300 {
      if (try? watchDescriptors(under: path)) == expected { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return (try? watchDescriptors(under: path)) == expected
  }

  /// The inodes every inotify descriptor of this process watches
  /// (`/proc/self/fdinfo/N`: `inotify wd:1 ino:1a2b …`, the inode in hexadecimal).
  private func watchedInodes() throws -> Set<UInt64> {
    var inodes: Set<UInt64> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo") {
      guard let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + name, encoding: .utf8)
      else { continue }
      for line in info.split(separator: "\n") where line.hasPrefix("inotify wd:") {
        for field in line.split(separator: " ") where field.hasPrefix("ino:") {
          if let inode = UInt64(field.dropFirst(4), radix: 16) { inodes.insert(inode) }
        }
      }
    }
    return inodes
  }
}

/// What a change batch lists: only the folders it touched (issue 15's follow-up).
@Suite(.serialized) struct WatchListingTests {
  /// A small real JPEG (1.5 KB, with GPS).
  let jpeg: [UInt8]

  init() throws {
    jpeg = try sampleBytes(Sample.photoWithGPS)
  }

  /// The folders listed more often now than in `before`.
  private func listedSince(_ before: [LibraryPath: Int], _ watched: WatchedLibrary) async
    -> Set<LibraryPath>
  {
    let now = await watched.changes.watcher.listings
    return Set(now.filter { $0.value > before[$0.key] ?? 0 }.keys)
  }

  @Test func aFileAddedToOneAlbumListsThatFolderAlone() async throws {
    let folder = try TemporaryFolder()
    for album in 0..<40 { try folder.write(jpeg, as: "Album \(album)/a.jpg") }
    let watched = try await WatchedLibrary(folder)
    let before = await watched.changes.watcher.listings
    // The first reading listed every folder: the root and the 40 albums.
    #expect(before.count == 41)
    try writeFile(folder.absolute("Album 7/b.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "b.jpg" } })
    #expect(try await watched.settles())
    #expect(await listedSince(before, watched) == [LibraryPath("Album 7")])
    let state = watched.recorder.now
    #expect(state.inserted.map(\.path) == [LibraryPath("Album 7/b.jpg")])
    #expect(state.changes.flatMap(\.updatedGroups).map(\.path) == [LibraryPath("Album 7")])
    await watched.recorder.stop()
  }

  @Test func aNewFolderListsItsSubtreeAndItsParentOnly() async throws {
    let folder = try TemporaryFolder()
    for album in 0..<20 { try folder.write(jpeg, as: "Trips/Album \(album)/a.jpg") }
    try folder.write(jpeg, as: "Family/a.jpg")
    let watched = try await WatchedLibrary(folder)
    let before = await watched.changes.watcher.listings
    let walkedBefore = await watched.changes.watcher.foldersWalkedForWatches
    // Watching started with a walk of all 23 folders.
    #expect(walkedBefore == 23)
    try folder.makeFolder("Trips/New")
    try folder.makeFolder("Trips/New/Inner")
    try writeFile(folder.absolute("Trips/New/Inner/b.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "b.jpg" } })
    #expect(try await watched.settles())
    let listed = await listedSince(before, watched)
    #expect(listed.contains(LibraryPath("Trips/New/Inner")))
    #expect(
      listed.isSubset(of: [
        LibraryPath("Trips"), LibraryPath("Trips/New"), LibraryPath("Trips/New/Inner"),
      ]))
    #expect(watched.recorder.now.insertedGroups.map(\.path) == [LibraryPath("Trips/New/Inner")])
    // The new folders were watched by walking them alone (each at most twice: once as
    // part of the new tree, once more if its own creation was seen from a watch).
    let walked = await watched.changes.watcher.foldersWalkedForWatches - walkedBefore
    #expect((2...4).contains(walked))
    // The new folders are watched: a file written there later is seen too.
    try writeFile(folder.absolute("Trips/New/Inner/c.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.contains { $0.name == "c.jpg" } })
    #expect(try await watched.settles())
    await watched.recorder.stop()
  }

  @Test func filesAddedUnderDCIMAndInTheRootAreInsertedIntoTheCameraRoll() async throws {
    let folder = try TemporaryFolder()
    try folder.write(jpeg, as: "IMG_0001.jpg")
    try folder.write(jpeg, as: "DCIM/100APPLE/IMG_0002.jpg")
    try folder.write(jpeg, as: "DCIM/101APPLE/IMG_0003.jpg")
    for album in 0..<10 { try folder.write(jpeg, as: "Album \(album)/a.jpg") }
    let watched = try await WatchedLibrary(folder)
    let cameraRoll = try #require(
      watched.recorder.now.groups.values.first { $0.kind == .savedPhotos })
    #expect(cameraRoll.count == 3)
    // A new folder under DCIM: none of the Camera Roll's known folders changed, yet it
    // is read whole, not replaced by the new folder's one file.
    try folder.makeFolder("DCIM/102APPLE")
    try writeFile(folder.absolute("DCIM/102APPLE/IMG_0006.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.count >= 1 })
    #expect(try await watched.settles())
    #expect(watched.recorder.now.groups[cameraRoll.id]?.count == 4)
    let before = await watched.changes.watcher.listings
    try writeFile(folder.absolute("DCIM/100APPLE/IMG_0004.jpg"), jpeg)
    try writeFile(folder.absolute("IMG_0005.jpg"), jpeg)
    #expect(await watched.recorder.wait { $0.inserted.count >= 3 })
    #expect(try await watched.settles())
    let state = watched.recorder.now
    #expect(
      state.inserted.map(\.path).sorted() == [
        LibraryPath("DCIM/100APPLE/IMG_0004.jpg"), LibraryPath("DCIM/102APPLE/IMG_0006.jpg"),
        LibraryPath("IMG_0005.jpg"),
      ])
    #expect(state.inserted.allSatisfy { $0.group == .savedPhotos && $0.groupPath == .root })
    #expect(state.insertedGroups.isEmpty && state.deleted.isEmpty)
    #expect(Set(state.changes.flatMap(\.updatedGroups).map(\.id)) == [cameraRoll.id])
    #expect(state.groups[cameraRoll.id]?.count == 6)
    // The Camera Roll is read whole (all four of its folders), no album is listed.
    let listed = await listedSince(before, watched)
    let cameraRollFolders: Set<LibraryPath> = [
      .root, LibraryPath("DCIM/100APPLE"), LibraryPath("DCIM/101APPLE"),
      LibraryPath("DCIM/102APPLE"),
    ]
    #expect(listed.isSuperset(of: [LibraryPath.root, LibraryPath("DCIM/100APPLE")]))
    #expect(listed.isSubset(of: cameraRollFolders))
    await watched.recorder.stop()
  }
}
