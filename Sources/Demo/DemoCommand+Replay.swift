import Dispatch
import GroupEnumeratorCore
import Synchronization

extension DemoCommand {
  /// A listing with `--index`: printed from its replay file when the library is unchanged
  /// since it was recorded (``ListingReplay``), else listed and recorded for the next run.
  ///
  /// The replay file is kept only when the listing ended normally with the index in use
  /// (no warning about it: an index that was rebuilt or refused, for instance inside the
  /// library, leaves none), its whole output written, and nothing in it depending on the
  /// day it ran (``ListingTaint``).
  static func replayOrList(
    _ replay: ListingReplay, _ options: DemoOptions, _ library: AssetsLibrary,
    stdout: inout some ByteOutputStream, stderr: inout some TextOutputStream,
    progressBar: ProgressBar?
  ) async throws(LibraryError) -> Int32 {
    // The walk and the copy block: off the main actor, which must stay free for signals.
    let output = stdout
    let (outcome, written, errors) = await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        var output = output
        var errors = ""
        let outcome = replay.replay(to: &output, stderr: &errors)
        continuation.resume(returning: (outcome, output, errors))
      }
    }
    stdout = written
    stderr.write(errors)
    let fingerprint: TreeFingerprint
    let latestChange: Int64
    switch outcome {
    case .replayed(let status):
      return Task.isCancelled ? interrupted : status
    case .missed(let walked, let latest):
      guard let walked else {
        try await list(
          options, library, stdout: &stdout, stderr: &stderr, progressBar: progressBar,
          tableWidth: nil)
        return success
      }
      fingerprint = walked
      latestChange = latest
    }
    guard let recording = replay.record(fingerprint, latestChange: latestChange) else {
      try await list(
        options, library, stdout: &stdout, stderr: &stderr, progressBar: progressBar,
        tableWidth: nil)
      return success
    }
    var tee = RecordingStream(base: stdout, recording: recording)
    var captured = ""
    let taint = ListingTaint()
    do throws(LibraryError) {
      let summary = try await list(
        options, library, stdout: &tee, stderr: &captured, progressBar: progressBar,
        tableWidth: nil, taint: taint)
      stdout = tee.base
      stderr.write(captured)
      if let summary { taint.check(summary) }
      let keep =
        summary?.warnings.isEmpty == true && !taint.isTainted && !stdout.isBroken
        && !OutputGate.standardOutput.isClosed && !Task.isCancelled
      tee.recording.finish(status: success, errors: captured, keep: keep)
    } catch {
      stdout = tee.base
      stderr.write(captured)
      tee.recording.abandon()
      throw error
    }
    return success
  }
}

/// Whether a listing holds something that depends on when it ran, so that replaying it
/// later could differ from reading the library again; such a listing is not recorded:
/// - a movie's creation time is judged against the current date (more than a year ahead
///   is ignored, with a problem);
/// - a passing error (``AssetProblem/isPassing``: out of descriptors or memory, an
///   interrupted call, a share that timed out) on an asset, a folder, or a file that
///   could not be examined: the same unchanged tree may read fine on the next run, and
///   a replay would repeat the error for ever.
final class ListingTaint: Sendable {
  private let tainted = Atomic<Bool>(false)

  var isTainted: Bool { tainted.load(ordering: .relaxed) }

  /// Looks at one asset (on any thread).
  func check(_ asset: Asset) {
    guard !asset.problems.isEmpty else { return }
    if asset.problems.contains(where: {
      $0.isPassing || $0.dependsOnToday
    }) {
      tainted.store(true, ordering: .relaxed)
    }
  }

  /// Looks at what the listing found beside its assets.
  func check(_ summary: AssetsLibrary.StreamSummary) {
    if summary.folderProblems.values.contains(where: \.isPassing)
      || summary.otherFiles.contains(where: \.isPassing)
    {
      tainted.store(true, ordering: .relaxed)
    }
  }
}
