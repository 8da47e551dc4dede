import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// `make render-sweep`: one 80 × 80 picture of every asset of the folders named in
/// `GROUPENUMERATOR_RENDER_SWEEP` (colon-separated; the shared corpus and hostile set).
/// Skipped without it: those folders are not part of the repository.
///
/// Prints, per folder, the counts and the process's peak resident size, and the assets
/// whose picture raised it most (the kernel's high-water mark, `VmHWM`, is reset before
/// each picture through `/proc/self/clear_refs`, so each picture's own peak is seen).
/// With `GROUPENUMERATOR_RENDER_SWEEP_MAX_RSS_MB` set, a peak above it fails the test.
@Suite struct RenderSweepTests {
  @Test func everyAssetHasAPictureOrADrawingError() async throws {
    let environment = ProcessInfo.processInfo.environment
    guard let folders = environment["GROUPENUMERATOR_RENDER_SWEEP"] else { return }
    let limit = environment["GROUPENUMERATOR_RENDER_SWEEP_MAX_RSS_MB"].flatMap { Int($0) }
    var sweepPeak = 0
    for folder in folders.split(separator: ":").map(String.init) {
      let library = AssetsLibrary(
        root: URL(fileURLWithPath: folder), options: LibraryOptions(pictureCache: .none))
      let assets = try await library.enumerate().assets
      #expect(!assets.isEmpty, "\(folder)")
      var pictures = 0
      var peak = Memory.peakKiB()
      var peaks: [(kib: Int, before: Int, path: String)] = []
      for asset in assets {
        Memory.resetPeak()
        let before = Memory.residentKiB()
        do throws(ImageRequestError) {
          let image = try await library.image(
            for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit)
          #expect(max(image.pixelWidth, image.pixelHeight) == 80, "\(asset.path)")
          #expect(image.data.starts(with: image.isPNG ? [0x89, 0x50] : [0xFF, 0xD8]))
          pictures += 1
        } catch {
          // A file that cannot be drawn says why; the library and the decoders are
          // always there, and every file of the sweep is readable.
          switch error {
          case .noDecoder, .undecodable, .tooLarge: break
          default: Issue.record("\(asset.path): \(error)")
          }
        }
        let assetPeak = Memory.peakKiB()
        peak = max(peak, assetPeak)
        peaks.append((assetPeak, before, "\(asset.path)"))
      }
      sweepPeak = max(sweepPeak, peak)
      print(
        "render-sweep: \(folder): \(pictures) pictures of \(assets.count) assets, "
          + "peak RSS \(peak / 1024) MB, now \(Memory.residentKiB() / 1024) MB")
      for (kib, before, path) in peaks.sorted(by: { $0.kib > $1.kib }).prefix(5) {
        print("render-sweep:   \(kib / 1024) MB (\(before / 1024) MB before) \(path)")
      }
    }
    if let limit {
      #expect(sweepPeak > 0, "the peak resident size could not be read")
      #expect(sweepPeak <= limit * 1024, "peak RSS \(sweepPeak / 1024) MB over \(limit) MB")
    }
  }
}

/// The test process's resident size, from `/proc/self/status`.
private enum Memory {
  /// The highest resident size since the start or the last ``resetPeak()``, in KiB.
  static func peakKiB() -> Int { field("VmHWM:") }
  /// The resident size now, in KiB.
  static func residentKiB() -> Int { field("VmRSS:") }

  /// Sets the high-water mark to the resident size now (Linux 4.0 and later).
  static func resetPeak() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
  }

  private static func field(_ name: String) -> Int {
    // Read through a handle: /proc's files report a size of 0.
    let data = FileHandle(forReadingAtPath: "/proc/self/status")?.readDataToEndOfFile() ?? Data()
    let status = String(decoding: data, as: UTF8.self)
    for line in status.split(separator: "\n") where line.hasPrefix(name) {
      return Int(line.dropFirst(name.count).split(whereSeparator: \.isWhitespace).first ?? "") ?? 0
    }
    return 0
  }
}
