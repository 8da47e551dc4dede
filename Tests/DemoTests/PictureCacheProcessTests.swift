import Foundation
import Testing

@testable import Demo

/// `Demo thumbnail --size` draws through the desktop's thumbnail cache, which
/// `XDG_CACHE_HOME` places (here a temporary folder, never the test runner's own), and
/// `--no-cache` draws without it.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct PictureCacheProcessTests {
  @Test func thumbnailWritesTheDesktopCacheAndNoCacheDoesNot() throws {
    let scratch = try TemporaryFolder("PictureCacheProcessTests")
    let folder = scratch.root
    let library = DemoCommand.bundledLibrary.path
    let photo = library + "/IMG_0002.jpg"
    let used = folder.appendingPathComponent("used").path
    let unused = folder.appendingPathComponent("unused").path
    var outputs: [Data] = []
    for (cache, extra) in [(used, [String]()), (used, []), (unused, ["--no-cache"])] {
      let output = folder.appendingPathComponent("picture-\(outputs.count).jpg").path
      let outcome = try run(
        demoExecutable,
        ["thumbnail", photo, library, "--size", "64", "--output", output] + extra,
        environment: ["XDG_CACHE_HOME": cache])
      #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
      outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
    }
    let entries = try FileManager.default.contentsOfDirectory(atPath: used + "/thumbnails/normal")
    #expect(entries.count == 1 && entries.first?.hasSuffix(".png") == true, "\(entries)")
    #expect(!FileManager.default.fileExists(atPath: unused))
    // The miss and the hit give the same picture.
    #expect(outputs[0] == outputs[1])
  }
}
