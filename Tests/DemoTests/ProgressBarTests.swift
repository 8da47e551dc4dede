import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@MainActor @Suite struct ProgressBarTests {
  private let english = Strings(language: .english)

  private func render(_ current: Int, _ total: Int, columns: Int = 80) -> String {
    ProgressBar.render(current: current, total: total, columns: columns, strings: english)
  }

  @Test func anEmptyLibraryIsCompleteWithoutDividingByZero() {
    let line = render(0, 0)
    #expect(line == "Loading photos (100%) [\(String(repeating: "#", count: 51))] 0/0")
    #expect(line.count == 79)
  }

  @Test func drawingThePagesPicturesHasItsOwnLabel() {
    let line = ProgressBar.render(
      current: 420, total: 1000, columns: 60, strings: english, activity: .drawing)
    #expect(
      line
        == "Drawing pictures (42%) [\(String(repeating: "#", count: 10))"
        + "\(String(repeating: ".", count: 15))] 420/1000")
    let japanese = ProgressBar.render(
      current: 1, total: 2, columns: 80, strings: Strings(language: .japanese),
      activity: .drawing)
    #expect(japanese.hasPrefix("サムネイルを作成中(50%)... ["))
  }

  @Test func oneAssetIsEmptyThenFull() {
    #expect(render(0, 1) == "Loading photos (0%) [\(String(repeating: ".", count: 53))] 0/1")
    #expect(render(1, 1) == "Loading photos (100%) [\(String(repeating: "#", count: 51))] 1/1")
  }

  @Test func aThousandAssetsFillTheBarInProportion() {
    let partial = render(420, 1000, columns: 60)
    #expect(
      partial
        == "Loading photos (42%) [\(String(repeating: "#", count: 11))"
        + "\(String(repeating: ".", count: 16))] 420/1000")
    #expect(partial.count == 59)
    #expect(render(1000, 1000).hasPrefix("Loading photos (100%) [####"))
    #expect(render(1000, 1000).count == 79)
    #expect(render(999, 1000).hasPrefix("Loading photos (99%) ["))
  }

  @Test func outOfRangeCountsAreClamped() {
    #expect(render(1500, 1000).hasSuffix("] 1000/1000"))
    #expect(render(-3, 10).hasPrefix("Loading photos (0%) [...."))
    #expect(render(5, -1).hasSuffix("] 0/0"))
  }

  @Test(arguments: [
    (30, "Loading photos (42%) 420/1000"), (25, "Loading photos (42%)"), (10, "42%"),
    (3, "42"), (1, ""), (0, ""), (-5, ""),
  ])
  func aNarrowTerminalDropsTheBarThenTheCounterThenTheLabel(columns: Int, line: String) {
    #expect(render(420, 1000, columns: columns) == line)
  }

  @Test func cjkLabelsAreMeasuredInColumns() {
    let chinese = ProgressBar.render(
      current: 420, total: 1000, columns: 40, strings: Strings(language: .simplifiedChinese))
    #expect(chinese == "载入照片中(42%)... [###......] 420/1000")
    #expect(DisplayWidth.of(chinese) == 39)
    let japanese = ProgressBar.render(
      current: 0, total: 0, columns: 30, strings: Strings(language: .japanese))
    #expect(japanese == "写真を読み込み中(100%)... 0/0")
  }

  @Test func redrawsAreCoalescedButTheFinalOneIsAlwaysDrawn() {
    final class Recorder {
      var writes: [String] = []
      var now = ContinuousClock.now
    }
    let recorder = Recorder()
    let bar = ProgressBar(
      columns: { 40 }, minimumInterval: .milliseconds(50), now: { recorder.now },
      write: { recorder.writes.append($0) })
    bar.update(current: 0, total: 10)
    bar.update(current: 1, total: 10)
    recorder.now = recorder.now.advanced(by: .milliseconds(60))
    bar.update(current: 2, total: 10)
    bar.update(current: 10, total: 10)
    bar.clear()
    bar.clear()
    #expect(
      recorder.writes == [
        "\r" + render(0, 10, columns: 40) + "\u{1B}[K",
        "\r" + render(2, 10, columns: 40) + "\u{1B}[K",
        "\r" + render(10, 10, columns: 40) + "\u{1B}[K",
        "\r\u{1B}[K",
      ])
  }
}
