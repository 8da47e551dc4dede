import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// The enumeration kept whole beside the index (``ContentsSnapshot``): handed back only
/// while the library reads as it did, equal to what reading it gives, and never trusted
/// when it is damaged, foreign or made for another call.
@Suite struct ContentsSnapshotTests {
  /// A settled copy of `Fixtures/Library`, and an index beside it.
  private struct Workspace {
    let folder: TemporaryFolder
    let library: URL
    var index: URL { folder.root.appendingPathComponent("index.sqlite") }
    var snapshot: String { index.path + ContentsSnapshot.suffix }

    init() async throws {
      folder = try TemporaryFolder("ContentsSnapshotTests")
      library = try folder.copyLibrary(as: "Library")
      try await Self.settle()
    }

    /// Waits until what changed now is old enough to be kept.
    static func settle() async throws {
      try await Task.sleep(for: .milliseconds(250))
    }

    /// One enumeration, with the index (or none), and how many progress calls it made.
    func enumerate(
      index: Bool = true, filter: AssetFilter = .all, options: LibraryOptions = LibraryOptions()
    ) async throws -> (contents: AssetsLibrary.Contents, progress: [[Int]]) {
      var options = options
      options.index = index ? .file(self.index) : .none
      let calls = Mutex<[[Int]]>([])
      let contents = try await AssetsLibrary(root: library, options: options).enumerate(
        filter: filter
      ) { current, total in calls.withLock { $0.append([current, total]) } }
      return (contents, calls.withLock { $0 })
    }

    /// The snapshot file's modification time, or `nil` when there is none.
    var snapshotTime: timespec? {
      var status = stat()
      return stat(snapshot, &status) == 0 ? status.st_mtim : nil
    }
  }

  /// Whether two enumerations found the same: assets, groups, other files, folder problems.
  private func same(_ left: AssetsLibrary.Contents, _ right: AssetsLibrary.Contents) -> Bool {
    left.assets == right.assets && left.groups == right.groups
      && left.otherFiles == right.otherFiles && left.folderProblems == right.folderProblems
  }

  private func equalTimes(_ left: timespec?, _ right: timespec?) -> Bool {
    left?.tv_sec == right?.tv_sec && left?.tv_nsec == right?.tv_nsec
  }

  /// The libraries every snapshot is compared on: the fixtures, then every folder listed
  /// (separated by `:`) in `GROUPENUMERATOR_SNAPSHOT_LIBRARIES` when set (`make
  /// snapshot-check` sets it to the shared corpus, its bad files and the hostile set,
  /// which `.ci/run` runs).
  static let libraries: [String] = {
    var libraries = [Sample.library.path, Sample.phones.url.path]
    if let extra = ProcessInfo.processInfo.environment["GROUPENUMERATOR_SNAPSHOT_LIBRARIES"] {
      libraries += extra.split(separator: ":").map(String.init)
    }
    return libraries
  }()

  @Test(arguments: libraries)
  func whatIsHandedBackIsWhatReadingGives(library: String) async throws {
    try #require(FileManager.default.fileExists(atPath: library), "no library at \(library)")
    let folder = try TemporaryFolder("ContentsSnapshotTests")
    let root = URL(fileURLWithPath: library)
    let index = LibraryOptions(index: .file(folder.root.appendingPathComponent("index.sqlite")))
    for filter in AssetFilter.allCases {
      let plain = try await AssetsLibrary(root: root).enumerate(filter: filter)
      let first = try await AssetsLibrary(root: root, options: index).enumerate(filter: filter)
      let calls = Mutex(0)
      let second = try await AssetsLibrary(root: root, options: index).enumerate(
        filter: filter
      ) { _, _ in calls.withLock { $0 += 1 } }
      let firstMatches = same(first, plain)
      let secondMatches = same(second, plain)
      #expect(firstMatches, "\(library), \(filter)")
      #expect(secondMatches, "\(library), \(filter)")
      // Handed back unless something in it depends on when it ran.
      if ContentsSnapshot.isTimeless(plain) {
        #expect(calls.withLock { $0 } == 1, "\(library), \(filter): not handed back")
      }
    }
  }

