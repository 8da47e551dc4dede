import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// The persistent index (``LibraryOptions/index``): the same output as without it, only
/// new and changed files read, a damaged index rebuilt with one warning.
@Suite struct IndexTests {
  /// `Fixtures/Library` and `Fixtures/Phones`.
  static let fixtureLibraries = [
    Sample.library,
    Sample.library.deletingLastPathComponent().appendingPathComponent("Phones"),
  ]

  /// One enumeration of `root`, with the index at `index` (none when `nil`).
  private func enumerate(_ root: URL, index: URL?) async throws -> AssetsLibrary.Contents {
    let options = LibraryOptions(index: index.map { .file($0) } ?? .none)
    return try await AssetsLibrary(root: root, options: options).enumerate(filter: .all)
  }

  /// The assets as the JSON the Demo and `JSONEncoder` write, so that equal means
  /// byte-identical output.
  private func json(_ contents: AssetsLibrary.Contents) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(contents.assets)
  }

  /// A copy of `Fixtures/Library` in `folder` (as `Library`), settled: old enough that its
  /// files' keys are trusted and stored.
  private func copiedLibrary(in folder: TemporaryFolder) async throws -> URL {
    let library = folder.root.appendingPathComponent("Library")
    try FileManager.default.copyItem(at: Sample.library, to: library)
    try await settle()
    return library
  }

  /// Waits until files changed now are old enough for their keys to be stored.
  private func settle() async throws {
    try await Task.sleep(for: .seconds(FileKey.settlingTime * 2))
  }

  @Test(arguments: fixtureLibraries)
  func theOutputWithTheIndexIsTheOutputWithoutItOnTheFirstAndSecondRun(library: URL)
    async throws
  {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(library, index: nil)
    let first = try await enumerate(library, index: index)
    let second = try await enumerate(library, index: index)
    #expect(plain.assets.count > 10)
    #expect(first.assets == plain.assets)
    #expect(second.assets == plain.assets)
    #expect(try json(first) == json(plain))
    #expect(try json(second) == json(plain))
    #expect(first.groups == plain.groups)
    #expect(second.groups == plain.groups)
    #expect(first.warnings.isEmpty && second.warnings.isEmpty)
    #expect(first.statistics.filesFromIndex == 0)
    #expect(first.statistics.filesRead == plain.statistics.filesRead)
    #expect(second.statistics.filesRead == 0)
    #expect(second.statistics.filesFromIndex == plain.statistics.filesRead)
  }

  @Test func aTouchedFileIsTheOnlyOneReadAgain() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    _ = try await enumerate(library, index: index)
    let touched = library.appendingPathComponent(Sample.photoWithGPS).path
    #expect(utimensat(AT_FDCWD, touched, nil, 0) == 0)
    try await settle()
    let plain = try await enumerate(library, index: nil)
    let again = try await enumerate(library, index: index)
    #expect(again.statistics.filesRead == 1)
    #expect(again.statistics.filesFromIndex == plain.statistics.filesRead - 1)
    #expect(try json(again) == json(plain))
  }

  @Test func aFileReplacedWithTheSameSizeAndTimeButAnotherInodeIsReadAgain() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let before = try await enumerate(library, index: index)
    let name = Sample.photoWithGPS
    let old = try #require(before.assets.first { $0.path == LibraryPath(name) })
    let dateTime = try #require(old.metadata.dateTime)
    // The same bytes with another year in the TIFF DateTime: same size, new content.
    let url = library.appendingPathComponent(name)
    var bytes = try [UInt8](Data(contentsOf: url))
    let pattern = Array(dateTime.utf8)
    let offset = try #require(
      (0...(bytes.count - pattern.count)).first {
        bytes[$0..<$0 + pattern.count].elementsEqual(pattern)
      })
    bytes[offset] = bytes[offset] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
    var status = stat()
    #expect(stat(url.path, &status) == 0)
    let replacement = url.path + ".new"
    try Data(bytes).write(to: URL(fileURLWithPath: replacement))
    let times = [status.st_atim, status.st_mtim]
    #expect(utimensat(AT_FDCWD, replacement, times, 0) == 0)
    #expect(rename(replacement, url.path) == 0)
    var replaced = stat()
    #expect(stat(url.path, &replaced) == 0)
    #expect(replaced.st_size == status.st_size)
    #expect(replaced.st_mtim.tv_sec == status.st_mtim.tv_sec)
    #expect(replaced.st_mtim.tv_nsec == status.st_mtim.tv_nsec)
    #expect(replaced.st_ino != status.st_ino)
    try await settle()

    let plain = try await enumerate(library, index: nil)
    let after = try await enumerate(library, index: index)
    #expect(after.statistics.filesRead == 1)
    let new = try #require(after.assets.first { $0.path == LibraryPath(name) })
    #expect(new.metadata.dateTime != dateTime)
    #expect(try json(after) == json(plain))
  }

  /// Ways an index of ours can be unusable (files that are not ours are refused, never
  /// rebuilt: IndexOwnershipTests).
  enum Damage: String, CaseIterable, Sendable {
    case truncated, olderSchema, otherReaders, otherRoot, aTrigger, aFilesView, aTableMissing
    /// The first page of the rows' table overwritten with garbage: found by reading the
    /// rows, not by a check of the whole file beforehand.
    case aGarbledRowsPage
  }

  /// The page number at which the `files` table starts in the index at `path`.
  private func rowsRootPage(ofIndexAt path: String) throws -> Int64 {
    var connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
    var page: Int64 = 0
    try connection.query("SELECT rootpage FROM sqlite_master WHERE name = 'files'") { row in
      if case .integer(let value) = row.first { page = value }
    }
    return page
  }

  /// Writes `bytes` at `offset` into the file at `path`.
  private func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(bytes))
  }

  /// The page size of the SQLite database at `path`, from its header.
  private func pageSize(ofDatabaseAt path: String) throws -> Int {
    let header = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))
    try #require(header.count == 100)
    let size = Int(header[16]) << 8 | Int(header[17])
    return size == 1 ? 65536 : size
  }

  @Test(arguments: Damage.allCases)
  func aDamagedIndexIsRebuiltWithOneWarning(damage: Damage) async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(library, index: nil)
    switch damage {
    case .truncated:
      _ = try await enumerate(library, index: index)
      // Closed at the end of the run: the WAL was checkpointed into the file and removed.
      #expect(!FileManager.default.fileExists(atPath: index.path + "-wal"))
      let size = try #require(
        try FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int)
      #expect(truncate(index.path, off_t(size / 2)) == 0)
    case .olderSchema:
      _ = try await enumerate(library, index: index)
      var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.query("UPDATE schema_version SET version = 0")
    case .aTrigger:
      // It would spin forever on the first row stored, were triggers run.
      _ = try await enumerate(library, index: index)
      let connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.execute(
        """
        CREATE TRIGGER spin AFTER INSERT ON files BEGIN
          WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c;
        END
        """)
    case .aTableMissing:
      _ = try await enumerate(library, index: index)
      let connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.execute("DROP TABLE library_root")
    case .aFilesView:
      // An endless query in place of the table every lookup reads.
      _ = try await enumerate(library, index: index)
      let connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.execute(
        """
        DROP TABLE files;
        CREATE VIEW files AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
          SELECT x AS path, 0 AS device, 0 AS inode, 0 AS size, 0 AS mtime_s, 0 AS mtime_ns,
            0 AS ctime_s, 0 AS ctime_ns, x'' AS sidecars, x'' AS result FROM c;
        """)
    case .otherReaders:
      _ = try await enumerate(library, index: index)
      var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.query("UPDATE schema_version SET readers = 'GroupEnumerator 0.0.1'")
    case .otherRoot:
      _ = try await enumerate(Sample.library, index: index)
    case .aGarbledRowsPage:
      _ = try await enumerate(library, index: index)
      let page = try rowsRootPage(ofIndexAt: index.path)
      #expect(page > 1)
      let size = try pageSize(ofDatabaseAt: index.path)
      try overwrite(
        index.path, at: (Int(page) - 1) * size, with: [UInt8](repeating: 0x5A, count: size))
    }
    let rebuilt = try await enumerate(library, index: index)
    #expect(rebuilt.warnings.count == 1, "\(rebuilt.warnings)")
    #expect(rebuilt.warnings.first?.contains("rebuilt") == true, "\(rebuilt.warnings)")
    #expect(try json(rebuilt) == json(plain))
    #expect(rebuilt.statistics.filesFromIndex == 0)
    let next = try await enumerate(library, index: index)
    #expect(next.warnings.isEmpty)
    #expect(next.statistics.filesRead == 0)
    #expect(try json(next) == json(plain))
  }

  /// Damage that reading every row does not meet (here the list of free pages made to
  /// claim a page of the rows' table) is left alone by a run that writes nothing, whose
  /// rows are whole, and found before a run's first write, which replaces the index with
  /// one warning; the files taken from the old index before it are stored by the next run.
  @Test func damageOnlyAWriteWouldMeetIsFoundBeforeTheFirstWrite() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(library, index: index)
    let page = try rowsRootPage(ofIndexAt: index.path)
    #expect(page > 1)
    // The header's first free-list page (offset 32) and count of free pages (36).
    let big = UInt32(page).bigEndian
    let pointer = withUnsafeBytes(of: big) { [UInt8]($0) }
    try overwrite(index.path, at: 32, with: pointer + [0, 0, 0, 1])
    do {
      var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      #expect(throws: SQLiteError.self) { try connection.checkStructure() }
    }

    let untouched = try await enumerate(library, index: index)
    #expect(untouched.warnings.isEmpty, "\(untouched.warnings)")
    #expect(untouched.statistics.filesRead == 0)
    #expect(try json(untouched) == json(plain))

    let touched = library.appendingPathComponent(Sample.photoWithGPS).path
    #expect(utimensat(AT_FDCWD, touched, nil, 0) == 0)
    try await settle()
    let changedPlain = try await enumerate(library, index: nil)
    let changed = try await enumerate(library, index: index)
    #expect(changed.warnings.count == 1, "\(changed.warnings)")
    #expect(changed.warnings.first?.contains("rebuilt") == true, "\(changed.warnings)")
    #expect(changed.statistics.filesRead == 1)
    #expect(try json(changed) == json(changedPlain))
    do {
      var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.checkStructure()
    }

    let next = try await enumerate(library, index: index)
    #expect(next.warnings.isEmpty, "\(next.warnings)")
    #expect(next.statistics.filesRead == plain.statistics.filesRead - 1)
    #expect(try json(next) == json(changedPlain))
    let third = try await enumerate(library, index: index)
    #expect(third.warnings.isEmpty)
    #expect(third.statistics.filesRead == 0)
  }

  /// Rows an index can hold without being damaged as a database: a key column of another
  /// type, a result of another type, or a result whose bytes are not a stored result.
  enum RowDamage: String, CaseIterable {
    case keyOfAnotherType = "UPDATE files SET device = 'x' WHERE path = ?1"
    case resultOfAnotherType = "UPDATE files SET result = 'not a blob' WHERE path = ?1"
    case garbledResult = "UPDATE files SET result = x'01ff00' WHERE path = ?1"
    case oversizedResult = "UPDATE files SET result = zeroblob(2000000) WHERE path = ?1"
  }

  @Test(arguments: RowDamage.allCases)
  func aRowThatCannotBeTakenIsReadAgainAndStoredAgain(damage: RowDamage) async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(library, index: index)
    do {
      var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.query(damage.rawValue, [.blob(Array(Sample.photoWithGPS.utf8))])
      var changed: Int64 = 0
      try connection.query("SELECT changes()") { row in
        if case .integer(let count) = row.first { changed = count }
      }
      #expect(changed == 1)
    }
    let again = try await enumerate(library, index: index)
    #expect(again.statistics.filesRead == 1)
    #expect(try json(again) == json(plain))
    #expect(again.warnings.isEmpty)
    // Stored again, so the run after that reads nothing.
    let third = try await enumerate(library, index: index)
    #expect(third.statistics.filesRead == 0)
    #expect(try json(third) == json(plain))
  }

  @Test func anIndexInsideTheLibraryIsNotUsedAndNothingIsWritten() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = library.appendingPathComponent("Trips/index.sqlite")
    let plain = try await enumerate(library, index: nil)
    let contents = try await enumerate(library, index: index)
    #expect(contents.warnings.count == 1)
    #expect(contents.warnings.first?.contains("inside the library") == true)
    #expect(!FileManager.default.fileExists(atPath: index.path))
    #expect(try json(contents) == json(plain))
  }

  @Test func anIndexPathThatIsALinkIntoTheLibraryIsNotUsed() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let target = library.appendingPathComponent("index.sqlite")
    let index = folder.root.appendingPathComponent("link.sqlite")
    try FileManager.default.createSymbolicLink(at: index, withDestinationURL: target)
    let plain = try await enumerate(library, index: nil)
    let contents = try await enumerate(library, index: index)
    #expect(contents.warnings.count == 1, "\(contents.warnings)")
    #expect(!FileManager.default.fileExists(atPath: target.path))
    #expect(try json(contents) == json(plain))
  }

  /// A FIFO where the index should be: reading it ahead (``IndexStore/readAhead(_:)``)
  /// must not wait for a writer that never comes, and SQLite cannot use it.
  @Test(.hangLimit)
  func anIndexPathThatIsAFIFOIsNotUsedAndNothingWaitsForIt() async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    #expect(mkfifo(index.path, 0o600) == 0)
    let plain = try await enumerate(Sample.library, index: nil)
    let contents = try await enumerate(Sample.library, index: index)
    #expect(contents.warnings.count == 1, "\(contents.warnings)")
    #expect(contents.warnings.first?.contains("was not used") == true)
    #expect(try json(contents) == json(plain))
    var status = stat()
    #expect(lstat(index.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
  }

  /// A file's key is taken beneath the root, for regular files only, and never for a
  /// path with a NUL byte (which would end the name early and name another file).
  @Test func aKeyIsTheRegularFileAtThatPathOrNone() throws {
    let folder = try TemporaryFolder()
    let sub = folder.root.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try Data("x".utf8).write(to: sub.appendingPathComponent("a.jpg"))
    try Data("yy".utf8).write(to: folder.root.appendingPathComponent("a"))
    let root = try FileDescriptor.open(folder.root.path, options: [.directory, .closeOnExec])
    defer { root.close() }
    let key = try #require(FileKey.of(LibraryPath("sub/a.jpg"), beneath: root))
    #expect(key.size == 1)
    #expect(FileKey.of(LibraryPath("a"), beneath: root)?.size == 2)
    #expect(
      FileKey.of(LibraryPath(bytes: Array("a".utf8) + [0] + Array("b".utf8)), beneath: root) == nil)
    #expect(FileKey.of(LibraryPath("sub"), beneath: root) == nil)
    #expect(FileKey.of(LibraryPath("missing.jpg"), beneath: root) == nil)
    #expect(FileKey.of(LibraryPath(folder.root.path + "/a"), beneath: root) == nil)
  }

  /// A reader's folder cursor gives every file the key ``FileKey/of(_:beneath:)`` gives
  /// it from the root: in the root, in a folder, in the next folder and back, for a
  /// missing file, a folder, a NUL byte; and a folder reached through a symbolic link
  /// (which it does not open) falls back to the key from the root.
  @Test func aFolderCursorGivesTheKeyTheRootGives() throws {
    let folder = try TemporaryFolder()
    for name in ["one", "two", "one/deeper"] {
      try FileManager.default.createDirectory(
        at: folder.root.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    for (index, name) in ["a.jpg", "one/a.jpg", "one/b.jpg", "two/a.jpg", "one/deeper/c.jpg"]
      .enumerated()
    {
      try Data(repeating: 7, count: index + 1).write(to: folder.root.appendingPathComponent(name))
    }
    try FileManager.default.createSymbolicLink(
      atPath: folder.root.appendingPathComponent("link").path, withDestinationPath: "one")
    let root = try LibraryRoot(path: folder.root.path)
    let cursor = FolderCursor(root: root)
    let paths =
      [
        "a.jpg", "one/a.jpg", "one/b.jpg", "two/a.jpg", "one/a.jpg", "one/deeper/c.jpg",
        "one/missing.jpg", "one/deeper", "link/a.jpg", "two/a.jpg",
      ].map(LibraryPath.init) + [
        LibraryPath(bytes: Array("one/a".utf8) + [0] + Array(".jpg".utf8)),
        LibraryPath("/one/a.jpg"), LibraryPath("one/"),
      ]
    for path in paths {
      #expect(cursor.key(of: path) == FileKey.of(path, beneath: root.descriptor), "\(path)")
    }
    #expect(cursor.key(of: LibraryPath("one/deeper/c.jpg"))?.size == 5)
    #expect(cursor.key(of: LibraryPath("link/a.jpg"))?.size == 2)
    #expect(cursor.key(of: LibraryPath("one/missing.jpg")) == nil)
  }

  /// The read ahead of the index (``IndexStore/readAhead(_:)``) reads the database's own
  /// pages: not the bytes a file grew by past them, nothing of a file that is not a
  /// database; and the index still works after it.
  @Test func theIndexIsReadAheadOnlyAsFarAsItsPages() async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(Sample.library, index: nil)
    _ = try await enumerate(Sample.library, index: index)
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int)
    // The `-wal` is read too; the last connection's close normally removes it.
    let wal =
      (try? FileManager.default.attributesOfItem(atPath: index.path + "-wal")[.size])
      as? Int ?? 0
    #expect(IndexStore.readAhead(index.path) == size + wal)
    // Grown by 64 MiB of zeros (a hole): SQLite reads none of them, nor does this.
    let handle = try FileHandle(forWritingTo: index)
    try handle.truncate(atOffset: UInt64(size + (64 << 20)))
    try handle.close()
    #expect(IndexStore.readAhead(index.path) == size + wal)
    let second = try await enumerate(Sample.library, index: index)
    #expect(second.statistics.filesRead == 0)
    #expect(try json(second) == json(plain))
    let garbage = folder.root.appendingPathComponent("garbage.sqlite")
    try Data(repeating: 0x5A, count: 3 << 20).write(to: garbage)
    #expect(IndexStore.readAhead(garbage.path) == 0)
    #expect(IndexStore.readAhead(folder.root.appendingPathComponent("none").path) == 0)
  }

  @Test func theDatabaseLengthComesFromATrustedHeader() {
    func header(pageSize: Int, pages: Int, counter: UInt8 = 7, validFor: UInt8 = 7) -> [UInt8] {
      var bytes = Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 84)
      bytes[16] = UInt8(pageSize >> 8 & 0xFF)
      bytes[17] = UInt8(pageSize & 0xFF)
      bytes[28] = UInt8(pages >> 24 & 0xFF)
      bytes[29] = UInt8(pages >> 16 & 0xFF)
      bytes[30] = UInt8(pages >> 8 & 0xFF)
      bytes[31] = UInt8(pages & 0xFF)
      bytes[27] = counter
      bytes[95] = validFor
      return bytes
    }
    func length(_ bytes: [UInt8]) -> Int? {
      bytes.withUnsafeBytes { IndexStore.databaseLength(header: $0) }
    }
    #expect(length(header(pageSize: 4096, pages: 7754)) == 4096 * 7754)
    #expect(length(header(pageSize: 1, pages: 2)) == 65536 * 2)
    #expect(length(header(pageSize: 4096, pages: 0)) == nil)
    #expect(length(header(pageSize: 4096, pages: 3, counter: 8)) == nil)
    #expect(length(header(pageSize: 3000, pages: 3)) == nil)
    #expect(length(header(pageSize: 256, pages: 3)) == nil)
    #expect(length(Array(header(pageSize: 4096, pages: 3).prefix(99))) == nil)
    var other = header(pageSize: 4096, pages: 3)
    other[0] = UInt8(ascii: "s")
    #expect(length(other) == nil)
  }

  /// A listing stopped early (here by its output: `deliver` says stop after 3 assets)
  /// stores what it read, though fewer than a batch: the next run takes those files from
  /// the index.
  @Test func aListingStoppedEarlyKeepsWhatItRead() async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(Sample.library, index: nil)
    #expect(plain.statistics.filesRead < IndexStore.batchSize)
    let library = AssetsLibrary(root: Sample.library, options: LibraryOptions(index: .file(index)))
    let delivered = Mutex(0)
    await #expect(throws: LibraryError.cancelled) {
      _ = try await library.streamAssets(
        prepare: { $0 },
        deliver: { _ in
          delivered.withLock { count in
            count += 1
            return count < 3
          }
        })
    }
    let next = try await enumerate(Sample.library, index: index)
    #expect(next.statistics.filesFromIndex >= 3)
    #expect(
      next.statistics.filesFromIndex + next.statistics.filesRead == plain.statistics.filesRead)
    #expect(try json(next) == json(plain))
  }

  @Test func vanishedFilesLoseTheirRowsAndNewFilesAreRead() async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let first = try await enumerate(library, index: index)
    try FileManager.default.removeItem(at: library.appendingPathComponent(Sample.photoWithGPS))
    try FileManager.default.copyItem(
      at: Sample.library.appendingPathComponent(Sample.photoWithGPS),
      to: library.appendingPathComponent("Trips/copy.jpg"))
    try await settle()
    let plain = try await enumerate(library, index: nil)
    let second = try await enumerate(library, index: index)
    #expect(second.statistics.filesRead == 1)
    #expect(try json(second) == json(plain))
    var rows = 0
    var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
    try connection.query("SELECT path FROM files") { _ in rows += 1 }
    #expect(rows == first.statistics.filesRead)
  }

  /// Values no reader makes, written into a well-formed stored result (a crafted or
  /// damaged index): each must make the row one to read again, never one to print.
  enum CraftedValue: String, CaseIterable, Sendable {
    case widthOfMinusTwoToThe63, heightPast32Bits, durationOf1e300, infiniteDuration
    case nanDuration, negativeDuration, orientation99, negativeFileSize, otherFileSize
    case wholeInt64ByteRange, byteRangePastTheFile, embeddedVideoOfTheWholeIntRange
    case modificationTimeOf1e300

    /// `asset` with the value.
    func apply(to asset: Asset) -> Asset {
      var metadata = asset.metadata
      var resources = asset.resources
      var time = asset.fileModificationDate
      let size = asset.fileSize
      func resource(size: Int64, range: Range<Int64>? = nil) -> AssetResource {
        AssetResource(
          path: asset.path, role: range == nil ? .photo : .pairedVideo, format: .jpeg,
          fileSize: size, byteRange: range)
      }
      switch self {
      case .widthOfMinusTwoToThe63: metadata.pixelWidth = Int.min
      case .heightPast32Bits: metadata.pixelHeight = 1 << 33
      case .durationOf1e300: metadata.duration = 1e300
      case .infiniteDuration: metadata.duration = .infinity
      case .nanDuration: metadata.duration = .nan
      case .negativeDuration: metadata.duration = -1
      case .orientation99: metadata.orientation = 99
      case .negativeFileSize: resources[0] = resource(size: -5)
      case .otherFileSize: resources[0] = resource(size: size + 1)
      case .wholeInt64ByteRange:
        resources.append(resource(size: 10, range: Int64.min..<(Int64.max - 1)))
      case .byteRangePastTheFile: resources.append(resource(size: 10, range: 0..<(size + 1)))
      case .embeddedVideoOfTheWholeIntRange: metadata.embeddedVideoRange = Int.min..<(Int.max - 1)
      case .modificationTimeOf1e300: time = Date(timeIntervalSinceReferenceDate: 1e300)
      }
      return Asset(
        path: asset.path, group: asset.group, groupPath: asset.groupPath, type: asset.type,
        resources: resources, fileModificationDate: time, metadata: metadata,
        problems: Array(asset.problems.dropFirst(asset.metadata.problems.count)))
    }
  }

  @Test(arguments: CraftedValue.allCases)
  func aRowWithAValueNoReaderMakesIsReadAgain(value: CraftedValue) async throws {
    let folder = try TemporaryFolder()
    let library = try await copiedLibrary(in: folder)
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await enumerate(library, index: index)
    let asset = try #require(plain.assets.first { $0.path == LibraryPath(Sample.photoWithGPS) })
    #expect(asset.resources.count == 1)
    do {
      var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.query(
        "UPDATE files SET result = ?2 WHERE path = ?1",
        [
          .blob(Array(Sample.photoWithGPS.utf8)),
          .blob(StoredResult.encode(value.apply(to: asset), sidecarCount: 0)),
        ])
    }
    let again = try await enumerate(library, index: index)
    #expect(again.statistics.filesRead == 1)
    #expect(try json(again) == json(plain))
    #expect(again.warnings.isEmpty)
  }

  @Test func theCraftedValuesAreWellFormedOtherwise() throws {
    // The same asset unchanged decodes: each case above is refused for its value alone.
    let path = LibraryPath("a.jpg")
    let asset = Asset(
      path: path, group: .album, groupPath: LibraryPath(""), type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 1000)],
      fileModificationDate: Date(timeIntervalSinceReferenceDate: 0), metadata: MediaMetadata())
    let job = ReadJob(
      file: ScannedFile(
        path: path, fileSize: 1000, modificationDate: Date(), format: .jpeg, type: .photo),
      group: ScannedGroup.Key(kind: .album, path: LibraryPath("")))
    let encoded = StoredResult.encode(asset, sidecarCount: 0)
    #expect(StoredResult.decode(encoded[...], job: job, fileSize: 1000) != nil)
    for value in CraftedValue.allCases {
      let crafted = StoredResult.encode(value.apply(to: asset), sidecarCount: 0)
      #expect(StoredResult.decode(crafted[...], job: job, fileSize: 1000) == nil, "\(value)")
    }
  }

  @Test func aStoredResultDecodesToTheAssetItWasMadeFrom() throws {
    let problems = (0..<12).map { AssetProblem(.malformed, "problem \($0)") }
    var metadata = MediaMetadata()
    for problem in problems { metadata.report(problem) }
    metadata.dateTime = "2020:01:02 03:04:05"
    metadata.dateTimeOriginal = CaptureDate(
      year: 2020, month: 1, day: 2, hour: 3, minute: 4, second: 5, subsecond: "042",
      zone: .offset(seconds: -3600 * 5), source: .exifDateTimeOriginal)
    metadata.location = Location(latitude: -33.5, longitude: 151.25, altitude: -2)
    metadata.pixelWidth = 4032
    metadata.orientation = 6
    metadata.duration = 1.5
    metadata.make = "Apple"
    metadata.contentIdentifier = "ABC"
    metadata.embeddedVideoRange = 100..<200
    let path = LibraryPath("A/b.jpg")
    let sidecar = AssetResource(
      path: LibraryPath("A/b.xmp"), role: .sidecar, format: nil, fileSize: 9)
    let asset = Asset(
      path: path, group: .album, groupPath: LibraryPath("A"), type: .livePhoto,
      resources: [
        AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 1000),
        AssetResource(
          path: path, role: .pairedVideo, format: .mp4, fileSize: 100, byteRange: 100..<200),
        sidecar,
      ],
      fileModificationDate: Date(timeIntervalSince1970: 1_600_000_000.123456),
      metadata: metadata, problems: [AssetProblem(.misnamed, "extra")])
    var file = ScannedFile(
      path: path, fileSize: 1000, modificationDate: Date(), format: .jpeg, type: .photo)
    file.sidecars = [sidecar]
    let job = ReadJob(file: file, group: ScannedGroup.Key(kind: .album, path: LibraryPath("A")))
    let stored = StoredResult.encode(asset, sidecarCount: 1)
    #expect(StoredResult.decode(stored[...], job: job) == asset)
    // A result is read in place from the buffer that holds every row's bytes.
    let buffer: [UInt8] = [0xFF, 0x01] + stored + [0x00]
    #expect(StoredResult.decode(buffer[2..<(2 + stored.count)], job: job) == asset)
    #expect(StoredResult.decode(buffer[2..<(3 + stored.count)], job: job) == nil)
    // Every shorter prefix, and another version, is refused rather than misread.
    for length in 0..<stored.count {
      #expect(StoredResult.decode(stored.prefix(length), job: job) == nil, "\(length)")
      #expect(StoredResult.decode(buffer[2..<(2 + length)], job: job) == nil, "\(length)")
    }
    #expect(
      StoredResult.decode(([StoredResult.version + 1] + stored.dropFirst())[...], job: job) == nil)
  }
}
