import Foundation
import Glibc
import Testing

@testable import Demo

/// `Demo --format html` as a process: the drawing bar on a terminal, and a full disk, which
/// must leave no `index.html`.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path)
      && FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs the built Demo next to the test bundle and Fixtures/Library"))
struct PageProcessTests {
  @Test(.timeLimit(.minutes(2)))
  func aTerminalSeesTheLoadingThenTheDrawingBarThenACleanLine() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let terminal = try PseudoTerminal()
    let process = Process()
    process.executableURL = demoExecutable
    process.arguments = ["--format", "html", "--output", scratch.path + "/page", "--lang", "ja"]
    process.environment = processEnvironment
    process.standardOutput = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    process.standardError = FileHandle(fileDescriptor: terminal.terminal, closeOnDealloc: false)
    try process.run()
    terminal.closeTerminalSide()
    process.waitUntilExit()
    let screen = String(decoding: terminal.finish(), as: UTF8.self)
    #expect(process.terminationStatus == 0)
    let loading = try #require(screen.range(of: "写真を読み込み中("), "\(screen.debugDescription)")
    let drawing = try #require(screen.range(of: "サムネイルを作成中(100%)..."))
    #expect(loading.upperBound <= drawing.lowerBound)
    #expect(screen.contains("] 15/15"))
    #expect(screen.hasSuffix("\r\u{1B}[K"), "\(screen.suffix(80).debugDescription)")
    #expect(FileManager.default.fileExists(atPath: scratch.path + "/page/index.html"))
  }

  @Test(.timeLimit(.minutes(2)))
  func aSecondPageTakesItsPicturesFromTheThumbnailCacheAsTheyAreStored() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let environment = ["XDG_CACHE_HOME": scratch.path + "/cache"]
    for name in ["first", "second"] {
      let outcome = try run(
        demoExecutable,
        ["--format", "html", "--output", scratch.path + "/" + name, "--no-progress"],
        environment: environment)
      #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
    }
    // The first page's workers drew into the desktop's cache folders; the second page
    // hands those entries on byte for byte (nothing decoded), shown within 80 × 80.
    let normal = scratch.path + "/cache/thumbnails/normal/"
    let entries = Set(
      try FileManager.default.contentsOfDirectory(atPath: normal).compactMap {
        FileManager.default.contents(atPath: normal + $0)
      })
    #expect(entries.count >= 10)
    let first = try FileManager.default.contentsOfDirectory(
      atPath: scratch.path + "/first/pictures")
    let second = try FileManager.default.contentsOfDirectory(
      atPath: scratch.path + "/second/pictures")
    #expect(first.count >= 10 && second.count == first.count, "\(first) \(second)")
    // On the cache's file system they are hard links to the entries: no file is made.
    var inodes: Set<ino_t> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: normal) {
      var entry = stat()
      if lstat(normal + name, &entry) == 0 { inodes.insert(entry.st_ino) }
    }
    // The first page's stored pictures, just drawn into the cache, are linked too.
    for picture in first where picture.hasSuffix(".png") {
      var linked = stat()
      #expect(lstat(scratch.path + "/first/pictures/" + picture, &linked) == 0)
      #expect(inodes.contains(linked.st_ino), "\(picture)")
    }
    for picture in second {
      let bytes = try #require(
        FileManager.default.contents(atPath: scratch.path + "/second/pictures/" + picture))
      #expect(picture.hasSuffix(".png") && entries.contains(bytes), "\(picture)")
      var linked = stat()
      #expect(lstat(scratch.path + "/second/pictures/" + picture, &linked) == 0)
      #expect(inodes.contains(linked.st_ino) && linked.st_nlink >= 2, "\(picture)")
    }
    let page = try String(contentsOfFile: scratch.path + "/second/index.html", encoding: .utf8)
    for size in page.matches(of: /<img src="[^"]+" width="(\d+)" height="(\d+)"/) {
      let (width, height) = (Int(size.1) ?? 0, Int(size.2) ?? 0)
      #expect((1...80).contains(width) && (1...80).contains(height))
    }
  }

  @Test(.timeLimit(.minutes(2)))
  func aPictureWorkerKilledBySignalCostsOnePictureAndThePageCompletes() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let drawn = try run(
      demoExecutable, ["--format", "html", "--output", scratch.path + "/drawn", "--no-progress"])
    #expect(drawn.exited && drawn.status == 0, "\(drawn.stderr)")
    let crashed = try run(
      demoExecutable,
      ["--format", "html", "--output", scratch.path + "/crashed", "--no-progress"],
      environment: [PictureWorker.faultVariable: "crash:IMG_0002.jpg"])
    #expect(crashed.exited && crashed.status == 0, "\(crashed.stderr)")
    let page = try String(contentsOfFile: scratch.path + "/crashed/index.html", encoding: .utf8)
    let whole = try String(contentsOfFile: scratch.path + "/drawn/index.html", encoding: .utf8)
    // One placeholder more than a page drawn without the fault, naming the signal; every
    // other picture is there.
    let placeholders = { (html: String) in
      html.components(separatedBy: "class=\"placeholder\"").count - 1
    }
    let pictures = { (html: String) in html.components(separatedBy: "<img ").count - 1 }
    #expect(placeholders(page) == placeholders(whole) + 1)
    #expect(pictures(page) == pictures(whole) - 1)
    #expect(page.contains("SIGSEGV"))
  }

  @Test(
    .enabled(
      if: SystemProbe.mountUnavailable == nil || SystemProbe.isDemanded(SystemProbe.mountVariable),
      Comment(
        rawValue: (SystemProbe.mountUnavailable ?? "")
          + "; set \(SystemProbe.mountVariable)=1 to make this a failure")),
    .timeLimit(.minutes(2)))
  func aFullDiskFailsTheRunAndLeavesNoPage() throws {
    guard
      SystemProbe.proceed(
        unless: SystemProbe.mountUnavailable, demandedBy: SystemProbe.mountVariable)
    else { return }
    let scratch = try TemporaryFolder("PageProcessTests")
    // A 24 KiB tmpfs in a private mount namespace (gone with the script): room for a few
    // pictures, not for all of them. What the folder holds is listed before it goes.
    let script = """
      mount -t tmpfs -o size=24k tmpfs "$1" || exit 90
      "$0" --format html --output "$1/page" --no-progress
      echo "status $?"
      ls -A "$1/page"
      """
    let outcome = try run(
      SystemProbe.unshare,
      [
        "--mount", "--propagation", "private", "/bin/sh", "-c", script, demoExecutable.path,
        scratch.path,
      ])
    #expect(outcome.status == 0, "\(outcome.stderr)")
    let lines = outcome.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "status 1", "\(outcome.stdout)")
    #expect(
      outcome.stderr.hasPrefix(
        "Error: Cannot write the page to '\(scratch.path)/page': the disk is full."),
      "\(outcome.stderr)")
    #expect(!lines.contains("index.html"))
    #expect(!lines.contains { $0.hasPrefix(".index.html.") })
    #expect(lines.contains(PageFolder.markName) && lines.contains("pictures"))
  }
}
