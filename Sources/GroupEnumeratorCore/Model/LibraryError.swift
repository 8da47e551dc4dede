/// A fault of the library as a whole. Anything wrong with a single file is an
/// ``AssetProblem`` instead, and never stops an enumeration.
///
/// The sentences for people (``message(in:)``) are written where the C library's text for
/// an `errno` is at hand, in `Library/LibraryError+Message.swift`: the model has no C.
public enum LibraryError: Error, Sendable, Hashable {
  /// The root folder does not exist.
  case rootNotFound(path: String)
  /// The root exists but is not a folder.
  case rootNotADirectory(path: String)
  /// The root (or a resource needed to read it) may not be read by this user.
  case permissionDenied(path: String)
  /// The root could not be opened or listed for another reason.
  case unreadableRoot(path: String, call: String, errno: Int32)
  /// The enumeration was cancelled.
  case cancelled

  /// A stable code for programs.
  public var code: String {
    switch self {
    case .rootNotFound: "rootNotFound"
    case .rootNotADirectory: "rootNotADirectory"
    case .permissionDenied: "permissionDenied"
    case .unreadableRoot: "unreadableRoot"
    case .cancelled: "cancelled"
    }
  }
}

/// A language the library's user-facing text comes in.
public enum Language: String, Sendable, Hashable, CaseIterable {
  case english = "en"
  case simplifiedChinese = "zh-Hans"
  case japanese = "ja"
}