  @Test func anUnchangedLibraryIsHandedBackWholeAndEqual() async throws {
    let space = try await Workspace()
    let plain = try await space.enumerate(index: false).contents
    let first = try await space.enumerate()
    #expect(first.contents.statistics.filesRead > 10)
    #expect(space.snapshotTime != nil)
    let second = try await space.enumerate()
    let secondMatches = same(second.contents, plain)
    #expect(secondMatches)
    let firstMatches = same(first.contents, plain)
    #expect(firstMatches)
    #expect(second.contents.warnings.isEmpty)
    // Handed back: nothing read, every file from the index, one progress call.
    let total = plain.assets.count
    #expect(second.progress == [[total, total]])
    #expect(second.contents.statistics.filesRead == 0)
    #expect(second.contents.statistics.filesFromIndex == first.contents.statistics.filesRead)
    // The library holds what a snapshot keeps beside plain assets: a Live Photo,
    // sidecars and other files.
    #expect(plain.assets.contains { $0.type == .livePhoto })
    #expect(plain.assets.contains { $0.resources.contains { $0.role == .sidecar } })
    #expect(!plain.otherFiles.isEmpty)
  }

  @Test func everyKindOfChangeIsReadAgain() async throws {
    let space = try await Workspace()
    _ = try await space.enumerate()
    let library = space.library.path
    let changes: [(String, () throws -> Void)] = [
      // A file rewritten in place, same name and size: only the fingerprint sees it.
      (
        "rewritten",
        {
          let path = library + "/" + Sample.photoWithGPS
          var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
          bytes[bytes.count - 3] ^= 0xFF
          try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
      ),
      (
        "added",
        {
          try space.folder.add(Sample.photoWithoutMetadata, as: "Library/Videos/new.jpg")
        }
      ),
      ("renamed", { #expect(rename(library + "/Videos/new.jpg", library + "/Videos/n.jpg") == 0) }),
      ("removed", { #expect(unlink(library + "/Videos/n.jpg") == 0) }),
      ("folder made", { try space.folder.makeFolder("Library/Trips/Empty") }),
    ]
    for (name, change) in changes {
      // A snapshot of the library as it is, handed back.
      _ = try await space.enumerate()
      #expect(try await space.enumerate().progress.count == 1, "\(name)")
      try change()
      try await Workspace.settle()
      let plain = try await space.enumerate(index: false).contents
      // Read again, equal to a run without the index; a snapshot again within three more
      // runs: the run that reads the change leaves only its folders' times, the next
      // (reading nothing) says so, the next takes a fingerprint and keeps a snapshot.
      var runs: [(contents: AssetsLibrary.Contents, progress: [[Int]])] = []
      for _ in 0..<4 {
        let run = try await space.enumerate()
        runs.append(run)
        let matches = same(run.contents, plain)
        #expect(matches, "\(name), run \(runs.count)")
        if run.progress.count == 1 { break }
      }
      #expect(runs.first?.progress.count != 1, "\(name): the change was not seen")
      #expect(runs.count < 4 || runs[3].progress.count == 1, "\(name): no snapshot again")
    }
  }

  @Test func anotherFilterOrOptionsIsAnotherKey() async throws {
    let space = try await Workspace()
    _ = try await space.enumerate()
    _ = try await space.enumerate()
    let photos = try await space.enumerate(filter: .photos)
    let plainPhotos = try await space.enumerate(index: false, filter: .photos)
    let photosMatch = same(photos.contents, plainPhotos.contents)
    #expect(photosMatch)
    #expect(photos.progress.count > 1)
    // One snapshot per filter: the photos' is kept beside the one of everything, and
    // each is handed back.
    let allTime = space.snapshotTime
    let photosAgain = try await space.enumerate(filter: .photos)
    let photosAgainMatch = same(photosAgain.contents, plainPhotos.contents)
    #expect(photosAgainMatch)
    #expect(photosAgain.progress.count == 1)
    #expect(FileManager.default.fileExists(atPath: space.snapshot + "-photos"))
    let all = try await space.enumerate()
    #expect(all.progress.count == 1)
    #expect(equalTimes(space.snapshotTime, allTime))
    let hidden = LibraryOptions(includesHiddenFiles: true)
    let withHidden = try await space.enumerate(options: hidden)
    let plainHidden = try await space.enumerate(index: false, options: hidden)
    let hiddenMatches = same(withHidden.contents, plainHidden.contents)
    #expect(hiddenMatches)
    #expect(withHidden.progress.count > 1)
  }

  @Test func aDamagedOrForeignSnapshotIsNeverTrusted() async throws {
    let space = try await Workspace()
    let plain = try await space.enumerate(index: false).contents
    _ = try await space.enumerate()
    let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: space.snapshot)))
    var damaged: [(String, [UInt8])] = [
      ("empty", []),
      ("magic only", Array(ContentsSnapshot.magic)),
      ("cut short", Array(good.prefix(good.count / 2))),
      ("one byte less", Array(good.dropLast())),
    ]
    // A flipped byte in every part of the file: key, folders, fingerprint, contents, sum.
    for offset in stride(from: ContentsSnapshot.magic.count, to: good.count, by: good.count / 23) {
      var bytes = good
      bytes[offset] ^= 0x5A
      damaged.append(("byte \(offset)", bytes))
    }
    for (name, bytes) in damaged {
      try Data(bytes).write(to: URL(fileURLWithPath: space.snapshot))
      let again = try await space.enumerate()
      let matches = same(again.contents, plain)
      #expect(matches, "\(name)")
      #expect(again.progress.count > 1, "\(name)")
    }
    // A symbolic link in its place is not followed (and replaced by a file).
    try FileManager.default.removeItem(atPath: space.snapshot)
    _ = try await space.enumerate()
    let kept = try [UInt8](Data(contentsOf: URL(fileURLWithPath: space.snapshot)))
    let elsewhere = space.folder.absolute("elsewhere")
    try Data(kept).write(to: URL(fileURLWithPath: elsewhere))
    try FileManager.default.removeItem(atPath: space.snapshot)
    #expect(Glibc.symlink(elsewhere, space.snapshot) == 0)
    let linked = try await space.enumerate()
    let linkedMatches = same(linked.contents, plain)
    #expect(linkedMatches)
    #expect(linked.progress.count > 1)
    // A FIFO in its place does not block the call.
    try FileManager.default.removeItem(atPath: space.snapshot)
    #expect(mkfifo(space.snapshot, 0o600) == 0)
    let piped = try await space.enumerate()
    let pipedMatches = same(piped.contents, plain)
    #expect(pipedMatches)
    #expect(piped.progress.count > 1)
  }

  @Test func anIndexWrittenToSinceIsAnotherKey() async throws {
    let space = try await Workspace()
    _ = try await space.enumerate()
    _ = try await space.enumerate()
    // Damaged in place: the next run meets it, says so, and rebuilds it.
    let handle = try FileHandle(forWritingTo: space.index)
    try handle.write(contentsOf: Data(repeating: 0x41, count: 200))
    try handle.close()
    let again = try await space.enumerate()
    #expect(!again.contents.warnings.isEmpty)
    #expect(again.progress.count > 1)
  }

  @Test func nothingIsKeptWithoutAnIndexOrInsideTheLibrary() async throws {
    let space = try await Workspace()
    _ = try await space.enumerate(index: false)
    #expect(space.snapshotTime == nil)
    var options = LibraryOptions(index: .file(space.library.appendingPathComponent("index.sqlite")))
    options.maximumConcurrency = 2
    let inside = try await AssetsLibrary(root: space.library, options: options).enumerate()
    #expect(!inside.warnings.isEmpty)
    let names = try FileManager.default.contentsOfDirectory(atPath: space.library.path)
    #expect(!names.contains { $0.hasPrefix("index.sqlite") })
  }

  @Test func aPassingOrDateBoundProblemIsNeverKept() throws {
    let asset = Asset(
      path: LibraryPath("a.jpg"), group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [], fileModificationDate: Date(timeIntervalSince1970: 0),
      metadata: MediaMetadata())
    func contents(_ problems: [AssetProblem]) -> AssetsLibrary.Contents {
      let withProblems = Asset(
        path: asset.path, group: asset.group, groupPath: asset.groupPath, type: asset.type,
        resources: asset.resources, fileModificationDate: asset.fileModificationDate,
        metadata: asset.metadata, problems: problems)
      return AssetsLibrary.Contents(
        groups: [], assets: [withProblems], otherFiles: [], folderProblems: [:],
        statistics: EnumerationStatistics(
          walk: .zero, metadata: .zero, delivery: .zero, filesRead: 1, mainActorHops: 0),
        warnings: [])
    }
    #expect(ContentsSnapshot.isTimeless(contents([])))
    #expect(ContentsSnapshot.isTimeless(contents([AssetProblem(.invalidValue, "odd")])))
    #expect(!ContentsSnapshot.isTimeless(contents([AssetProblem(.vanished, "gone")])))
    #expect(
      !ContentsSnapshot.isTimeless(
        contents([AssetProblem(.invalidValue, "is \(AssetProblem.dateDependentWords)")])))
  }
}
