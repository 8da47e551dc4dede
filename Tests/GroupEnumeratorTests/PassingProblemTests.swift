import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// Which problems are this run's (never stored in the index) and which are the file's.
@Suite struct PassingProblemTests {
  private let path = LibraryPath("a.jpg")

  @Test(arguments: [EMFILE, ENFILE, EIO, ESTALE, ETIMEDOUT, ENOMEM, EINTR, EAGAIN, EREMOTEIO])
  func anOpenThatFailedForTheMomentIsPassing(code: Int32) {
    let problem = BeneathOpener.problem(errno: Errno(rawValue: code), displayPath: path)
    #expect(problem.isPassing, "\(problem)")
  }

  @Test(arguments: [EACCES, EPERM, ENAMETOOLONG, EISDIR, EXDEV])
  func anOpenRefusedForTheFileIsNot(code: Int32) {
    let problem = BeneathOpener.problem(errno: Errno(rawValue: code), displayPath: path)
    #expect(!problem.isPassing, "\(problem)")
  }

  @Test func aFileThatVanishedOrChangedKindIsPassing() {
    #expect(AssetProblem(.vanished, "'a.jpg' disappeared before it could be read.").isPassing)
    #expect(AssetProblem(.notRegularFile, "'a.jpg' is not a regular file.").isPassing)
  }

  @Test func whatTheFileSaysIsNotPassing() {
    for problem in [
      AssetProblem(.malformed, "Cannot read errno 24: in EXIF."),
      AssetProblem(.truncated, "The JPEG ends at byte 5 (errno 5: no)."),
      AssetProblem(.unreadable, "Cannot read 'a.jpg' at byte 9: errno 13: Permission denied."),
      AssetProblem(.unreadable, "Cannot read 'a.jpg': errno 24 without a colon."),
    ] {
      #expect(!problem.isPassing, "\(problem)")
    }
    #expect(
      AssetProblem(.unreadable, "Cannot read 'a.jpg' at byte 9: errno 5: Input/output error.")
        .isPassing)
  }

  @Test func aNameThatLooksLikeAnErrnoOnlyCostsARead() {
    // The message holds the name, so a file named like an error is taken as passing: it
    // is read again on every run, never stored wrongly.
    let problem = BeneathOpener.problem(
      errno: Errno(rawValue: EACCES), displayPath: LibraryPath("errno 5: a.jpg"))
    #expect(problem.isPassing)
  }
}
