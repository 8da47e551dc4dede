import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// `LibraryOptions.index` given a file that is not an index this code wrote: refused with
/// one warning naming it, and the file and its `-wal`/`-journal` neighbours left byte for
/// byte (nothing created beside them either); an empty file, or an index of an earlier
/// version without the application id, is used.
@Suite struct IndexOwnershipTests {
  private func enumerate(_ root: URL, index: URL) async throws -> AssetsLibrary.Contents {
    try await AssetsLibrary(root: root, options: LibraryOptions(index: .file(index)))
      .enumerate(filter: .all)
  }

  private func json(_ contents: AssetsLibrary.Contents) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(contents.assets)
  }

  /// Every file of `folder` with its bytes.
  private func snapshot(_ folder: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
      files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
    }
    return files
  }

  /// Files that are not ours, each made here.
  enum Foreign: String, CaseIterable, Sendable {
    case textFile, randomBytes, anotherProgramsDatabase, anotherApplicationID, newerSchema
    case emptyBesideAWAL, textBesideAJournal

    /// Makes the file at `index` (and its neighbours).
    func make(at index: URL) throws {
      switch self {
      case .textFile:
        try Data("my notes, not an index\n".utf8).write(to: index)
      case .randomBytes:
        var generator = SystemRandomNumberGenerator()
        try Data((0..<40_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
          .write(to: index)
      case .anotherProgramsDatabase:
        // A catalog of another program: its own tables and rows, in WAL mode.
        var connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
        try connection.execute(
          """
          PRAGMA journal_mode=WAL;
          CREATE TABLE Adobe_images(id INTEGER PRIMARY KEY, path TEXT);
          CREATE TABLE AgLibraryFile(id INTEGER PRIMARY KEY, name TEXT);
          CREATE INDEX byName ON AgLibraryFile(name);
          """)
        for row in 0..<50 {
          try connection.query(
            "INSERT INTO Adobe_images(path) VALUES (?1)", [.text("/photos/\(row).jpg")])
        }
      case .anotherApplicationID:
        // Our very tables, but stamped by another program.
        let connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
        try connection.execute(
          """
          PRAGMA application_id=1234;
          CREATE TABLE schema_version(version INTEGER NOT NULL, readers TEXT NOT NULL);
          INSERT INTO schema_version VALUES (1, 'x');
          """)
      case .newerSchema:
        let connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
        try connection.execute(
          """
          PRAGMA application_id=\(IndexStore.applicationID);
          CREATE TABLE schema_version(version INTEGER NOT NULL, readers TEXT NOT NULL);
          INSERT INTO schema_version VALUES (\(IndexStore.schemaVersion + 1), 'later');
          CREATE TABLE files(path BLOB PRIMARY KEY, anything BLOB) WITHOUT ROWID;
          """)
      case .emptyBesideAWAL:
        try Data().write(to: index)
        try Data(repeating: 0x37, count: 4096).write(to: URL(fileURLWithPath: index.path + "-wal"))
      case .textBesideAJournal:
        try Data("text\n".utf8).write(to: index)
        try Data(repeating: 0xD9, count: 512).write(
          to: URL(fileURLWithPath: index.path + "-journal"))
      }
    }
  }

  @Test(arguments: Foreign.allCases)
  func aFileThatIsNotOurIndexIsRefusedAndLeftByteForByte(foreign: Foreign) async throws {
    let folder = try TemporaryFolder()
    let place = folder.root.appendingPathComponent("place")
    try FileManager.default.createDirectory(at: place, withIntermediateDirectories: false)
    let index = place.appendingPathComponent("catalog.db")
    try foreign.make(at: index)
    let before = try snapshot(place)
    let plain = try await AssetsLibrary(root: Sample.library).enumerate(filter: .all)
    for _ in 0..<2 {
      let contents = try await enumerate(Sample.library, index: index)
      #expect(contents.warnings.count == 1, "\(contents.warnings)")
      let warning = try #require(contents.warnings.first)
      #expect(warning.hasPrefix("The index '\(index.path)' was not used: "), "\(warning)")
      #expect(warning.hasSuffix("; it was left as it was."), "\(warning)")
      #expect(try json(contents) == json(plain))
      #expect(contents.statistics.filesFromIndex == 0)
      // Not a byte changed, and nothing made beside it (no -shm, no -wal, no -journal).
      #expect(try snapshot(place) == before)
    }
  }

  @Test func theReasonSaysWhatTheFileIs() async throws {
    let expected: [Foreign: String] = [
      .textFile: "it is not an SQLite database, so not an index",
      .anotherProgramsDatabase:
        "it is another program's SQLite database ('Adobe_images', 'AgLibraryFile', 'byName')",
      .anotherApplicationID: "it is another program's SQLite database (application id 0x4d2)",
      .newerSchema:
        "it was written by a newer GroupEnumerator (schema version 2; this one reads 1)",
      .emptyBesideAWAL:
        "its '-wal' file beside it is not empty: another program's database being written",
    ]
    for (foreign, reason) in expected {
      let folder = try TemporaryFolder()
      let index = folder.root.appendingPathComponent("catalog.db")
      try foreign.make(at: index)
      #expect(IndexStore.ownership(ofIndexAt: index.path) == .refused(reason: reason))
    }
  }

  @Test func anEmptyFileBecomesTheIndex() async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    try Data().write(to: index)
    let first = try await enumerate(Sample.library, index: index)
    #expect(first.warnings.isEmpty, "\(first.warnings)")
    #expect(IndexStore.ownership(ofIndexAt: index.path) == .ours(marked: true))
    // The mark is in the main file's header, not only in a WAL.
    let header = try #require(FileHandle(forReadingAtPath: index.path)?.readData(ofLength: 72))
    #expect(Array(header[68..<72]) == [0x47, 0x45, 0x6E, 0x78])
  }

  @Test func anIndexWithoutTheMarkOfAnEarlierVersionIsUsedAndMarked() async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let first = try await enumerate(Sample.library, index: index)
    do {
      let connection = try SQLiteConnection(path: index.path, busyTimeoutMilliseconds: 1000)
      try connection.execute("PRAGMA application_id=0; PRAGMA wal_checkpoint(TRUNCATE)")
    }
    #expect(IndexStore.ownership(ofIndexAt: index.path) == .ours(marked: false))
    let second = try await enumerate(Sample.library, index: index)
    #expect(second.warnings.isEmpty, "\(second.warnings)")
    #expect(try json(second) == json(first))
    #expect(IndexStore.ownership(ofIndexAt: index.path) == .ours(marked: true))
  }
}
