import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// What keeps a listing from being recorded for replay: a problem that may be gone on
/// the next run of the same unchanged tree.
struct ListingTaintTests {
  private func asset(with problem: AssetProblem) -> Asset {
    var metadata = MediaMetadata()
    metadata.problems = [problem]
    let path = LibraryPath("IMG_0001.JPG")
    return Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 10)],
      fileModificationDate: Date(timeIntervalSince1970: 1_700_000_000), metadata: metadata)
  }

  @Test(arguments: [
    AssetProblem(.unreadable, "Cannot open 'IMG_0001.JPG': errno 24: Too many open files"),
    AssetProblem(.unreadable, "Cannot read 'IMG_0001.JPG': errno 5: Input/output error"),
    AssetProblem(.vanished, "'IMG_0001.JPG' was removed while the library was read."),
    AssetProblem(.invalidValue, "The creation time is more than a year from now; ignored."),
  ])
  func aProblemThatMayPassTaintsTheListing(problem: AssetProblem) {
    let taint = ListingTaint()
    taint.check(asset(with: problem))
    #expect(taint.isTainted)
  }

  @Test(arguments: [
    AssetProblem(.unreadable, "Cannot open 'IMG_0001.JPG': errno 13: Permission denied"),
    AssetProblem(.malformed, "The JPEG ends early (errno 24: is only text here)."),
  ])
  func aProblemOfTheFileItselfDoesNot(problem: AssetProblem) {
    let taint = ListingTaint()
    taint.check(asset(with: problem))
    #expect(!taint.isTainted)
  }
}
