import Foundation
import GroupEnumerator

/// `LibraryBench LIBRARY [INDEX]`: enumerates the library once through the typed API
/// (``AssetsLibrary/enumerate(filter:progress:)``) and prints one line of figures on
/// standard error, as `Demo --statistics` does, for `Benchmarks/run.py`: the asset count,
/// the phase times the engine measured, how many progress calls and main-actor hops it
/// made, and the wall time of the call. With INDEX, the enumeration keeps its index in that
/// file (``LibraryOptions/index``) and the line says how many files it took from there.
///
/// Exit status: 0 on success, 1 when the library fails, 64 for a usage error.
@main struct LibraryBench {
  @MainActor static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    guard (1...2).contains(arguments.count), let path = arguments.first else {
      FileHandle.standardError.write(Data("usage: LibraryBench LIBRARY [INDEX]\n".utf8))
      exit(64)
    }
    let index = arguments.dropFirst().first.map { IndexLocation.file(URL(fileURLWithPath: $0)) }
    let library = AssetsLibrary(
      root: URL(fileURLWithPath: path), options: LibraryOptions(index: index ?? .none))
    var progressCalls = 0
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let contents = try await library.enumerate { _, _ in progressCalls += 1 }
      let wall = clock.now - start
      let statistics = contents.statistics
      let line =
        "statistics: assets \(contents.assets.count) files-read \(statistics.filesRead)"
        + " walk-s \(seconds(statistics.walk)) metadata-s \(seconds(statistics.metadata))"
        + " delivery-s \(seconds(statistics.delivery)) enumerate-s \(seconds(wall))"
        + " progress-calls \(progressCalls) main-actor-hops \(statistics.mainActorHops)"
        + " files-from-index \(statistics.filesFromIndex)\n"
      FileHandle.standardError.write(Data(line.utf8))
      for warning in contents.warnings {
        FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
      }
    } catch {
      FileHandle.standardError.write(Data("LibraryBench: \(error)\n".utf8))
      exit(1)
    }
  }

  /// `duration` in seconds, with 4 decimals.
  static func seconds(_ duration: Duration) -> String {
    let (whole, fraction) = duration.components
    return String(format: "%.4f", Double(whole) + Double(fraction) / 1e18)
  }
}
