import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The files of `Resources/Trailers`, made by `Resources/make-trailers.sh`.
private let trailers = Sample.resources.folder("Trailers")

/// The JPEG end check: bytes after the end-of-image marker are no cut, a file cut in its
/// scan data is one; by default the check runs only where the file's end was read anyway,
/// on every file with ``LibraryOptions/verifiesFileEnds``, and the index remembers a file
/// checked once.
@Suite struct TrailerTests {
  @Test(arguments: [("blackberry-trailer.jpg", 36_864), ("sector-trailer.jpg", 26_144)])
  func bytesAfterTheEndOfImageAreNotACut(name: String, trailer: Int) throws {
    let file = try trailers.bytes(name)
    // Longer than the 4 KiB the check used to look at, in a file larger than 64 KiB.
    try #require(file.count > 64 * 1024 && trailer > 4096)
    let end = file.count - trailer
    try #require(Array(file[(end - 2)..<end]) == JPEGStructure.endOfImage)
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(file))
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.dateTimeOriginal != nil)
  }

  @Test func aJPEGCutInItsScanDataIsTruncated() throws {
    let metadata = JPEGMetadataReader.read(
      from: ArrayByteSource(try trailers.bytes("cut-in-scan.jpg")))
    #expect(metadata.problems.map(\.code) == [.truncated])
  }

  @Test func aTrailerLongerThanTheSearchedSpanWithoutAnEndIsACut() throws {
    // The search is bounded: 64 KiB of bytes after the image with no FF D9 in them.
    let file = try trailers.bytes("cut-in-scan.jpg") + [UInt8](repeating: 0x5A, count: 70_000)
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(file))
    #expect(metadata.problems.map(\.code) == [.truncated])
    // A trailer of 56,864 bytes is within it.
    let whole =
      try trailers.bytes("blackberry-trailer.jpg") + [UInt8](repeating: 0x5A, count: 20_000)
    #expect(JPEGMetadataReader.read(from: ArrayByteSource(whole)).problems.isEmpty)
  }

  /// The problem codes of each file of `library`, by name.
  private func codes(_ contents: AssetsLibrary.Contents) -> [String: [AssetProblem.Code]] {
    Dictionary(uniqueKeysWithValues: contents.assets.map { ($0.name, $0.problems.map(\.code)) })
  }

  @Test func theEndOfALargeFileIsCheckedOnlyWhenAskedFor() async throws {
    let plain = try await AssetsLibrary(root: trailers.url).enumerate(filter: .all)
    #expect(codes(plain).values.allSatisfy { $0.isEmpty }, "\(codes(plain))")
    // The heads only (each file's metadata fits its first read), never the ends.
    #expect(plain.statistics.bytesRead <= 3 * PrefetchedByteSource<LibraryFile>.window)
    let verified = try await AssetsLibrary(
      root: trailers.url, options: LibraryOptions(verifiesFileEnds: true)
    ).enumerate(filter: .all)
    #expect(
      codes(verified) == [
        "blackberry-trailer.jpg": [], "sector-trailer.jpg": [], "cut-in-scan.jpg": [.truncated],
      ])
    // Each end read: at least the last 512 bytes of the whole ones, 38 KiB of the cut one.
    #expect(verified.statistics.bytesRead >= plain.statistics.bytesRead + 2 * 512 + 38_000)
  }

  @Test func theIndexRemembersThatAFileWasChecked() async throws {
    let folder = try TemporaryFolder()
    let library = folder.root.appendingPathComponent("Library")
    try FileManager.default.copyItem(at: trailers.url, to: library)
    try await Task.sleep(for: .seconds(FileKey.settlingTime * 2))
    let index = IndexLocation.file(folder.root.appendingPathComponent("index.sqlite"))
    func run(verifying: Bool) async throws -> AssetsLibrary.Contents {
      try await AssetsLibrary(
        root: library, options: LibraryOptions(index: index, verifiesFileEnds: verifying)
      ).enumerate(filter: .all)
    }
    // Stored unchecked: a checking run reads every file again, and stores that it did.
    let unchecked = try await run(verifying: false)
    #expect(unchecked.statistics.filesRead == 3)
    let checked = try await run(verifying: true)
    #expect(checked.statistics.filesRead == 3 && checked.statistics.filesFromIndex == 0)
    #expect(codes(checked)["cut-in-scan.jpg"] == [.truncated])
    // Checked once: neither kind of run reads them again, and the finding stays.
    let again = try await run(verifying: true)
    #expect(again.statistics.filesRead == 0 && again.statistics.filesFromIndex == 3)
    #expect(codes(again) == codes(checked))
    let plainAgain = try await run(verifying: false)
    #expect(plainAgain.statistics.filesFromIndex == 3)
    #expect(codes(plainAgain) == codes(checked))
  }
}
