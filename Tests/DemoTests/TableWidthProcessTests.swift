import Foundation
import Testing

@testable import Demo

/// The real `Demo` fits its tables to `COLUMNS`, and keeps whole lines when writing to a
/// pipe with no `COLUMNS`.
@Suite struct TableWidthProcessTests {
  static let library = DemoCommand.bundledLibrary.path

  @Test(arguments: [
    ["--lang", "en"], ["--lang", "ja"], ["--lang", "zh-Hans"], ["groups"],
    ["groups", "--lang", "ja"],
  ])
  func withColumns80NoLineIsWiderThan80(arguments: [String]) throws {
    for columns in [80, 40] {
      let outcome = try run(
        demoExecutable, arguments + [TableWidthProcessTests.library],
        environment: ["COLUMNS": String(columns)])
      #expect(outcome.status == 0, "\(outcome.stderr)")
      let lines = outcome.stdout.split(separator: "\n")
      #expect(lines.count > 5)
      for line in lines {
        #expect(DisplayWidth.of(String(line)) <= columns, "\(columns): \(line)")
      }
    }
  }

  @Test func withColumns80TheLibrarysTableIsThisText() throws {
    let outcome = try run(
      demoExecutable, [TableWidthProcessTests.library], environment: ["COLUMNS": "80"])
    let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(
      lines.prefix(6).joined(separator: "\n") == """
        Name           Group          Taken                Source              Problems
        -------------  -------------  -------------------  ------------------  ---------
        IMG_0100.JPG   Camera Roll    2020/02/22 16:45:00  EXIF original       -
        IMG_0101.JPG   Camera Roll    2020/03/03 08:00:00  EXIF original       -
        IMG_0102.MOV   Camera Roll    2021/06/01 19:00:00  QuickTime           -
        IMG_02…00.MOV  Camera Roll    2021/06/05 18:30:00  EXIF original       -
        """)
    #expect(
      lines.contains { $0.hasPrefix("broken.jpg     Broken       ") && $0.hasSuffix("truncated") })
  }

  @Test func withoutColumnsAPipedTableKeepsWholeNamesAndEveryColumn() throws {
    let outcome = try run(demoExecutable, [TableWidthProcessTests.library])
    #expect(outcome.status == 0)
    let lines = outcome.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("Name                         Group  ") == true)
    #expect(lines.first?.hasSuffix("Dimensions  Length  GPS                   Problems") == true)
    #expect(lines.contains { $0.hasPrefix("IMG_0200.HEIC, IMG_0200.MOV  Camera Roll") })
    #expect(!outcome.stdout.contains("…"))
  }
}
