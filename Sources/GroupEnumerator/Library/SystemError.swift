#if canImport(Glibc)
  internal import Glibc
#endif

/// Text for `errno` values.
enum SystemError {
  /// `"ENOENT: No such file or directory"`-style text for an `errno` value.
  static func describe(_ code: Int32) -> String {
    let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
    return "errno \(code): \(text)"
  }
}
