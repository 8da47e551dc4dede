import Foundation

/// Sample files of `Fixtures/Library` the tests rely on.
enum Sample {
  /// The package's `Fixtures/Library`, found from this file's location.
  static let library: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // GroupEnumeratorTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Fixtures/Library")

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
