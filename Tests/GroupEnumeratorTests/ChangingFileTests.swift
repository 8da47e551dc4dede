import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

// Files that change size while they are read. Nothing is ever
// mapped into memory (`LibraryFile` reads with `pread`; the strace test in DemoTests checks
// that no library file is ever passed to `mmap`), so a file that shrinks gives short
// reads, which each reader turns into a problem of that asset, never `SIGBUS`. A file
// that grows is read as it was when opened: reads never go past the size `fstat` gave.

/// A real open library file whose size another party changes just before one of our
/// reads: `change` runs once, before read number `changeBefore` (0 is the first).
final class ChangingSource: ByteSource {
  private let file: LibraryFile
  private let changeBefore: Int
  private let change: () -> Void
  private let reads = Mutex(0)

  init(_ file: LibraryFile, changeBefore: Int, change: @escaping () -> Void) {
    self.file = file
    self.changeBefore = changeBefore
    self.change = change
  }

  var count: Int { file.count }

  /// How many reads were made.
  var readCount: Int { reads.withLock { $0 } }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    let index = reads.withLock { value in
      defer { value += 1 }
      return value
    }
    if index == changeBefore { change() }
    return try file.bytes(at: offset, length: length)
  }
}

/// Opens `path` in `folder` as the engine does, and reads it with `read` while the file
/// is changed by `change` before read number `changeBefore`.
func readWhileChanging(
  _ folder: TemporaryFolder, _ path: String, changeBefore: Int, change: @escaping () -> Void,
  read: (ChangingSource) -> MediaMetadata
) throws -> (metadata: MediaMetadata, reads: Int) {
  let root = try LibraryRoot(path: folder.path)
  return try LibraryFile.withOpened(root: root, path: LibraryPath(path)) {
    file throws(AssetProblem) in
    let source = ChangingSource(file, changeBefore: changeBefore, change: change)
    return (read(source), source.readCount)
  }
}

/// The stills made by `Resources/make-stills.sh`.
private let exiv2Resources = Sample.resources.folder("Exiv2").url

/// Sets the size of the file at `path` (shrinks or extends with zeros).
func resize(_ path: String, to length: Int) {
  #expect(truncate(path, off_t(length)) == 0)
}

@Suite struct ChangingFileTests {
  @Test func filesThatShrinkOrGrowBetweenTheWalkAndTheReadHaveExactOutcomes() async throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    let app1End = try #require(HostileMediaTests.endOfAPP1(photo))
    for name in ["cut-in-app1.jpg", "cut-to-zero.jpg", "grown.jpg", "kept.jpg"] {
      try folder.write(name, photo)
    }
    try folder.write("cut.mov", try sampleBytes(Sample.movie))
    let changes = [
      ("cut-in-app1.jpg", app1End / 2), ("cut-to-zero.jpg", 0),
      ("grown.jpg", photo.count + (1 << 20)), ("cut.mov", 40),
    ].map { (folder.absolute($0.0), $0.1) }
    // The first progress call, (0, total), comes after the walk and before any read.
    let contents = try await enumerate(folder) { current, _ in
      guard current == 0 else { return }
      for (path, length) in changes { resize(path, to: length) }
    }
    #expect(contents.assets.count == 5)
    #expect(problemCodes(contents, "cut-in-app1.jpg") == [.truncated])
    #expect(problemCodes(contents, "cut-to-zero.jpg") == [.emptyFile])
    // The movie: its `mdat` box now runs past the end, and no `moov` box is left.
    #expect(problemCodes(contents, "cut.mov") == [.truncated, .malformed])
    // 1 MiB of zeros after the end-of-image marker is padding, not a cut.
    #expect(problemCodes(contents, "grown.jpg") == [])
    #expect(problemCodes(contents, "kept.jpg") == [])
    let kept = try #require(contents.assets.first { $0.path == LibraryPath("kept.jpg") })
    let grown = try #require(contents.assets.first { $0.path == LibraryPath("grown.jpg") })
    #expect(grown.metadata == kept.metadata)
    #expect(kept.location != nil)
    for name in ["cut-in-app1.jpg", "cut-to-zero.jpg", "cut.mov"] {
      let asset = try #require(contents.assets.first { $0.path == LibraryPath(name) })
      #expect(asset.location == nil, "\(name)")
      #expect(asset.creationDate?.source == .fileModificationTime, "\(name)")
    }
  }

  @Test func aJPEGThatShrinksBetweenTwoReadsIsATruncatedAsset() throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    try folder.write("a.jpg", photo)
    let path = folder.absolute("a.jpg")
    // The reader's first read finds the SOI and the APP1 header; the file then loses the
    // rest of the APP1 segment before the second.
    let (metadata, reads) = try readWhileChanging(
      folder, "a.jpg", changeBefore: 1, change: { resize(path, to: 24) },
      read: { JPEGMetadataReader.read(from: $0) })
    #expect(reads >= 2)
    #expect(metadata.problems.map(\.code) == [.truncated])
    #expect(metadata.problems.allSatisfy { !$0.message.isEmpty })
    #expect(metadata.location == nil && metadata.dateTimeOriginal == nil)
  }

  @Test func aMovieThatShrinksBetweenTwoReadsIsATruncatedAsset() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.mov", try sampleBytes(Sample.movie))
    let path = folder.absolute("a.mov")
    let (metadata, reads) = try readWhileChanging(
      folder, "a.mov", changeBefore: 1, change: { resize(path, to: 40) },
      read: { QuickTimeMetadataReader.read(from: $0) })
    #expect(reads >= 2)
    #expect(metadata.problems.map(\.code) == [.truncated, .malformed])
    #expect(
      metadata.problems.first?.message.contains("is cut short") == true, "\(metadata.problems)")
    #expect(metadata.duration == nil && metadata.location == nil)
  }

  @Test func aTIFFThatShrinksAfterItWasOpenedIsAMalformedAssetOfExiv2() throws {
    let folder = try TemporaryFolder()
    let tiff = [UInt8](
      try Data(contentsOf: exiv2Resources.appendingPathComponent("south-west.tiff")))
    try folder.write("a.tiff", tiff)
    let path = folder.absolute("a.tiff")
    // Opened at 624 bytes, 10 left when gexiv2's buffer is read: exiv2 parses what is there.
    let (metadata, _) = try readWhileChanging(
      folder, "a.tiff", changeBefore: 0, change: { resize(path, to: 10) },
      read: { Exiv2MetadataReader.read(from: $0, format: .tiff) })
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(metadata.location == nil && metadata.pixelWidth == nil)
  }

  @Test func aFileThatGrowsWhileBeingReadIsReadAsItWasWhenOpened() throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    try folder.write("a.jpg", photo)
    let path = folder.absolute("a.jpg")
    let unchanged = try readWhileChanging(
      folder, "a.jpg", changeBefore: -1, change: {},
      read: { JPEGMetadataReader.read(from: $0) })
    let grown = try readWhileChanging(
      folder, "a.jpg", changeBefore: 1, change: { resize(path, to: photo.count + (1 << 20)) },
      read: { source in
        #expect(source.count == photo.count)
        return JPEGMetadataReader.read(from: source)
      })
    #expect(grown.metadata == unchanged.metadata)
    #expect(grown.metadata.problems.isEmpty)
    #expect(grown.metadata.location != nil)
  }
}
