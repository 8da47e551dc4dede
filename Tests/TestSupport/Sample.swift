public import Foundation

/// The committed files the tests read, found from this file's location: `Fixtures/Library`
/// (the sample library), the fixtures next to it, and the test resources (each folder holds
/// the script that made its files). Names are relative to their folder.
public enum Sample {
  /// The package's root folder.
  public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // TestSupport
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root

  /// The package's `Fixtures` folder.
  public static let fixtures = Folder(packageRoot.appendingPathComponent("Fixtures"))

  /// The package's `Fixtures/Library`.
  public static let library = fixtures.url.appendingPathComponent("Library")

  /// `Fixtures/Phones`, made by `Fixtures/make-phones.sh` (see `Fixtures/Phones.md`).
  public static let phones = fixtures.folder("Phones")

  /// `Tests/GroupEnumeratorTests/Resources`: files made by the scripts in it.
  public static let resources = Folder(
    packageRoot.appendingPathComponent("Tests/GroupEnumeratorTests/Resources"))

  /// The bytes of `name` in `Fixtures/Library`.
  public static func bytes(_ name: String) throws -> [UInt8] {
    try Folder(library).bytes(name)
  }

  /// A folder of committed files.
  public struct Folder: Sendable {
    /// The folder's URL.
    public let url: URL

    /// The folder at `url`.
    public init(_ url: URL) { self.url = url }

    /// The folder `name` inside this one.
    public func folder(_ name: String) -> Folder { Folder(url.appendingPathComponent(name)) }

    /// The bytes of the file `name` (a path relative to the folder).
    public func bytes(_ name: String) throws -> [UInt8] {
      [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
    }
  }

  /// A JPEG with EXIF and a GPS position.
  public static let photoWithGPS = "IMG_0001.JPG"
  /// A JPEG without EXIF.
  public static let photoWithoutMetadata = "IMG_0002.jpg"
  /// A QuickTime movie.
  public static let movie = "DCIM/100APPLE/IMG_0102.MOV"
  /// An MP4 movie.
  public static let mp4 = "Videos/clip.mp4"
  /// A JPEG cut inside its EXIF segment.
  public static let truncatedJPEG = "Broken/broken.jpg"
  /// A Live Photo's still: HEIC, taken 2021-06-05 18:30:00 +09:00.
  public static let liveStill = "DCIM/100APPLE/IMG_0200.HEIC"
  /// That Live Photo's movie: 1.5 s, Apple creation date one second after the still.
  public static let liveMovie = "DCIM/100APPLE/IMG_0200.MOV"
}
