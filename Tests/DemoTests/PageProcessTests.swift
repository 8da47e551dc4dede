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
  @Test(.hangLimit)
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
    try SpawnFence.exclusive { try process.run() }
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

  @Test(.hangLimit)
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

  /// A page drawn through the thumbnail cache keeps its listing in the library's own index
  /// in the same cache folder; a page made again reads its unchanged files from there and
  /// a changed one again, and is byte for byte the page read without the index.
  /// `--no-index` keeps none.
  /// A one-letter `--output` in the working folder, for a page and for a thumbnail
  /// (Foundation's path helper, which took its folder, trapped on such a name).
  @Test(.hangLimit)
  func aOneLetterOutputInTheWorkingFolderIsWritten() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let cache = ["XDG_CACHE_HOME": scratch.path + "/cache"]
    let page = try run(
      demoExecutable,
      [DemoCommand.bundledLibrary.path, "--format", "html", "--output", "p", "--no-progress"],
      environment: cache, in: scratch.path)
    #expect(page.exited && page.status == 0, "\(page.stderr)")
    #expect(FileManager.default.fileExists(atPath: scratch.path + "/p/index.html"))
    let thumbnail = try run(
      demoExecutable,
      [
        "thumbnail", DemoCommand.bundledLibrary.path + "/IMG_0002.jpg", "--size", "32",
        "--output", "t",
      ],
      environment: cache, in: scratch.path)
    #expect(thumbnail.exited && thumbnail.status == 0, "\(thumbnail.stderr)")
    #expect(FileManager.default.fileExists(atPath: scratch.path + "/t"))
  }

  @Test(.hangLimit)
  func aPageKeepsTheLibrarysOwnIndexAndAPageMadeAgainFromItIsTheSame() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let library = scratch.path + "/library"
    let files = FileManager.default
    try files.createDirectory(atPath: library, withIntermediateDirectories: true)
    let other = DemoCommand.bundledLibrary.path + "/DCIM/100APPLE/IMG_0101.JPG"
    for name in ["a.jpg", "b.jpg"] {
      try files.copyItem(
        atPath: DemoCommand.bundledLibrary.path + "/IMG_0002.jpg", toPath: library + "/" + name)
    }
    try files.copyItem(atPath: other, toPath: library + "/c.jpg")
    func page(_ name: String, cache: String = "cache", _ extra: [String] = []) throws -> Data {
      let outcome = try run(
        demoExecutable,
        [library, "--format", "html", "--output", scratch.path + "/" + name, "--no-progress"]
          + extra,
        environment: ["XDG_CACHE_HOME": scratch.path + "/" + cache])
      #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
      #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
      return try #require(files.contents(atPath: scratch.path + "/" + name + "/index.html"))
    }
    let first = try page("first")
    let indexes = try files.contentsOfDirectory(atPath: scratch.path + "/cache/groupenumerator")
    #expect(indexes.count == 1 && indexes.first?.hasSuffix(".sqlite") == true, "\(indexes)")
    // b.jpg becomes another photo (other pixels, date and shape), an hour older.
    try files.removeItem(atPath: library + "/b.jpg")
    try files.copyItem(atPath: other, toPath: library + "/b.jpg")
    try files.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: library + "/b.jpg")
    let again = try page("again")
    let unindexed = try page("unindexed", ["--no-index"])
    #expect(again == unindexed)
    #expect(again != first)
    // The other photo's date, once on the first page (c.jpg), twice on the next.
    func dates(_ page: Data) -> Int {
      String(decoding: page, as: UTF8.self).components(separatedBy: "2020/03/03 08:00:00").count
        - 1
    }
    #expect(dates(first) == 1 && dates(again) == 2)
    _ = try page("elsewhere", cache: "other-cache", ["--no-index"])
    #expect(files.fileExists(atPath: scratch.path + "/other-cache/thumbnails/normal"))
    #expect(!files.fileExists(atPath: scratch.path + "/other-cache/groupenumerator"))
  }

  /// A later page checks each entry it links as the cache's rules say: an entry made
  /// stale (its file touched) or replaced by another file's is drawn again, and the page
  /// shows the new one; a valid entry is linked as it is.
  @Test(.hangLimit)
  func aStaleOrForeignEntryIsDrawnAgainByTheNextPage() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let library = scratch.path + "/library"
    try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
    for name in ["a.jpg", "b.jpg", "c.jpg"] {
      try FileManager.default.copyItem(
        atPath: DemoCommand.bundledLibrary.path + "/IMG_0002.jpg", toPath: library + "/" + name)
    }
    let environment = ["XDG_CACHE_HOME": scratch.path + "/cache"]
    func page(_ name: String) throws {
      let outcome = try run(
        demoExecutable,
        [library, "--format", "html", "--output", scratch.path + "/" + name, "--no-progress"],
        environment: environment)
      #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
    }
    /// Each file's picture in a folder (the cache's `normal/` or a page's `pictures/`),
    /// told by the URI its text names: its path, its inode and its bytes.
    func pictures(in folder: String) throws -> [String: (path: String, inode: ino_t, bytes: Data)] {
      var found: [String: (path: String, inode: ino_t, bytes: Data)] = [:]
      for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
        let path = folder + "/" + name
        let bytes = try #require(FileManager.default.contents(atPath: path))
        var status = stat()
        #expect(lstat(path, &status) == 0)
        for file in ["a.jpg", "b.jpg", "c.jpg"]
        where bytes.range(of: Data(("/library/" + file).utf8)) != nil {
          found[file] = (path, status.st_ino, bytes)
        }
      }
      return found
    }
    try page("first")
    let normal = scratch.path + "/cache/thumbnails/normal"
    let entries = try pictures(in: normal)
    #expect(Set(entries.keys) == ["a.jpg", "b.jpg", "c.jpg"])
    let first = try pictures(in: scratch.path + "/first/pictures")
    let (a, b, c) = (
      try #require(entries["a.jpg"]), try #require(entries["b.jpg"]),
      try #require(entries["c.jpg"])
    )
    // a.jpg touched: its entry is stale. c.jpg's entry replaced by b.jpg's (the same
    // pixels, another file's URI): foreign.
    var times = [
      timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0),
    ]
    #expect(utimensat(AT_FDCWD, library + "/a.jpg", &times, 0) == 0)
    try FileManager.default.removeItem(atPath: c.path)
    try b.bytes.write(to: URL(fileURLWithPath: c.path))
    try page("second")
    let second = try pictures(in: scratch.path + "/second/pictures")
    let redrawn = try pictures(in: normal)
    #expect(Set(second.keys) == ["a.jpg", "b.jpg", "c.jpg"])
    // b.jpg's valid entry is linked as it is, the same file as the first page's picture.
    #expect(second["b.jpg"]?.inode == b.inode && first["b.jpg"]?.inode == b.inode)
    // a.jpg's and c.jpg's were drawn again: new entries, each the page's picture, with
    // the file's own time and URI; neither is the entry that failed the check.
    for file in ["a.jpg", "c.jpg"] {
      let entry = try #require(redrawn[file])
      let shown = try #require(second[file])
      #expect(shown.inode == entry.inode && shown.bytes == entry.bytes, "\(file)")
      #expect(entry.inode != (file == "a.jpg" ? a.inode : c.inode), "\(file)")
    }
    #expect(
      String(decoding: try #require(second["a.jpg"]).bytes, as: UTF8.self).contains("1000000000"))
    #expect(!String(decoding: a.bytes, as: UTF8.self).contains("1000000000"))
  }

  /// The stored pictures are handed on while the library is read, each row written as
  /// soon as it and every row before have their pictures; a row after one whose entry is
  /// gone waits for the drawing. A page with every other entry removed is the warm page,
  /// byte for byte, and the entries removed are drawn and stored again.
  @Test(.hangLimit)
  func aPageWithSomeEntriesGoneIsTheWarmPageByteForByte() throws {
    let scratch = try TemporaryFolder("PageProcessTests")
    let environment = ["XDG_CACHE_HOME": scratch.path + "/cache"]
    func page(_ name: String) throws -> (html: Data, pictures: [String: Data]) {
      let outcome = try run(
        demoExecutable,
        ["--format", "html", "--output", scratch.path + "/" + name, "--no-progress"],
        environment: environment)
      #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
      let folder = scratch.path + "/" + name
      var pictures: [String: Data] = [:]
      for picture in try FileManager.default.contentsOfDirectory(atPath: folder + "/pictures") {
        pictures[picture] = FileManager.default.contents(atPath: folder + "/pictures/" + picture)
      }
      return (try #require(FileManager.default.contents(atPath: folder + "/index.html")), pictures)
    }
    _ = try page("first")
    let warm = try page("warm")
    let normal = scratch.path + "/cache/thumbnails/normal/"
    let entries = try FileManager.default.contentsOfDirectory(atPath: normal).sorted()
    #expect(entries.count >= 10)
    let removed = entries.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    for name in removed { try FileManager.default.removeItem(atPath: normal + name) }
    let again = try page("again")
    #expect(again.html == warm.html)
    #expect(again.pictures == warm.pictures)
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: normal)) == Set(entries))
  }

  @Test(.hangLimit)
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
    .hangLimit)
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
