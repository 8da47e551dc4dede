import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// What a legacy enumeration called, recorded on the main actor.
@MainActor final class LegacyOutcome {
  var successes: [[LegacyPhotoDictionary]] = []
  var failures: [LibraryError] = []
  let progress = ProgressLog()
}

@Suite struct LegacyTests {
  @MainActor func run(_ root: URL, cancelAfterFirstProgress: Bool = false) async -> LegacyOutcome {
    let outcome = LegacyOutcome()
    let engine = AssetsLibrary(root: root, options: LibraryOptions(maximumConcurrency: 2))
    let holder = EnumerationHolder()
    let handle = engine.systemPhotoAlbumPhoto(
      success: { outcome.successes.append($0) },
      progress: { current, total in
        outcome.progress.record(current, total)
        if cancelAfterFirstProgress { holder.handle?.cancel() }
      },
      fail: { outcome.failures.append($0) })
    holder.handle = handle
    await handle.wait()
    // Give any stray main-actor work a chance to run, so a second call would be seen.
    for _ in 0..<10 { await Task.yield() }
    return outcome
  }

  @Test @MainActor func emptyLibrarySucceedsOnceWithNothing() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    let outcome = await run(library.root)
    #expect(outcome.successes.count == 1)
    #expect(outcome.successes.first?.isEmpty == true)
    #expect(outcome.failures.isEmpty)
    outcome.progress.expectWellFormed(total: 0)
  }

  @Test @MainActor func lastFileAVideoStillSucceedsOnce() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "Album/a.jpg")
    try library.add(Sample.mp4, as: "Album/z.mp4")
    let outcome = await run(library.root)
    #expect(outcome.successes.count == 1)
    #expect(outcome.successes.first?.count == 1)
    #expect(outcome.failures.isEmpty)
    outcome.progress.expectWellFormed(total: 1)
  }

  @Test @MainActor func photosNoReaderTakesAreHandedOverWithDefaultsButOtherFilesAreNot()
    async throws
  {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "Album/a.jpg")
    try library.write(Array("<x:xmpmeta/>".utf8), as: "Album/a.xmp")
    try library.add(Sample.truncatedJPEG, as: "Album/broken.jpg")
    try library.write(Array("notes".utf8), as: "Album/notes.txt")
    try library.write(Array("FOVb".utf8), as: "Album/layers.x3f")
    try library.write(Array("<x:xmpmeta/>".utf8), as: "Album/orphan.xmp")
    try library.add(Sample.mp4, as: "Album/z.mp4")
    let outcome = await run(library.root)
    #expect(outcome.successes.count == 1)
    // Photos by name or content, broken ones and formats no reader takes included (with
    // the five keys' defaults); never a .txt or a lone sidecar, which are no assets.
    #expect(
      outcome.successes.first?.map { $0["photoName"] as? String } == [
        "a.jpg", "broken.jpg", "layers.x3f",
      ])
    let psd = try #require(outcome.successes.first?.last)
    #expect(
      Set(psd.keys) == [
        "photoDefaultPath", "photoThumPath", "photoName", "photoGPS", "photoDateTime",
      ])
    #expect(psd["photoDateTime"] as? String == "0")
    #expect(
      psd["photoGPS"] as? [String: String] == [
        "Latitude": LegacyGPS.missingCoordinateText, "Longitude": LegacyGPS.missingCoordinateText,
      ])
    #expect(outcome.failures.isEmpty)
    outcome.progress.expectWellFormed(total: 3)
  }

  @Test @MainActor func onlyAVideoSucceedsOnceWithNothing() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.movie, as: "clip.MOV")
    let outcome = await run(library.root)
    #expect(outcome.successes.count == 1)
    #expect(outcome.successes.first?.isEmpty == true)
    outcome.progress.expectWellFormed(total: 0)
  }

  @Test @MainActor func lastFileBrokenStillSucceedsOnce() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "a.jpg")
    try library.add(Sample.truncatedJPEG, as: "z.jpg")
    try library.write([], as: "zz.jpg")
    let outcome = await run(library.root)
    #expect(outcome.successes.count == 1)
    #expect(
      outcome.successes.first?.map { $0["photoName"] as? String } == ["a.jpg", "z.jpg", "zz.jpg"])
    outcome.progress.expectWellFormed(total: 3)
  }

  @Test @MainActor func missingLibraryFailsOnce() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    let missing = library.root.appendingPathComponent("nope")
    let outcome = await run(missing)
    #expect(outcome.successes.isEmpty)
    #expect(outcome.failures == [.rootNotFound(path: missing.path)])
    #expect(outcome.progress.calls.isEmpty)
  }

  @Test @MainActor func libraryThatIsAFileFailsOnce() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "a.jpg")
    let file = library.root.appendingPathComponent("a.jpg")
    let outcome = await run(file)
    #expect(outcome.successes.isEmpty)
    #expect(outcome.failures == [.rootNotADirectory(path: file.path)])
  }

  @Test @MainActor func cancellingFromProgressFailsOnceWithCancelled() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    for index in 0..<300 { try library.add(Sample.photoWithGPS, as: "\(index).jpg") }
    let outcome = await run(library.root, cancelAfterFirstProgress: true)
    #expect(outcome.successes.isEmpty)
    #expect(outcome.failures == [.cancelled])
    #expect(outcome.progress.calls.count >= 1)
    #expect((outcome.progress.calls.last?.current ?? 0) < 300)
  }

  @Test @MainActor func dictionaryHasExactlyTheLegacyKeys() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "gps.jpg")
    try library.add(Sample.photoWithoutMetadata, as: "plain.jpg")
    let outcome = await run(library.root)
    let dictionaries = try #require(outcome.successes.first)
    #expect(dictionaries.count == 2)
    for dictionary in dictionaries {
      #expect(
        Set(dictionary.keys)
          == ["photoDefaultPath", "photoThumPath", "photoName", "photoGPS", "photoDateTime"])
      #expect(dictionary["photoDefaultPath"] as? String == dictionary["photoThumPath"] as? String)
    }
    let plain = try #require(dictionaries.last)
    let plainGPS = try #require(plain["photoGPS"] as? [String: any Sendable])
    #expect(plainGPS.count == 2)
    #expect(plainGPS["Latitude"] as? String == "0.0")
    #expect(plainGPS["Longitude"] as? String == "0.0")
    #expect(plain["photoDateTime"] as? String == "0")
    let gps = try #require(dictionaries.first?["photoGPS"] as? [String: any Sendable])
    #expect(gps["LatitudeRef"] as? String == "N")
    #expect(gps["LongitudeRef"] as? String == "E")
    #expect(abs((gps["Latitude"] as? Double ?? 0) - 35.0116) < 1e-4)
    #expect(abs((gps["Longitude"] as? Double ?? 0) - 135.7681) < 1e-4)
    #expect(
      (dictionaries.first?["photoDefaultPath"] as? String)?.hasPrefix(
        "assets-library://asset/asset.jpg?id=") == true)
  }
}

/// Lets the progress closure reach the handle created by the same call.
@MainActor final class EnumerationHolder {
  var handle: LegacyEnumeration?
}
