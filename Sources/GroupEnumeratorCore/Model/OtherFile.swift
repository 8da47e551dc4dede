public import FoundationEssentials

/// A regular file of the library that is not an asset: not a photo or video by its name
/// or by its content (a text file, `Thumbs.db`, `desktop.ini`, a PDF, a non-Takeout
/// `.json`), or a sidecar that fits no single asset.
///
/// Other files are not counted in an enumeration's `total` or in a group's counts, and a
/// folder that holds only other files is not an album. They are not lost either: every
/// enumeration lists them (``AssetsLibrary/Contents/otherFiles``,
/// ``AssetsLibrary/StreamSummary/otherFiles``, ``AssetsLibrary/otherFiles()``), each with
/// the reason it is not an asset. Other files are never read beyond the first bytes that
/// told what they are.
///
/// A file whose name is a photo or video format's (`.jpg`, `.x3f`, `.mkv`) is always an
/// asset, even when its content cannot be read: it gets a problem instead.
public struct OtherFile: Sendable, Hashable, CustomStringConvertible {
  /// Why a file is not an asset, for programs.
  public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Neither the name nor the content is a photo or video format: a `.txt`, a PDF,
    /// `Thumbs.db`, an empty file without a media extension.
    case notMedia
    /// A sidecar (`.xmp`, `.aae`, `.thm`, `.lrv`, `.lrf`) that no single asset of its
    /// folder is named after: none, or several.
    case unmatchedSidecar
    /// Sound, by its content (MP3, AAC, WAV, AIFF, FLAC, Ogg, AMR, an `.m4a`): PhotoKit
    /// keeps audio out of Photos.
    case audio
    /// The file could not be examined (the message names the system error), and its name
    /// is not a photo or video format's.
    case unreadable
  }

  /// The file's path relative to the library root.
  public let path: LibraryPath
  /// The file's size in bytes (0 when it could not be examined).
  public let fileSize: Int64
  /// The file's modification time (the epoch when it could not be examined).
  public let modificationDate: Date
  /// Why the file is not an asset.
  public let reason: Reason
  /// The reason as a sentence for people that names the file.
  public let message: String

  /// Creates an other file.
  ///
  /// - Parameters:
  ///   - path: The file's path relative to the library root.
  ///   - fileSize: Its size in bytes.
  ///   - modificationDate: Its modification time.
  ///   - reason: Why it is not an asset.
  ///   - message: The reason as a sentence for people.
  public init(
    path: LibraryPath, fileSize: Int64, modificationDate: Date, reason: Reason, message: String
  ) {
    self.path = path
    self.fileSize = fileSize
    self.modificationDate = modificationDate
    self.reason = reason
    self.message = message
  }

  /// The file name, for display.
  public var name: String { path.lastComponent }

  /// `reason: message`, as an ``AssetProblem`` reads.
  public var description: String { "\(reason.rawValue): \(message)" }
}
