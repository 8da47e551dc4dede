import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// What holds for any reading of bytes held in memory, however broken: the source never
/// fails, so no problem is `unreadable`; every problem says what it is; sizes are
/// positive, an orientation is one of EXIF's eight, a duration is a finite count of
/// seconds. Returns whether a problem was reported, for tests that count them.
@discardableResult
func expectReaderInvariants(
  _ metadata: MediaMetadata, _ comment: @autoclosure () -> String,
  sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  for problem in metadata.problems {
    #expect(problem.code != .unreadable, "\(comment()): \(problem)", sourceLocation: sourceLocation)
    #expect(!problem.message.isEmpty, "\(comment()): \(problem)", sourceLocation: sourceLocation)
  }
  for size in [metadata.pixelWidth, metadata.pixelHeight].compactMap(\.self) {
    #expect(size > 0, "\(comment()): size \(size)", sourceLocation: sourceLocation)
  }
  if let orientation = metadata.orientation {
    #expect((1...8).contains(orientation), "\(comment())", sourceLocation: sourceLocation)
  }
  if let duration = metadata.duration {
    #expect(duration.isFinite && duration >= 0, "\(comment())", sourceLocation: sourceLocation)
  }
  return !metadata.problems.isEmpty
}
