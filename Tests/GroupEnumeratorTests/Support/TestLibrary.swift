import Foundation

/// A temporary library folder built from the committed sample files, removed on `remove()`.
struct TestLibrary {
  /// The package's `Fixtures/Library`, found from this file's location.
  static let fixtures: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // GroupEnumeratorTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Fixtures/Library")

  let root: URL

  /// Creates an empty temporary folder.
  init() throws {
    root = FileManager.default.temporaryDirectory
      .appendingPathComponent("GroupEnumeratorTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  /// Copies the sample file at `fixture` (relative to Fixtures/Library) to `path`.
  func add(_ fixture: String, as path: String) throws {
    let destination = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: TestLibrary.fixtures.appendingPathComponent(fixture), to: destination)
  }

  /// Writes `bytes` to `path`.
  func write(_ bytes: [UInt8], as path: String) throws {
    let destination = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: destination)
  }

  /// Deletes the folder.
  func remove() {
    try? FileManager.default.removeItem(at: root)
  }
}

/// Sample files of `Fixtures/Library` the tests rely on.
enum Sample {
  static let photoWithGPS = "IMG_0001.JPG"
  static let photoWithoutMetadata = "IMG_0002.jpg"
  static let movie = "DCIM/100APPLE/IMG_0102.MOV"
  static let mp4 = "Videos/clip.mp4"
  static let truncatedJPEG = "Broken/broken.jpg"
  /// A Live Photo's still: HEIC, taken 2021-06-05 18:30:00 +09:00.
  static let liveStill = "DCIM/100APPLE/IMG_0200.HEIC"
  /// That Live Photo's movie: 1.5 s, Apple creation date one second after the still.
  static let liveMovie = "DCIM/100APPLE/IMG_0200.MOV"
}
