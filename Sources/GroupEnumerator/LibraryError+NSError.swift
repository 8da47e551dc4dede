public import Foundation

extension LibraryError: CustomNSError {
  /// `ALAssetsLibraryErrorDomain`, as the original errors had it.
  public static var errorDomain: String { "ALAssetsLibraryErrorDomain" }

  /// The original's codes: −3310 data unavailable (missing or unreadable library), −3311
  /// access denied by the user, −1 unknown (cancellation).
  public var errorCode: Int {
    switch self {
    case .rootNotFound, .rootNotADirectory, .unreadableRoot: -3310
    case .permissionDenied: -3311
    case .cancelled: -1
    }
  }

  /// The English message under `NSLocalizedDescriptionKey`.
  public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}
