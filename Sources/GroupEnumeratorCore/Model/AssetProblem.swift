/// Something wrong with one file: reported on its asset, never fatal to the library.
public struct AssetProblem: Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem it is, for programs.
  public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
    /// The file could not be opened or read (the message names the system error).
    case unreadable
    /// The file is not a regular file any more (replaced by a FIFO, a folder, a link…).
    case notRegularFile
    /// The file disappeared between listing and reading.
    case vanished
    /// The file is empty.
    case emptyFile
    /// The content is not a media format we know, though the name says it is.
    case unrecognizedFormat
    /// The content is malformed; what could be read is kept.
    case malformed
    /// The file ends before its format says it does (a JPEG without its end-of-image
    /// marker, a PNG without `IEND`, a movie whose last box runs past the end): it was
    /// cut short, typically by an interrupted copy or download. What lies before the cut
    /// is read.
    case truncated
    /// A metadata value is impossible (bad date, GPS out of range, zero denominator…)
    /// and was treated as absent.
    case invalidValue
    /// A folder could not be listed.
    case unreadableFolder
    /// Reading metadata from this format is not supported yet.
    case unsupported
    /// The content is a video though the name says photo, or the other way round: the
    /// asset keeps the type its name gave (it was counted by name), and its metadata is
    /// read as what the content is.
    case misnamed
  }

  /// What kind of problem it is.
  public let code: Code
  /// A sentence for people.
  public let message: String

  /// Creates a problem.
  ///
  /// - Parameters:
  ///   - code: What kind of problem it is.
  ///   - message: A sentence for people.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// `code: message`.
  public var description: String { "\(code.rawValue): \(message)" }
}
