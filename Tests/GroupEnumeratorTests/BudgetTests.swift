import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Each per-file budget (docs/Robustness.md, "Per-file budgets") tripped by a file made
/// for it: what trips becomes a problem, and the walk stops early.
@Suite struct BudgetTests {
  typealias B = BoxBuilder

  /// A PNG whose `count` text chunks each hold a raw EXIF profile that is not hex.
  static func pngWithBadProfiles(_ count: Int) -> [UInt8] {
    let bad = PNGBuilder.text("Raw profile type exif", [0x21])
    var file = PNGBuilder.signature + PNGBuilder.header(width: 7, height: 9)
    for _ in 0..<count { file += bad }
    return file + PNGBuilder.imageData() + PNGBuilder.end
  }

  @Test func aLogKeepsTheFirstProblemsAndCountsTheRest() {
    var log = ProblemLog()
    for index in 0..<20 { log.append(AssetProblem(.invalidValue, "problem \(index)")) }
    let problems = log.problems
    #expect(problems.count == ProblemLog.maximumKept + 1)
    #expect(
      problems.prefix(ProblemLog.maximumKept).map(\.message) == (0..<8).map { "problem \($0)" })
    #expect(problems.last?.code == .invalidValue)
    #expect(problems.last?.message.hasPrefix("…and 12 more problems") == true)
  }

  @Test func aLogUnderTheBudgetAddsNothing() {
    var log = ProblemLog()
    for index in 0..<ProblemLog.maximumKept { log.append(AssetProblem(.malformed, "\(index)")) }
    #expect(log.problems.count == ProblemLog.maximumKept)
    #expect(!log.problems.contains { $0.message.hasPrefix("…and") })
  }

  @Test func aPNGWithThousandsOfBadProfilesKeepsAFewProblems() {
    let metadata = PNGMetadataReader.read(from: ArrayByteSource(Self.pngWithBadProfiles(5000)))
    #expect(metadata.pixelWidth == 7)
    #expect(metadata.problemLog.kept.count == ProblemLog.maximumKept)
    #expect(metadata.problemLog.omitted == 5000 - ProblemLog.maximumKept)
    #expect(metadata.problems.last?.message.hasPrefix("…and 4992 more problems") == true)
  }

  @Test func aTrippedBudgetIsShownPastTheCap() {
    let count = PNGMetadataReader.maximumChunks + 100
    let metadata = PNGMetadataReader.read(from: ArrayByteSource(Self.pngWithBadProfiles(count)))
    let messages = metadata.problems.map(\.message)
    #expect(messages.count == ProblemLog.maximumKept + 2)
    // IHDR is chunk 1, so 65,535 profiles were read: 8 kept, 65,527 counted.
    #expect(messages[ProblemLog.maximumKept].hasPrefix("…and 65527 more problems"))
    #expect(messages.last == "The PNG has more than 65536 chunks; the rest were not read.")
    #expect(metadata.problems.last?.code == .unsupported)
  }

  @Test func aHEIFWithoutMetaAmongItsFirstBoxesSaysWhy() {
    var file = B.ftyp("heic")
    for _ in 0...HEIFMetadataReader.maximumTopLevelBoxes { file += B.box("free", []) }
    let metadata = HEIFMetadataReader.read(from: ArrayByteSource(file))
    #expect(
      metadata.problems.map(\.message) == [
        "The file has no 'meta' box among its first 65536 top-level boxes; the rest were not "
          + "read."
      ])
  }

  @Test func aMovieWithThousandsOfBadDatesKeepsAFewProblems() {
    let bad = B.item(1, Array("not a date".utf8))
    var items: [UInt8] = []
    for _ in 0..<3000 { items += bad }
    let meta = B.box(
      "meta", B.hdlr("mdta") + B.keys(["com.apple.quicktime.creationdate"]) + B.box("ilst", items))
    let movie = B.ftyp() + B.box("moov", children: [B.mvhd(creation: 0), meta])
    let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(movie))
    #expect(metadata.problems.count == ProblemLog.maximumKept + 1)
    #expect(metadata.problemLog.omitted == 3000 - ProblemLog.maximumKept)
  }

  @Test func compressedProfilesStopAtTheFileBudget() throws {
    // Each inflates to 3 MiB of text that is not a raw profile: six of them pass
    // 16 MiB, so the sixth is cut to what is left and the seventh is not read.
    let text = [UInt8](repeating: 0x20, count: 3 << 20)
    let chunk = try PNGBuilder.compressedText("Raw profile type exif", text)
    var file = PNGBuilder.signature + PNGBuilder.header(width: 7, height: 9)
    for _ in 0..<10 { file += chunk }
    file += PNGBuilder.imageData() + PNGBuilder.end
    var structure = PNGStructure()
    try structure.walk(ArrayByteSource(file))
    #expect(structure.textBytesSpent <= PNGMetadataReader.maximumTextBytesPerFile)
    let messages = structure.problems.problems.map(\.message)
    #expect(messages.count == 7)
    #expect(messages[5].contains("left of the file's 16 MiB raw-profile budget"))
    #expect(messages[6].contains("any raw profile after it were not read"))
    #expect(messages[6].contains("16 MiB in all"))
  }

  @Test func storedProfilesCountTowardsTheFileBudgetToo() {
    // Five 4 MiB tEXt profiles: the fifth would pass 16 MiB.
    let text = [UInt8](repeating: 0x20, count: (4 << 20) - 30)
    let chunk = PNGBuilder.text("Raw profile type exif", text)
    var file = PNGBuilder.signature + PNGBuilder.header(width: 7, height: 9)
    for _ in 0..<5 { file += chunk }
    let metadata = PNGMetadataReader.read(
      from: ArrayByteSource(file + PNGBuilder.imageData() + PNGBuilder.end))
    #expect(metadata.problems.count == 4 + 1)
    #expect(metadata.problems.last?.code == .unsupported)
    #expect(metadata.problems.last?.message.contains("were not read") == true)
  }

  @Test func thePNGChunkBudgetIsAPowerOfTwoWellAboveTheCorpus() {
    // The walk itself is tested in PNGMetadataReaderTests.tooManyChunksEndTheWalk.
    #expect(PNGMetadataReader.maximumChunks == 65_536)
    #expect(QuickTimeMetadataReader.maximumBoxCount == 262_144)
  }
}
