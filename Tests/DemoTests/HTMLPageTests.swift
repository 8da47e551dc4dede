import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// `Demo --format html --output DIR` over `Fixtures/Library` and over temporary libraries
/// with hostile names (copies of a fixture JPEG, made in a temporary folder).
@MainActor
@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs Fixtures/Library"))
struct HTMLPageTests {
  @Test func aStoredPictureIsShownWithinTheSquareNeverEnlarged() {
    #expect(HTMLPage.fitted(width: 128, height: 96) == (80, 60))
    #expect(HTMLPage.fitted(width: 96, height: 128) == (60, 80))
    #expect(HTMLPage.fitted(width: 1024, height: 1) == (80, 1))
    #expect(HTMLPage.fitted(width: 64, height: 48) == (64, 48))
    #expect(HTMLPage.fitted(width: 81, height: 81) == (80, 80))
  }

  /// The `<img …>` tags of `page`: their `src`, `width` and `height`.
  private func images(in page: String) -> [(src: String, width: Int, height: Int)] {
    page.components(separatedBy: "<img ").dropFirst().compactMap { tag in
      let tag = String(tag.prefix { $0 != ">" })
      func value(_ name: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") ?? tag.range(of: "\(name)=\"") else {
          return nil
        }
        return String(tag[start.upperBound...].prefix { $0 != "\"" })
      }
      guard let src = value("src"), let width = value("width").flatMap({ Int($0) }),
        let height = value("height").flatMap({ Int($0) })
      else { return nil }
      return (src, width, height)
    }
  }

  /// The pixel size a JPEG's first SOFn or a PNG's IHDR gives, and whether it is a PNG.
  private func pictureSize(_ bytes: [UInt8]) -> (width: Int, height: Int, isPNG: Bool)? {
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), bytes.count >= 24 {
      func big(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
      return (big(16), big(20), true)
    }
    guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
    var offset = 2
    while offset + 9 < bytes.count {
      guard bytes[offset] == 0xFF else { return nil }
      let marker = bytes[offset + 1]
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
        let height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
        let width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
        return (width, height, false)
      }
      offset += 2 + length
    }
    return nil
  }

  @Test func thePageOfTheFixturesHasARowAndAPictureOrAReasonPerAsset() async throws {
    let scratch = try TemporaryFolder("HTMLPage-fixtures")
    let folder = scratch.root
    let output = folder.appendingPathComponent("page")
    let (status, stdout, errors) = await run(["--format", "html", "--output", output.path])
    #expect(status == 0)
    #expect(stdout.isEmpty)
    #expect(errors.isEmpty)
    let (_, json, _) = await run(["--format", "json"])
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    let page = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
    #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
    #expect(page.hasSuffix("</body>\n</html>\n"))
    #expect(page.components(separatedBy: "<tr class=\"asset\">").count - 1 == assets.count)
    let images = images(in: page)
    let placeholders = page.components(separatedBy: "class=\"placeholder\"").count - 1
    #expect(images.count + placeholders == assets.count)
    // Every asset but the cut-off and the empty JPEG has a picture (docs/Rendering.md).
    #expect(placeholders == 2)
    #expect(page.contains("the file is cut short"))
    for image in images {
      #expect(image.src.hasPrefix("pictures/"))
      let bytes = try [UInt8](Data(contentsOf: output.appendingPathComponent(image.src)))
      let size = try #require(pictureSize(bytes), "\(image.src)")
      #expect(image.src.hasSuffix(size.isPNG ? ".png" : ".jpg"))
      #expect(size.width == image.width && size.height == image.height, "\(image.src)")
      #expect((1...80).contains(size.width) && (1...80).contains(size.height))
      #expect(max(size.width, size.height) == 80, "aspect-fit: the longer side fills the box")
    }
    #expect(page.contains(" loading=\"lazy\">"))
    // A Live Photo's row names both files; the groups have their headings.
    #expect(page.contains("<td class=\"name\"><bdi>IMG_0200.HEIC</bdi>, <bdi>IMG_0200.MOV</bdi>"))
    #expect(page.contains("<h2><bdi>Camera Roll</bdi></h2>"))
    #expect(page.contains("<h2><bdi>Trips/Kyoto 2019</bdi></h2>"))
    #expect(!page.contains("<script"))
    // The table's date, size and length forms.
    #expect(page.contains("<td class=\"size\">"))
    #expect(
      page.range(
        of: #"<td class="taken">\d{4}/\d\d/\d\d \d\d:\d\d:\d\d</td>"#, options: .regularExpression)
        != nil)
    #expect(
      page.range(of: #"<td class="length">\d\d:\d\d</td>"#, options: .regularExpression) != nil)
    let marked = FileManager.default.fileExists(
      atPath: output.appendingPathComponent(PageFolder.markName).path)
    #expect(marked)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.path)
    #expect(Set(leftovers) == [PageFolder.markName, "index.html", "pictures"])
  }

  @Test func hostileNamesAreTextOnThePage() async throws {
    let scratch = try TemporaryFolder("HTMLPage-hostile")
    let folder = scratch.root
    let library = folder.appendingPathComponent("library")
    try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
    // `<script>alert(1)</script>.jpg` holds a slash, so it is a folder (an album) and a
    // file in it.
    try FileManager.default.createDirectory(
      at: library.appendingPathComponent("<script>alert(1)<"), withIntermediateDirectories: true)
    let names = [
      "<script>alert(1)<script>.jpg", "<script>alert(1)</script>.jpg", "a&b \"q\" 'x'.jpg",
      "photo\u{202E}gpj.exe.jpg", "<img src=x onerror=alert(2)>.jpg",
    ]
    for name in names {
      try FileManager.default.copyItem(
        at: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0002.jpg"),
        to: library.appendingPathComponent(name))
    }
    let output = folder.appendingPathComponent("page")
    let (status, _, errors) = await run([
      "--format", "html", "--output", output.path, library.path,
    ])
    #expect(status == 0)
    #expect(errors.isEmpty)
    let page = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
    #expect(page.components(separatedBy: "<tr class=\"asset\">").count - 1 == names.count)
    #expect(!page.contains("<script"))
    #expect(!page.contains("<img src=x"))
    #expect(!page.unicodeScalars.contains("\u{202E}"))
    #expect(page.contains("<bdi>&lt;script&gt;alert(1)&lt;script&gt;.jpg</bdi>"))
    #expect(page.contains("alt=\"&lt;script&gt;alert(1)&lt;script&gt;.jpg\""))
    #expect(page.contains("<h2><bdi>&lt;script&gt;alert(1)&lt;</bdi></h2>"))
    #expect(page.contains("<bdi>script&gt;.jpg</bdi>"))
    #expect(page.contains("<bdi>a&amp;b &quot;q&quot; &#39;x&#39;.jpg</bdi>"))
    #expect(page.contains("alt=\"a&amp;b &quot;q&quot; &#39;x&#39;.jpg\""))
    #expect(page.contains("<bdi>photo&lt;U+202E&gt;gpj.exe.jpg</bdi>"))
    #expect(images(in: page).count == names.count)
  }

  @Test func thePageIsInTheLanguageAsked() async throws {
    let scratch = try TemporaryFolder("HTMLPage-ja")
    let folder = scratch.root
    let output = folder.appendingPathComponent("page")
    let (status, _, _) = await run(["--format", "html", "--output", output.path, "--lang", "ja"])
    #expect(status == 0)
    let page = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
    #expect(page.contains("<html lang=\"ja\">"))
    #expect(page.contains("<title>写真とビデオ</title>"))
    #expect(page.contains("<h2><bdi>カメラロール</bdi></h2>"))
    #expect(page.contains("<th>サムネイル</th><th>ファイル名</th><th>撮影日時</th>"))
    #expect(page.contains("<td class=\"source\">EXIF 撮影日時</td>"))
    #expect(page.contains("aria-label=\"サムネイルなし\""))
    #expect(!page.contains("Camera Roll"))
  }

  @Test func theOutputFolderMustBeNewEmptyOrAnEarlierPageWithForce() async throws {
    let scratch = try TemporaryFolder("HTMLPage-folder")
    let folder = scratch.root
    let output = folder.appendingPathComponent("page")
    let arguments = ["--format", "html", "--output", output.path]
    #expect(await run(arguments).0 == 0)
    let index = output.appendingPathComponent("index.html")
    let first = try Data(contentsOf: index)

    let (again, _, refused) = await run(arguments)
    #expect(again == 1)
    #expect(
      refused
        == "Error: Cannot write the page to '\(output.path)': it holds a page written before;"
        + " add --force to replace it.\n")
    #expect(await run(arguments + ["--force"]).0 == 0)
    #expect(try Data(contentsOf: index) == first)

    // A file the user put there: --force does not empty the folder, and the file stays.
    let mine = output.appendingPathComponent("notes.txt")
    try Data("mine".utf8).write(to: mine)
    let (forced, _, foreign) = await run(arguments + ["--force"])
    #expect(forced == 1)
    #expect(foreign.contains("'notes.txt' in it was not made by 'Demo --format html'"))
    #expect(FileManager.default.fileExists(atPath: mine.path))
    #expect(FileManager.default.fileExists(atPath: index.path))

    // A non-empty folder that is not a page is refused with or without --force.
    let other = folder.appendingPathComponent("other")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    try Data("x".utf8).write(to: other.appendingPathComponent("a.txt"))
    let (plain, _, notEmpty) = await run(["--format", "html", "--output", other.path])
    #expect(plain == 1)
    #expect(notEmpty.contains("it is not empty; name a folder that does not exist or is empty"))
    #expect(await run(["--format", "html", "--output", other.path, "--force"]).0 == 1)

    // An empty folder is taken; a file, a link and a missing parent are refused.
    let empty = folder.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    #expect(await run(["--format", "html", "--output", empty.path]).0 == 0)
    let link = folder.appendingPathComponent("link")
    let target = folder.appendingPathComponent("target")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let (linked, _, linkError) = await run(["--format", "html", "--output", link.path])
    #expect(linked == 1)
    #expect(linkError.contains("it is a symbolic link"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    let missing = folder.appendingPathComponent("no/such/page")
    let (parentless, _, parentError) = await run([
      "--format", "html", "--output", missing.path, DemoCommand.bundledLibrary.path,
    ])
    #expect(parentless == 1)
    #expect(parentError.contains("the folder above it does not exist"))
  }

  @Test func thePageIsNeverWrittenInsideTheLibrary() async throws {
    let scratch = try TemporaryFolder("HTMLPage-inside")
    let folder = scratch.root
    let library = folder.appendingPathComponent("library")
    try FileManager.default.createDirectory(
      at: library.appendingPathComponent("album"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0002.jpg"),
      to: library.appendingPathComponent("album/a.jpg"))
    // Through a link to the library too: the real paths are compared.
    let link = folder.appendingPathComponent("link")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: library)
    for output in [
      library.appendingPathComponent("page").path, library.appendingPathComponent("album").path,
      library.path, link.appendingPathComponent("page").path,
    ] {
      let (status, _, errors) = await run(["--format", "html", "--output", output, library.path])
      #expect(status == 1, "\(output)")
      #expect(errors.contains("it is inside the library, which is never written to"), "\(output)")
    }
    let contents = try FileManager.default.subpathsOfDirectory(atPath: library.path)
    #expect(Set(contents) == ["album", "album/a.jpg"])
  }

  @Test func anEmptyLibraryHasAPageWithNoRows() async throws {
    let scratch = try TemporaryFolder("HTMLPage-empty")
    let folder = scratch.root
    let library = folder.appendingPathComponent("library")
    try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
    let output = folder.appendingPathComponent("page")
    let (status, _, errors) = await run(["--format", "html", "--output", output.path, library.path])
    #expect(status == 0)
    #expect(errors.isEmpty)
    let page = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
    #expect(!page.contains("<tr class=\"asset\">") && !page.contains("<section>"))
    #expect(page.contains("<p class=\"summary\">0 assets (0 photos, 0 videos)</p>"))
    #expect(
      try FileManager.default.contentsOfDirectory(
        atPath: output.appendingPathComponent("pictures").path
      ).isEmpty)
  }

  @Test func aLibraryThatCannotBeReadLeavesNoFolder() async throws {
    let scratch = try TemporaryFolder("HTMLPage-missing")
    let folder = scratch.root
    let output = folder.appendingPathComponent("page")
    let missing = folder.appendingPathComponent("no-library").path
    let (status, _, _) = await run(["--format", "html", "--output", output.path, missing])
    #expect(status == 1)
    #expect(!FileManager.default.fileExists(atPath: output.path))
  }

  @Test func textIsEscapedForElementsAndAttributes() {
    #expect(
      HTMLPage.escaped(#"<a href="x">&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
    )
    #expect(HTMLPage.escaped("plain") == "plain")
    // Characters of several bytes beside the five stay as they are.
    #expect(HTMLPage.escaped("京都<é>&📷'") == "京都&lt;é&gt;&amp;📷&#39;")
    #expect(HTMLPage.text("a\u{1B}[2Jb\u{202E}c") == "<bdi>a%1B[2Jb&lt;U+202E&gt;c</bdi>")
  }

  @Test func thePlaceLinkIsMadeOfTheNumbers() throws {
    let location = try #require(Location(latitude: 35.6895, longitude: -139.69171))
    #expect(
      HTMLPage.mapURL(location)
        == "https://www.openstreetmap.org/?mlat=35.68950&mlon=-139.69171"
        + "#map=16/35.68950/-139.69171")
  }

  @Test(arguments: [Language.english, .japanese])
  func aRowsCellsHoldTheNamesAndTheEscapedPlaceLink(_ language: Language) throws {
    let strings = Strings(language: language)
    let page = HTMLPage(strings: strings)
    let photo = try SampleAssets.photoWithGPS()
    let location = try #require(photo.location)
    let url = try #require(HTMLPage.mapURL(location))
    let cells = page.cells(
      photo, picture: .file(path: "pictures/000001.png", width: 80, height: 60))
    #expect(
      cells.hasPrefix(
        "<tr class=\"asset\">\n<td class=\"picture\"><img src=\"pictures/000001.png\" width=\"80\""
          + " height=\"60\" alt=\"IMG_0001.JPG\" loading=\"lazy\"></td>\n"
          + "<td class=\"name\"><bdi>IMG_0001.JPG</bdi></td>\n<td class=\"taken\">"))
    // The link's `&` is an entity, as escaping the whole URL makes it.
    #expect(
      cells.contains(
        "</td>\n<td class=\"place\"><a href=\"\(HTMLPage.escaped(url))\" title=\""
          + "\(HTMLPage.escaped(strings.mapLink))\" rel=\"noreferrer\">-33.85678, -151.21530</a>"
          + "</td>\n<td class=\"problems\">-</td>\n</tr>\n"))
    #expect(url.contains("&") && !HTMLPage.escaped(url).contains("&m"))
    // A Live Photo's names, each in its own <bdi>; a placeholder's reason in its cell.
    let live = try SampleAssets.livePhoto()
    let names = TableFormatter.fileNames(of: live)
    #expect(names.count == 2)
    let liveCells = page.cells(live, picture: .missing(reason: "a <b> reason"))
    #expect(
      liveCells.contains(
        "<td class=\"name\">" + names.map { "<bdi>\($0)</bdi>" }.joined(separator: ", ")
          + "</td>"))
    #expect(liveCells.contains("<span class=\"why\"><bdi>a &lt;b&gt; reason</bdi></span>"))
    #expect(
      page.cells(SampleAssets.photoWithoutGPS(), picture: .missing(reason: "r"))
        .contains("<td class=\"place\">-</td>"))
  }

  @Test func theFolderIsCheckedBeforeAnythingIsMade() throws {
    let scratch = try TemporaryFolder("HTMLPage-check")
    let folder = scratch.root
    let library = DemoCommand.bundledLibrary
    let new = folder.appendingPathComponent("page").path
    try PageFolder.check(new, replacing: false, library: library)
    #expect(!FileManager.default.fileExists(atPath: new))
    #expect(throws: PageFolder.Failure(reason: "the folder above it does not exist")) {
      try PageFolder.check(new + "/deeper", replacing: false, library: library)
    }
    #expect(
      throws: PageFolder.Failure(reason: "it is inside the library, which is never written to")
    ) {
      try PageFolder.check(library.path + "/page", replacing: false, library: library)
    }
    // A one-letter name in the working folder (Foundation's path helper trapped on it).
    try #require(!FileManager.default.fileExists(atPath: "q"))
    try PageFolder.check("q", replacing: false, library: library)
  }

  @Test func pictureNamesAreNumbered() {
    #expect(PageFolder.pictureName(number: 1, isPNG: false) == "000001.jpg")
    #expect(PageFolder.pictureName(number: 1_234_567, isPNG: true) == "1234567.png")
    #expect(PageFolder.isPictureName("000001.jpg"))
    #expect(PageFolder.isPictureName("1234567.png"))
    #expect(!PageFolder.isPictureName("00001.jpg"))
    #expect(!PageFolder.isPictureName("000001.jpg.txt"))
    #expect(!PageFolder.isPictureName("00000a.jpg"))
  }

  @Test func aStoredPictureIsLinkedOnTheSameFileSystemAndCopiedElsewhere() throws {
    let scratch = try TemporaryFolder("HTMLPage-hand-on")
    let folder = scratch.root
    let libraryFolder = try TemporaryFolder("HTMLPage-hand-on-library")
    let library = libraryFolder.root
    let bytes = try Sample.resources.bytes("Rendering/upright.png")
    let entry = StoredPicture(bytes: bytes, width: 96, height: 64)
    let page = try PageFolder.open(folder.path + "/page", replacing: false, library: library)
    // On the same file system: a hard link to the very file, with its mode.
    let source = folder.path + "/entry.png"
    #expect(FileManager.default.createFile(atPath: source, contents: Data(bytes)))
    #expect(chmod(source, 0o600) == 0)
    let descriptor = open(source, O_RDONLY | O_CLOEXEC)
    #expect(descriptor >= 0)
    defer { close(descriptor) }
    let linked = try page.handOn(entry, descriptor: descriptor, number: 1)
    #expect(linked == .file(path: "pictures/000001.png", width: 80, height: 53))
    var original = stat()
    var picture = stat()
    #expect(
      stat(source, &original) == 0 && stat(folder.path + "/page/pictures/000001.png", &picture) == 0
    )
    #expect(picture.st_ino == original.st_ino && picture.st_nlink == 2)
    // A descriptor that cannot be linked (here, not a file's: a pipe's end) is copied:
    // a new file, the page's mode, the same bytes.
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    defer { ends.forEach { close($0) } }
    let copied = try page.handOn(entry, descriptor: ends[0], number: 2)
    #expect(copied == .file(path: "pictures/000002.png", width: 80, height: 53))
    var copy = stat()
    #expect(stat(folder.path + "/page/pictures/000002.png", &copy) == 0)
    #expect(copy.st_ino != original.st_ino && copy.st_nlink == 1 && copy.st_mode & 0o777 == 0o644)
    #expect(
      FileManager.default.contents(atPath: folder.path + "/page/pictures/000002.png") == Data(bytes)
    )
    // A name taken is a failure, not a silent overwrite.
    #expect(throws: PageFolder.Failure.self) {
      try page.handOn(entry, descriptor: ends[0], number: 2)
    }
  }
}
