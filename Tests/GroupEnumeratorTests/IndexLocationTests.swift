import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// ``IndexLocation/userCache``: one index per library under `$XDG_CACHE_HOME` (or
/// `~/.cache`), never inside the library, and an index another process keeps locked
/// is not used, with one warning and the same output.
@Suite struct IndexLocationTests {
  /// A settled copy of `Fixtures/Library` at `relative` in `folder`.
  private func copiedLibrary(in folder: TemporaryFolder, at relative: String = "Library")
    async throws -> URL
  {
    let library = folder.root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: library.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: Sample.library, to: library)
    try await Task.sleep(for: .seconds(FileKey.settlingTime * 2))
    return library
  }

  /// One enumeration of `root` with `index`, in `environment`.
  private func enumerate(
    _ root: URL, index: IndexLocation, environment: [String: String] = [:]
  ) async throws -> AssetsLibrary.Contents {
    try await IndexLocation.$environmentForTesting.withValue(environment) {
      try await AssetsLibrary(root: root, options: LibraryOptions(index: index)).enumerate()
    }
  }

  private func json(_ contents: AssetsLibrary.Contents) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(contents.assets)
  }

  /// The files in `folder`, by name; empty when it does not exist.
  private func names(in folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  }

  private func mode(of path: String) -> mode_t {
    var status = stat()
    guard stat(path, &status) == 0 else { return 0 }
    return status.st_mode & 0o7777
  }

  // MARK: - Names and folders

  @Test func theFileNameIsAReadableStemAndAHashOfTheWholePath() {
    let a = IndexLocation.fileName(forRoot: Array("/srv/a/Photos".utf8))
    let b = IndexLocation.fileName(forRoot: Array("/srv/b/Photos".utf8))
    #expect(a.hasPrefix("Photos-") && a.hasSuffix(".sqlite"))
    #expect(b.hasPrefix("Photos-") && b.hasSuffix(".sqlite"))
    #expect(a != b)
    #expect(a.count == "Photos-".count + 16 + ".sqlite".count)
    #expect(IndexLocation.fileName(forRoot: Array("/srv/a/Photos".utf8)) == a)
    // 64-bit FNV-1a of the empty path is its offset basis.
    #expect(IndexLocation.fileName(forRoot: []) == "root-cbf29ce484222325.sqlite")
    #expect(IndexLocation.fileName(forRoot: Array("/".utf8)).hasPrefix("root-"))
  }

  @Test func aStemIsMadeSafeShortAndNeverHidden() {
    let odd = IndexLocation.fileName(forRoot: Array("/x/.Fotos ü".utf8) + [0xFF])
    #expect(odd.hasPrefix("_Fotos____-"), "\(odd)")
    let huge = "/" + String(repeating: "d/", count: 1500) + String(repeating: "n", count: 255)
    let name = IndexLocation.fileName(forRoot: Array(huge.utf8))
    #expect(name.utf8.count == IndexLocation.stemLimit + 1 + 16 + ".sqlite".count)
    #expect(name.allSatisfy { $0.isASCII && $0 != "/" })
  }

  @Test func theCacheFolderIsXDGCacheHomeWhenAbsoluteElseHomeDotCache() {
    let folder = IndexLocation.cacheFolder
    #expect(
      folder(["XDG_CACHE_HOME": "/c", "HOME": "/h"]) == "/c/groupenumerator")
    #expect(folder(["XDG_CACHE_HOME": "c", "HOME": "/h"]) == "/h/.cache/groupenumerator")
    #expect(folder(["XDG_CACHE_HOME": "", "HOME": "/h"]) == "/h/.cache/groupenumerator")
    #expect(folder(["HOME": "/h"]) == "/h/.cache/groupenumerator")
    #expect(folder(["XDG_CACHE_HOME": "c", "HOME": "h"]) == nil)
    #expect(folder([:]) == nil)
  }

  // MARK: - The default index

  @Test func theDefaultIndexIsMadeInTheCacheFolderAndUsedByTheNextRun() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let cache = folder.root.appendingPathComponent("cache/deeper")
    let environment = ["XDG_CACHE_HOME": cache.path]
    let plain = try await enumerate(library, index: .none)
    let first = try await enumerate(library, index: .userCache, environment: environment)
    let second = try await enumerate(library, index: .userCache, environment: environment)
    #expect(first.warnings.isEmpty && second.warnings.isEmpty, "\(first.warnings)")
    #expect(try json(first) == json(plain))
    #expect(try json(second) == json(plain))
    #expect(second.statistics.filesRead == 0)
    #expect(second.statistics.filesFromIndex == plain.statistics.filesRead)
    let indexes = cache.appendingPathComponent("groupenumerator")
    let expected = IndexLocation.fileName(
      forRoot: Array(library.resolvingSymlinksInPath().path.utf8))
    #expect(names(in: indexes) == [expected])
    #expect(mode(of: cache.path) == 0o700)
    #expect(mode(of: indexes.path) == 0o700)
  }

  @Test func twoLibrariesWithOneNameGetTwoIndexes() async throws {
    let folder = try TemporaryFolder()
    let one = try await copiedLibrary(in: folder, at: "A/Photos")
    let two = try await copiedLibrary(in: folder, at: "B/Photos")
    try FileManager.default.removeItem(at: two.appendingPathComponent(Sample.photoWithGPS))
    let environment = ["XDG_CACHE_HOME": folder.root.appendingPathComponent("cache").path]
    for library in [one, two, one, two] {
      _ = try await enumerate(library, index: .userCache, environment: environment)
    }
    for library in [one, two] {
      let plain = try await enumerate(library, index: .none)
      let again = try await enumerate(library, index: .userCache, environment: environment)
      #expect(again.warnings.isEmpty, "\(again.warnings)")
      #expect(again.statistics.filesRead == 0)
      #expect(try json(again) == json(plain))
    }
    let indexes = names(in: folder.root.appendingPathComponent("cache/groupenumerator"))
    #expect(indexes.count == 2)
    #expect(indexes.allSatisfy { $0.hasPrefix("Photos-") })
  }

  @Test func aLibraryWithAHugePathGetsAShortIndexName() async throws {
    let folder = try TemporaryFolder()
    let deep = (0..<12).map { _ in String(repeating: "f", count: 200) }.joined(separator: "/")
    let parent = folder.root.appendingPathComponent(deep)
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    let short = try await copiedLibrary(in: folder)
    let library = parent.appendingPathComponent(String(repeating: "L", count: 250))
    #expect(rename(short.path, library.path) == 0)
    #expect(library.path.utf8.count > 2500)
    let environment = ["XDG_CACHE_HOME": folder.root.appendingPathComponent("cache").path]
    let plain = try await enumerate(library, index: .none)
    _ = try await enumerate(library, index: .userCache, environment: environment)
    let again = try await enumerate(library, index: .userCache, environment: environment)
    #expect(again.warnings.isEmpty, "\(again.warnings)")
    #expect(again.statistics.filesRead == 0)
    #expect(try json(again) == json(plain))
  }

  /// Cache folders the default index must not use.
  enum BadCache: String, CaseIterable, Sendable {
    case relativeWithoutHome, aFile, underAFile, insideTheLibrary, aLinkIntoTheLibrary
    case dotDotBeneathAMissingFolder
  }

  @Test(arguments: BadCache.allCases)
  func aCacheFolderThatCannotBeUsedGivesOneWarningAndTheSameOutput(bad: BadCache)
    async throws
  {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let file = folder.root.appendingPathComponent("file")
    try Data("x".utf8).write(to: file)
    let environment: [String: String]
    let expected: String
    switch bad {
    case .relativeWithoutHome:
      environment = ["XDG_CACHE_HOME": "cache"]
      expected = "neither XDG_CACHE_HOME nor HOME"
    case .aFile:
      // The index folder would be `file/groupenumerator`.
      environment = ["XDG_CACHE_HOME": file.path]
      expected = "cannot be created"
    case .underAFile:
      environment = ["XDG_CACHE_HOME": file.path + "/cache"]
      expected = "cannot be created"
    case .insideTheLibrary:
      environment = ["XDG_CACHE_HOME": library.path + "/Trips/cache"]
      expected = "inside the library"
    case .aLinkIntoTheLibrary:
      let link = folder.root.appendingPathComponent("link")
      try FileManager.default.createSymbolicLink(
        at: link, withDestinationURL: library.appendingPathComponent("Trips"))
      environment = ["XDG_CACHE_HOME": link.path + "/new"]
      expected = "inside the library"
    case .dotDotBeneathAMissingFolder:
      environment = ["XDG_CACHE_HOME": folder.root.path + "/missing/../cache"]
      expected = "cannot be resolved"
    }
    let before = try FileManager.default.subpathsOfDirectory(atPath: library.path).sorted()
    let plain = try await enumerate(library, index: .none)
    let contents = try await enumerate(library, index: .userCache, environment: environment)
    #expect(contents.warnings.count == 1, "\(contents.warnings)")
    #expect(contents.warnings.first?.contains(expected) == true, "\(contents.warnings)")
    #expect(try json(contents) == json(plain))
    #expect(contents.statistics.filesFromIndex == 0)
    // An index kept quietly (not asked for by the user) says nothing, and lists the same.
    var quiet = LibraryOptions(index: .userCache)
    quiet.keepsIndexQuietly = true
    let quietContents = try await IndexLocation.$environmentForTesting.withValue(environment) {
      try await AssetsLibrary(root: library, options: quiet).enumerate()
    }
    #expect(quietContents.warnings.isEmpty, "\(quietContents.warnings)")
    #expect(try json(quietContents) == json(plain))
    #expect(try FileManager.default.subpathsOfDirectory(atPath: library.path).sorted() == before)
  }

  // MARK: - Locked

  @Test func anIndexLockedPastTheBusyTimeoutIsNotUsedWithOneWarning() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let environment = [IndexStore.busyTimeoutVariable: "200"]
    let plain = try await enumerate(library, index: .none)
    let first = try await enumerate(library, index: .file(index), environment: environment)
    #expect(first.warnings.isEmpty)
    // The enumeration kept whole beside the index would be handed back without opening
    // the index at all (ContentsSnapshotTests): this test is about the index.
    try FileManager.default.removeItem(atPath: index.path + ContentsSnapshot.suffix)
    do {
      // Another connection takes the write lock and keeps it past the timeout.
      let holder = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 0)
      try holder.execute("BEGIN EXCLUSIVE")
      let clock = ContinuousClock()
      let start = clock.now
      let locked = try await enumerate(library, index: .file(index), environment: environment)
      #expect(clock.now - start < .seconds(8), "the 200 ms timeout was not used")
      #expect(locked.warnings.count == 1, "\(locked.warnings)")
      #expect(locked.warnings.first?.contains("locked by another process") == true)
      #expect(try json(locked) == json(plain))
      #expect(locked.statistics.filesFromIndex == 0)
      try holder.execute("ROLLBACK")
    }
    // The lock is gone: the index (untouched while locked) is used again.
    let after = try await enumerate(library, index: .file(index), environment: environment)
    #expect(after.warnings.isEmpty, "\(after.warnings)")
    #expect(after.statistics.filesRead == 0)
    #expect(try json(after) == json(plain))
  }

  @Test func theBusyTimeoutComesFromTheEnvironmentWithinItsRange() {
    let variable = IndexStore.busyTimeoutVariable
    #expect(IndexStore.busyTimeout(in: [variable: "250"]) == 250)
    #expect(IndexStore.busyTimeout(in: [:]) == IndexStore.busyTimeoutMilliseconds)
    for bad in ["-1", "x", "", "600001", "99999999999"] {
      #expect(
        IndexStore.busyTimeout(in: [variable: bad]) == IndexStore.busyTimeoutMilliseconds, "\(bad)")
    }
  }
}
