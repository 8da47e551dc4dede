import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// The picture cache (freedesktop.org thumbnail layout) on real files: copies of
/// `Fixtures/Library` photos in a temporary library, a temporary cache folder, never the
/// test runner's own `~/.cache`.
@Suite struct PictureCacheTests {
  /// A library of copied fixtures and a cache folder beside it, both temporary.
  final class Workspace {
    let library: TemporaryFolder
    let cache: TemporaryFolder
    var maximumBytes = 1 << 30

    init() throws {
      library = try TemporaryFolder()
      cache = try TemporaryFolder()
    }

    var assetsLibrary: AssetsLibrary {
      AssetsLibrary(
        root: library.root,
        options: LibraryOptions(
          pictureCache: .directory(cache.root, maximumBytes: maximumBytes)))
    }

    func asset(_ path: String) async throws -> Asset {
      let assets = try await assetsLibrary.enumerate().assets
      return try #require(assets.first { $0.resources.contains { $0.path.description == path } })
    }

    /// The URI the cache records for a file of the library (no byte of the test's names
    /// needs escaping).
    func uri(_ path: String) -> String {
      guard let resolved = realpath(library.path, nil) else { return "file://?" }
      defer { free(resolved) }
      return "file://" + String(cString: resolved) + "/" + path
    }

    /// The entry of the file at `path` in a size folder (`normal`, `large`, …) or in
    /// `fail/groupenumerator-VERSION`.
    func entryPath(_ path: String, in folder: String) -> String {
      cache.path + "/" + folder + "/" + MD5.hex(Array(uri(path).utf8)) + ".png"
    }
  }

  static let failFolder = "fail/groupenumerator-" + groupEnumeratorVersion

  func draw(
    _ library: AssetsLibrary, _ asset: Asset, _ side: Int, _ mode: ImageContentMode = .aspectFit
  ) async throws(ImageRequestError) -> AssetImage {
    try await library.image(
      for: asset, targetSize: CGSize(width: side, height: side), contentMode: mode)
  }

  func status(_ path: String) -> stat? {
    var result = stat()
    return lstat(path, &result) == 0 ? result : nil
  }

  func contents(_ path: String) throws -> ThumbnailPNG.Contents {
    try ThumbnailPNG.read(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  func setModificationTime(_ path: String, seconds: Int) {
    var times = [
      timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0),
    ]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  // MARK: Names

  @Test func anEmbeddedThumbnailThatCoversTheEntryMakesItAndTheStoredPictureIsHandedOn()
    async throws
  {
    let workspace = try Workspace()
    // 320 x 240 of blue with a 160 x 120 thumbnail of green.
    try FileManager.default.copyItem(
      at: ImageRenderingTests.folder.appendingPathComponent("embedded-cover.jpg"),
      to: workspace.library.root.appendingPathComponent("cover.jpg"))
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("cover.jpg")
    let high = ImageRequestOptions(deliveryMode: .highQualityFormat)
    #expect(await library.storedPicture(for: asset, fitting: 80) == nil)
    let first = try await library.image(
      for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit,
      options: high)
    // The entry was made from the thumbnail, not by decoding the image.
    #expect(first.source == .embeddedThumbnail)
    #expect((first.pixelWidth, first.pixelHeight) == (80, 60))
    let entry = workspace.entryPath("cover.jpg", in: "normal")
    let contents = try self.contents(entry)
    #expect((contents.width, contents.height) == (128, 96))
    let again = try await library.image(
      for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit,
      options: high)
    #expect(again.source == .thumbnailCache && again.data == first.data)
    // Handed on as stored: the entry's bytes, not decoded.
    let stored = try #require(await library.storedPicture(for: asset, fitting: 80))
    #expect(stored.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: entry))))
    #expect((stored.width, stored.height) == (128, 96))
    // No picture cache, nothing stored.
    let uncached = AssetsLibrary(
      root: workspace.library.root, options: LibraryOptions(pictureCache: .none))
    #expect(await uncached.storedPicture(for: asset, fitting: 80) == nil)
  }

  @Test func md5GivesRFC1321sKnownAnswers() {
    let answers = [
      "": "d41d8cd98f00b204e9800998ecf8427e",
      "a": "0cc175b9c0f1b6a831c399e269772661",
      "abc": "900150983cd24fb0d6963f7d28e17f72",
      "message digest": "f96b697d7cb7938d525a2f31aaf161d0",
      "abcdefghijklmnopqrstuvwxyz": "c3fcd3d76192e4007dfb496cca67e13b",
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789":
        "d174ab98d277d9f5a5611c2c9f419d9f",
      String(repeating: "1234567890", count: 8): "57edf4a22be3c955ac49da2e2107b67a",
      // The thumbnail standard's own example name.
      "file:///home/jens/photos/me.png": "c6ee772d9e49320e97ec29a7eb5b1697",
    ]
    for (message, digest) in answers {
      #expect(MD5.hex(Array(message.utf8)) == digest, "\(message)")
    }
    // Lengths around the 56-byte padding edge and past one block.
    let lengths = [55, 56, 63, 64, 65, 1000]
    let digests = Set(lengths.map { MD5.hex([UInt8](repeating: 0x61, count: $0)) })
    #expect(digests.count == lengths.count)
    #expect(
      MD5.hex([UInt8](repeating: 0x61, count: 1000)) == "cabe45dcc9ae5b66ba86600cca6b8ba8")
  }

  @Test func pathsAreEscapedAsGLibEscapesThem() {
    // The answers of GLib's g_filename_to_uri (glib 2.74, Debian 12), which GNOME Files
    // hashes: what it leaves and what it escapes.
    var kept: [UInt8] = []
    for byte in UInt8(1)...UInt8(255) where byte != UInt8(ascii: "/") {
      if PictureCache.escaped([byte]).utf8.count == 1 { kept.append(byte) }
    }
    #expect(
      String(decoding: kept, as: UTF8.self)
        == "!$&'()*+,-.0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
    #expect(
      PictureCache.escaped(Array("/tmp/a b/é;#?%[x].jpg".utf8))
        == "/tmp/a%20b/%C3%A9%3B%23%3F%25%5Bx%5D.jpg")
    #expect(PictureCache.escaped([0x2F, 0xFF, 0x0A]) == "/%FF%0A")
  }

  // MARK: The PNG chunks

  /// A PNG libvips encodes from a fixture.
  func fixturePNG(side: Int = 64) throws -> [UInt8] {
    let bytes = Array(try Data(contentsOf: Sample.library.appendingPathComponent("IMG_0002.jpg")))
    let picture = try ImageRenderer.draw(
      encoded: bytes,
      ImageRenderer.Request(
        width: side, height: side, contentMode: .aspectFit, orientation: nil, encoding: .png,
        jpegQuality: 85))
    return Array(picture.data)
  }

  @Test func textChunksAreAddedAndReadBack() throws {
    let png = try fixturePNG()
    let written = try #require(
      ThumbnailPNG.inserting(
        text: [("Thumb::URI", "file:///a/b%20c.jpg"), ("Thumb::MTime", "1234567890")], into: png))
    let read = try ThumbnailPNG.read(written)
    #expect(read.width == 64 && read.height == 48)
    #expect(read.text["Thumb::URI"] == "file:///a/b%20c.jpg")
    #expect(read.text["Thumb::MTime"] == "1234567890")
    // libvips still decodes it.
    #expect(try ImageRenderer.decodeRGB(written).width == 64)
    // A key that is not 1…79 bytes is refused.
    #expect(ThumbnailPNG.inserting(text: [("", "x")], into: png) == nil)
    #expect(
      ThumbnailPNG.inserting(text: [(String(repeating: "k", count: 80), "x")], into: png) == nil)
  }

  @Test func malformedPNGsAreCorrupt() throws {
    let png = try fixturePNG()
    func reason(_ bytes: [UInt8]) -> String? {
      do throws(ThumbnailPNG.Corrupt) {
        _ = try ThumbnailPNG.read(bytes)
        return nil
      } catch {
        return error.reason
      }
    }
    #expect(reason(png) == nil)
    #expect(reason([]) != nil)
    #expect(reason(Array(png.prefix(png.count - 12))) != nil, "no IEND")
    var flipped = png
    flipped[png.count / 2] ^= 0x01
    #expect(reason(flipped)?.contains("CRC") == true)
    // Lengths that overflow or pass the end.
    for length: [UInt8] in [
      [0xFF, 0xFF, 0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xF0],
    ] {
      var bad = Array(png.prefix(33))
      bad += length + Array("tEXt".utf8) + [UInt8](repeating: 0, count: 8)
      #expect(reason(bad)?.contains("past the end") == true)
    }
  }

  @Test func aMillionTinyChunksAreCorruptAfterABoundedCount() throws {
    let png = try fixturePNG()
    // A zero-length private chunk with its right CRC, a million times.
    let body = Array("prVt".utf8)
    let crc = CRC32.checksum(body)
    let chunk = [0, 0, 0, 0] + body + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
    var flood = Array(png.prefix(33))
    flood.reserveCapacity(33 + chunk.count * 1_000_000 + 12)
    for _ in 0..<1_000_000 { flood += chunk }
    flood += Array(png.suffix(12))
    #expect(throws: ThumbnailPNG.Corrupt(reason: "it has more than 4096 chunks")) {
      try ThumbnailPNG.read(flood)
    }
    // The same few chunks are fine.
    let few = Array(png.prefix(33)) + chunk + chunk + Array(png.suffix(from: 33))
    #expect(try ThumbnailPNG.read(few).width == 64)
  }

  // MARK: Entries

  @Test func aMissWritesAnEntryAndTheNextRequestReadsIt() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    let first = try await draw(library, asset, 80)
    #expect(first.source == .decodedImage)
    #expect(first.pixelWidth == 80 && first.pixelHeight == 60)
    // 80 × 80 is drawn from the 128-pixel entry, which holds the picture fitted in 128.
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    let written = try #require(status(path))
    #expect(written.st_mode & 0o777 == 0o600)
    #expect(status(workspace.cache.path + "/normal")!.st_mode & 0o777 == 0o700)
    let entry = try contents(path)
    #expect(entry.width == 128 && entry.height == 96)
    #expect(entry.text["Thumb::URI"] == workspace.uri("IMG_0002.jpg"))
    let file = try #require(status(workspace.library.path + "/IMG_0002.jpg"))
    #expect(entry.text["Thumb::MTime"] == String(file.st_mtim.tv_sec))
    #expect(entry.text["Thumb::Size"] == "1099")
    // No other size, no temporary file left.
    for folder in ["large", "x-large", "xx-large"] {
      #expect(status(workspace.entryPath("IMG_0002.jpg", in: folder)) == nil)
    }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: workspace.cache.path + "/normal").count
        == 1)

    let second = try await draw(library, asset, 80)
    #expect(second.source == .thumbnailCache)
    #expect(second.data == first.data)
    let after = try #require(status(path))
    #expect(after.st_ino == written.st_ino)
    #expect(after.st_mtim.tv_sec == written.st_mtim.tv_sec)
    #expect(after.st_mtim.tv_nsec == written.st_mtim.tv_nsec)
  }

  @Test func aChangedPhotoIsDrawnAgain() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    _ = try await draw(library, asset, 80)
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    let before = try #require(status(path))
    // The copy (never the fixture) gets another modification time.
    setModificationTime(workspace.library.path + "/IMG_0002.jpg", seconds: 1_000_000_000)
    let redrawn = try await draw(library, asset, 80)
    #expect(redrawn.source == .decodedImage)
    let after = try #require(status(path))
    #expect(after.st_ino != before.st_ino)
    #expect(try contents(path).text["Thumb::MTime"] == "1000000000")
    #expect(try await draw(library, asset, 80).source == .thumbnailCache)
  }

  @Test func corruptAndForeignEntriesAreDrawnAgainAndReplaced() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    let first = try await draw(library, asset, 80)
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))

    // A byte flipped inside the picture data: the CRC fails.
    var damaged = good
    damaged[good.count - 30] ^= 0x40
    try Data(damaged).write(to: URL(fileURLWithPath: path))
    let afterDamage = try await draw(library, asset, 80)
    #expect(afterDamage.source == .decodedImage)
    #expect(afterDamage.data == first.data)
    #expect(try contents(path).width == 128)

    // Cut short, and garbage.
    for bytes in [Array(good.prefix(100)), [UInt8](repeating: 0x41, count: 500)] {
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(try await draw(library, asset, 80).source == .decodedImage)
      #expect(try contents(path).width == 128)
    }

    // An entry larger than its folder allows (the standard's 128 for `normal/`), with
    // the right keys: not used, not even decoded.
    let file = try #require(status(workspace.library.path + "/IMG_0002.jpg"))
    let oversized = try #require(
      ThumbnailPNG.inserting(
        text: [
          ("Thumb::URI", workspace.uri("IMG_0002.jpg")),
          ("Thumb::MTime", String(file.st_mtim.tv_sec)),
        ], into: try fixturePNG(side: 160)))
    #expect(try ThumbnailPNG.read(oversized).width == 160)
    try Data(oversized).write(to: URL(fileURLWithPath: path))
    #expect(try await draw(library, asset, 80).source == .decodedImage)
    #expect(try contents(path).width == 128)

    // Another file's entry under this name (a collision, or a renamed file's): right
    // size, right time, only the URI differs.
    let foreign = try #require(
      ThumbnailPNG.inserting(
        text: [
          ("Thumb::URI", workspace.uri("other.jpg")),
          ("Thumb::MTime", String(file.st_mtim.tv_sec)),
        ], into: try fixturePNG(side: 128)))
    try Data(foreign).write(to: URL(fileURLWithPath: path))
    let afterForeign = try await draw(library, asset, 80)
    #expect(afterForeign.source == .decodedImage)
    #expect(try contents(path).text["Thumb::URI"] == workspace.uri("IMG_0002.jpg"))
    #expect(try await draw(library, asset, 80).source == .thumbnailCache)
  }

  @Test func anEntryHandedOnAsStoredIsCheckedAllButItsImageDataCRCs() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    _ = try await draw(library, asset, 80)
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let reader = try #require(StoredPictureReader(library: library))
    #expect(reader.picture(for: asset, fitting: 80)?.bytes == good)
    // The descriptor handed over is the entry's file, open.
    let inode = reader.withPicture(for: asset, fitting: 80) { _, descriptor in
      var opened = stat()
      #expect(fstat(descriptor, &opened) == 0)
      return opened.st_ino
    }
    #expect(inode == status(path)?.st_ino)

    // A byte flipped inside the image data: handed on (a browser checks the deflate
    // stream), but never drawn from: the next picture drawn redraws and replaces it.
    var damaged = good
    damaged[good.count - 30] ^= 0x40
    #expect(throws: ThumbnailPNG.Corrupt.self) { try ThumbnailPNG.read(damaged) }
    #expect(try ThumbnailPNG.read(damaged, checksImageData: false).width == 128)
    try Data(damaged).write(to: URL(fileURLWithPath: path))
    #expect(reader.picture(for: asset, fitting: 80)?.bytes == damaged)
    #expect(try await draw(library, asset, 80).source == .decodedImage)
    #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == good)

    // A flipped bit in the text (the URI), an entry cut short, another file's entry, a
    // stale one: none is handed on.
    let uri = try #require(
      good.indices.first { good[$0...].starts(with: Array("Thumb::URI".utf8)) })
    var renamed = good
    renamed[uri + 20] ^= 0x01
    for bytes in [renamed, Array(good.prefix(good.count - 12)), Array(good.prefix(60))] {
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(reader.picture(for: asset, fitting: 80) == nil)
    }
    try Data(good).write(to: URL(fileURLWithPath: path))
    #expect(reader.picture(for: asset, fitting: 80) != nil)
    setModificationTime(workspace.library.path + "/IMG_0002.jpg", seconds: 1_000_000_000)
    #expect(reader.picture(for: asset, fitting: 80) == nil)
    #expect(await library.storedPicture(for: asset, fitting: 80) == nil)
  }

  /// Files looked up one after another through one `Folders` (the page's way: each
  /// file examined relative to its folder, opened once) get what they get one by one:
  /// their valid entries, and nothing for a stale entry, a file turned into a symbolic
  /// link, or a folder reached through one.
  @Test func lookupsThroughTheirFolderCheckAsOneByOne() async throws {
    let workspace = try Workspace()
    for path in ["IMG_0002.jpg", "Album/IMG_0002.jpg", "Album/b.jpg", "Other/c.jpg"] {
      try workspace.library.add("IMG_0002.jpg", as: path)
    }
    let library = workspace.assetsLibrary
    var assets: [String: Asset] = [:]
    for path in ["IMG_0002.jpg", "Album/IMG_0002.jpg", "Album/b.jpg", "Other/c.jpg"] {
      let asset = try await workspace.asset(path)
      _ = try await draw(library, asset, 80)
      assets[path] = asset
    }
    let reader = try #require(StoredPictureReader(library: library))
    func lookUp(_ paths: [String]) throws -> [[UInt8]?] {
      let folders = reader.folderCursor()
      return try paths.map { path in
        let asset = try #require(assets[path])
        return reader.withPicture(for: asset, fitting: 80, folders: folders) { picture, _ in
          picture.bytes
        }
      }
    }
    let order = ["Album/IMG_0002.jpg", "Album/b.jpg", "IMG_0002.jpg", "Other/c.jpg", "Album/b.jpg"]
    let oneByOne = try order.map { path in
      reader.picture(for: try #require(assets[path]), fitting: 80)?.bytes
    }
    #expect(oneByOne.allSatisfy { $0 != nil })
    #expect(try lookUp(order) == oneByOne)

    setModificationTime(workspace.library.path + "/Album/b.jpg", seconds: 1_000_000_000)
    #expect(try lookUp(["Album/IMG_0002.jpg", "Album/b.jpg"]).map { $0 != nil } == [true, false])

    // The file replaced by a link to another file of the library with a valid entry.
    let root = workspace.library.path
    try FileManager.default.removeItem(atPath: root + "/Album/IMG_0002.jpg")
    try FileManager.default.createSymbolicLink(
      atPath: root + "/Album/IMG_0002.jpg", withDestinationPath: root + "/IMG_0002.jpg")
    #expect(try lookUp(["IMG_0002.jpg", "Album/IMG_0002.jpg"]).map { $0 != nil } == [true, false])

    // The folder replaced by a link to a folder holding the same file, same time.
    try FileManager.default.moveItem(atPath: root + "/Other", toPath: root + "/Moved")
    try FileManager.default.createSymbolicLink(
      atPath: root + "/Other", withDestinationPath: root + "/Moved")
    #expect(try lookUp(["Other/c.jpg"]) == [nil])
    #expect(reader.picture(for: try #require(assets["Other/c.jpg"]), fitting: 80) == nil)
  }

  /// The page's way: an entry linked by its name from its size folder, then checked
  /// through the new name; what fails the check is unlinked and never shown, and the key
  /// is the listing's status of the file.
  @Test func anEntryLinkedByItsNameIsCheckedThroughItsNewName() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    let reader = try #require(StoredPictureReader(library: library))
    let pictures = try TemporaryFolder("PictureCache-linked")
    let target = open(pictures.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    #expect(target >= 0)
    defer { close(target) }
    func link(
      _ asset: Asset, _ name: String, side: Int = 80,
      accepting: (Int, Int) -> Bool = { _, _ in true }
    ) -> StoredPictureReader.Linked {
      reader.linkPicture(
        for: asset, fitting: side, into: target, named: name, folders: reader.entryFolders(),
        accepting: accepting)
    }
    func names() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: pictures.path).sorted()
    }

    // A miss: no entry, nothing made.
    #expect(link(asset, "miss.png") == .none)
    #expect(try names().isEmpty)

    _ = try await draw(library, asset, 80)
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(link(asset, "hit.png") == .linked(width: 128, height: 96))
    let entry = try #require(status(path))
    let linked = try #require(status(pictures.path + "/hit.png"))
    #expect(linked.st_ino == entry.st_ino && linked.st_nlink == 2)
    // The name taken: not linked over it (the caller's copy then fails as it should).
    #expect(link(asset, "hit.png") == .notLinked)
    // Refused by the caller (the first page's size check): unlinked.
    #expect(link(asset, "refused.png", accepting: { _, _ in false }) == .none)
    #expect(try names() == ["hit.png"])

    // Damaged image data alone: linked, as every entry handed on undecoded is.
    var damaged = good
    damaged[good.count - 30] ^= 0x40
    try Data(damaged).write(to: URL(fileURLWithPath: path))
    #expect(link(asset, "damaged.png") == .linked(width: 128, height: 96))

    // Another file's entry, a flipped bit in the URI, cut short, garbage, larger than its
    // folder allows, a symbolic link to a valid entry, a FIFO: unlinked, never shown.
    let file = try #require(status(workspace.library.path + "/IMG_0002.jpg"))
    let foreign = try #require(
      ThumbnailPNG.inserting(
        text: [
          ("Thumb::URI", workspace.uri("other.jpg")),
          ("Thumb::MTime", String(file.st_mtim.tv_sec)),
        ], into: try fixturePNG(side: 128)))
    let oversized = try #require(
      ThumbnailPNG.inserting(
        text: [
          ("Thumb::URI", workspace.uri("IMG_0002.jpg")),
          ("Thumb::MTime", String(file.st_mtim.tv_sec)),
        ], into: try fixturePNG(side: 160)))
    let uri = try #require(
      good.indices.first { good[$0...].starts(with: Array("Thumb::URI".utf8)) })
    var renamed = good
    renamed[uri + 20] ^= 0x01
    for (number, bytes) in [
      foreign, renamed, Array(good.prefix(good.count - 12)), Array(good.prefix(60)),
      [UInt8](repeating: 0x41, count: 500), oversized,
    ].enumerated() {
      try FileManager.default.removeItem(atPath: path)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(link(asset, "bad-\(number).png") == .none, "\(number)")
    }
    let valid = workspace.cache.path + "/valid.png"
    try Data(good).write(to: URL(fileURLWithPath: valid))
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: valid)
    #expect(link(asset, "symlink.png") == .none)
    try FileManager.default.removeItem(atPath: path)
    #expect(mkfifo(path, 0o600) == 0)
    #expect(link(asset, "fifo.png") == .none)
    #expect(try names() == ["damaged.png", "hit.png"])

    // No `normal` entry: the next size that covers the box (a 256 entry, never enlarged
    // past the photo's 160 × 120).
    try FileManager.default.removeItem(atPath: path)
    _ = try await draw(library, asset, 120, .aspectFill)
    #expect(link(asset, "large.png") == .linked(width: 160, height: 120))
    let large = try #require(status(workspace.entryPath("IMG_0002.jpg", in: "large")))
    #expect(status(pictures.path + "/large.png")?.st_ino == large.st_ino)

    // Stale: the file touched and listed again, its entries are not linked; then drawn
    // again, linked.
    setModificationTime(workspace.library.path + "/IMG_0002.jpg", seconds: 1_000_000_000)
    let touched = try await workspace.asset("IMG_0002.jpg")
    #expect(link(touched, "stale.png") == .none)
    #expect(status(pictures.path + "/stale.png") == nil)
    // The asset of the earlier listing still names the file as it was then: its entry
    // is valid for that listing (the key is the listing's, not read again).
    #expect(link(asset, "listed.png") == .linked(width: 160, height: 120))
    _ = try await draw(library, touched, 80)
    #expect(link(touched, "redrawn.png") == .linked(width: 128, height: 96))
    #expect(try contents(pictures.path + "/redrawn.png").text["Thumb::MTime"] == "1000000000")
  }

  /// `png` with a chunk of `type` holding `data` put before its last chunk (`IEND`).
  func insertingBeforeEnd(_ type: String, _ data: [UInt8], into png: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in body {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    func big(_ value: UInt32) -> [UInt8] {
      [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }
    return Array(png.dropLast(12)) + big(UInt32(data.count)) + body + big(crc) + png.suffix(12)
  }

  /// An entry over 16 KiB is checked from its first 4 KiB and its last 12 bytes when
  /// linked: its header and text chunks (CRCs included) and its `IEND`; read whole when
  /// its keys come after the image data.
  @Test func aLargeEntryLinkedIsCheckedFromItsHeadAndItsEnd() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    _ = try await draw(library, asset, 80)
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(good.count <= PictureCache.wholeReadLimit)
    let reader = try #require(StoredPictureReader(library: library))
    let pictures = try TemporaryFolder("PictureCache-large")
    let target = open(pictures.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    #expect(target >= 0)
    defer { close(target) }
    var count = 0
    func link(_ bytes: [UInt8]) throws -> StoredPictureReader.Linked {
      try FileManager.default.removeItem(atPath: path)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      count += 1
      return reader.linkPicture(
        for: asset, fitting: 80, into: target, named: "\(count).png",
        folders: reader.entryFolders())
    }
    // 20 KiB of comment after the image data: the head and the end are read.
    let comment = Array("Comment".utf8) + [0] + [UInt8](repeating: 0x61, count: 20 << 10)
    let large = insertingBeforeEnd("tEXt", comment, into: good)
    #expect(large.count > PictureCache.wholeReadLimit)
    #expect(try ThumbnailPNG.read(large).width == 128)
    #expect(try link(large) == .linked(width: 128, height: 96))
    // Cut short (no IEND at its end), a flipped bit in its URI, a stale time: not linked.
    #expect(try link(Array(large.dropLast(12))) == .none)
    #expect(try link(Array(large.dropLast(1))) == .none)
    let uri = try #require(
      large.indices.first { large[$0...].starts(with: Array("Thumb::URI".utf8)) })
    var renamed = large
    renamed[uri + 20] ^= 0x01
    #expect(try link(renamed) == .none)
    // A damaged length after the image data is not read: linked, as damaged image data
    // is (the browser decodes it; the next picture drawn from it redraws it).
    var damaged = large
    damaged[good.count - 12] ^= 0x01
    #expect(throws: ThumbnailPNG.Corrupt.self) { try ThumbnailPNG.read(damaged) }
    #expect(try link(damaged) == .linked(width: 128, height: 96))
    // Keys after the image data (the standard allows them anywhere): read whole.
    let file = try #require(status(workspace.library.path + "/IMG_0002.jpg"))
    var late = insertingBeforeEnd(
      "tEXt", Array("Thumb::URI".utf8) + [0] + Array(workspace.uri("IMG_0002.jpg").utf8),
      into: try fixturePNG(side: 128))
    late = insertingBeforeEnd(
      "tEXt", Array("Thumb::MTime".utf8) + [0] + Array(String(file.st_mtim.tv_sec).utf8),
      into: late)
    late = insertingBeforeEnd("tEXt", comment, into: late)
    #expect(late.count > PictureCache.wholeReadLimit)
    #expect(try link(late) == .linked(width: 128, height: 96))
    var lateStale = late
    let time = try #require(
      lateStale.indices.first { lateStale[$0...].starts(with: Array("Thumb::MTime".utf8)) })
    lateStale[time + 13] = lateStale[time + 13] == 0x31 ? 0x32 : 0x31
    #expect(try link(lateStale) == .none)
    let left = try FileManager.default.contentsOfDirectory(atPath: pictures.path).sorted()
    #expect(left == ["1.png", "5.png", "6.png"])
  }

  /// A folder on another file system than the cache's (here a tmpfs) cannot take a hard
  /// link: the entry is not linked and nothing is left, so the caller reads it and copies
  /// its bytes.
  @Test(
    .enabled(
      if: PictureCacheTests.isOtherFileSystem("/dev/shm"),
      "needs a writable /dev/shm on another file system than the temporary folder"))
  func anEntryOnAnotherFileSystemIsNotLinked() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    _ = try await draw(library, asset, 80)
    let reader = try #require(StoredPictureReader(library: library))
    let other = "/dev/shm/PictureCacheTests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    #expect(mkdir(other, 0o700) == 0)
    defer { try? FileManager.default.removeItem(atPath: other) }
    let target = open(other, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    #expect(target >= 0)
    defer { close(target) }
    let linked = reader.linkPicture(
      for: asset, fitting: 80, into: target, named: "000001.png", folders: reader.entryFolders())
    #expect(linked == .notLinked)
    #expect(try FileManager.default.contentsOfDirectory(atPath: other).isEmpty)
    // The same entry is there to be read and copied.
    #expect(reader.picture(for: asset, fitting: 80) != nil)
  }

  /// Whether `path` is a writable folder on another device than the temporary folder.
  static func isOtherFileSystem(_ path: String) -> Bool {
    var folder = stat()
    var temporary = stat()
    return stat(path, &folder) == 0 && folder.st_mode & S_IFMT == S_IFDIR
      && stat(NSTemporaryDirectory(), &temporary) == 0 && folder.st_dev != temporary.st_dev
      && access(path, W_OK) == 0
  }

  @Test func anEntryAFileManagerWroteIsReused() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    // Written by the standard's rules, as a file manager writes it: another picture
    // (Resources/Rendering/upright.png, 96 × 64) with only the two required keys, in
    // `normal/`, named after the MD5 of the URI.
    let upright = Array(
      try Data(contentsOf: ImageRenderingTests.folder.appendingPathComponent("upright.png")))
    let file = try #require(status(workspace.library.path + "/IMG_0002.jpg"))
    let entry = try #require(
      ThumbnailPNG.inserting(
        text: [
          ("Thumb::URI", workspace.uri("IMG_0002.jpg")),
          ("Thumb::MTime", String(file.st_mtim.tv_sec)),
        ], into: upright))
    let path = workspace.entryPath("IMG_0002.jpg", in: "normal")
    try FileManager.default.createDirectory(
      atPath: workspace.cache.path + "/normal", withIntermediateDirectories: true)
    try Data(entry).write(to: URL(fileURLWithPath: path))
    let before = try #require(status(path))

    // 48 × 48 is covered by the 96 × 64 entry without enlarging it (the fixture is
    // 160 × 120, so the picture shows the file manager's 3:2 shape).
    let picture = try await draw(library, asset, 48)
    #expect(picture.source == .thumbnailCache)
    #expect(picture.pixelWidth == 48 && picture.pixelHeight == 32)
    // Its pixels are the file manager's picture, not the fixture's.
    let drawn = try ImageRenderer.decodeRGB(Array(picture.data))
    let expected = try ImageRenderer.decodeRGB(
      Array(
        try ImageRenderer.draw(
          encoded: upright,
          ImageRenderer.Request(
            width: 48, height: 48, contentMode: .aspectFit, orientation: 1, encoding: .jpeg,
            jpegQuality: 85)
        ).data))
    #expect(drawn.pixels.count == expected.pixels.count)
    var total = 0
    for index in drawn.pixels.indices {
      total += abs(Int(drawn.pixels[index]) - Int(expected.pixels[index]))
    }
    #expect(Double(total) / Double(drawn.pixels.count) < 4)
    #expect(status(path)?.st_ino == before.st_ino)
    // A box the 96 × 64 entry does not cover is drawn from the file, into `normal/`.
    #expect(try await draw(library, asset, 120).source == .decodedImage)
    #expect(try contents(path).width == 128)
  }

  @Test func fitAndFillUseTheSmallestSizeThatCovers() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0002.jpg")
    // 160 × 120: fitted in 120 × 120 it is 120 × 90 (the 128 entry covers it); filling
    // 120 × 120 needs 160 × 120 (all of it: the 256 entry, never enlarged).
    #expect(AssetsLibrary.neededSide(asset, (120, 120), .aspectFit) == 120)
    #expect(AssetsLibrary.neededSide(asset, (120, 120), .aspectFill) == 160)
    _ = try await draw(library, asset, 120, .aspectFit)
    #expect(status(workspace.entryPath("IMG_0002.jpg", in: "normal")) != nil)
    #expect(status(workspace.entryPath("IMG_0002.jpg", in: "large")) == nil)
    let filled = try await draw(library, asset, 120, .aspectFill)
    #expect(filled.pixelWidth == 120 && filled.pixelHeight == 120)
    let large = try contents(workspace.entryPath("IMG_0002.jpg", in: "large"))
    #expect(large.width == 160 && large.height == 120)
    // A fit request then takes the smallest valid entry that covers it.
    #expect(try await draw(library, asset, 100, .aspectFit).source == .thumbnailCache)
    #expect(try await draw(library, asset, 140, .aspectFill).source == .thumbnailCache)
    #expect(PictureCache.Size.smallest(atLeast: 1025) == nil)
  }

  @Test func anUndrawableFileGetsAFailureEntry() async throws {
    let workspace = try Workspace()
    try workspace.library.add("Broken/broken.jpg", as: "broken.jpg")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("broken.jpg")
    var first: ImageRequestError?
    do throws(ImageRequestError) {
      _ = try await draw(library, asset, 80)
    } catch {
      first = error
    }
    guard case .undecodable(let name, _) = first else {
      Issue.record("expected undecodable, got \(String(describing: first))")
      return
    }
    #expect(name == "broken.jpg")
    let path = workspace.entryPath("broken.jpg", in: Self.failFolder)
    #expect(status(path)!.st_mode & 0o777 == 0o600)
    let recorded = try contents(path)
    #expect(recorded.text["Thumb::URI"] == workspace.uri("broken.jpg"))
    #expect(recorded.text[PictureCache.failureKindKey] == "undecodable")
    // The next request gives back what the entry records, without drawing: a reason
    // written into the entry comes back.
    let edited = try #require(
      ThumbnailPNG.inserting(
        text: [
          ("Thumb::URI", recorded.text["Thumb::URI"]!),
          ("Thumb::MTime", recorded.text["Thumb::MTime"]!),
          (PictureCache.failureKindKey, "undecodable"),
          (PictureCache.failureReasonKey, "recorded before"),
        ], into: PictureCache.onePixelPNG))
    try Data(edited).write(to: URL(fileURLWithPath: path))
    do throws(ImageRequestError) {
      _ = try await draw(library, asset, 80)
      Issue.record("drawn")
    } catch {
      #expect(error == .undecodable(name: "broken.jpg", reason: "recorded before"))
    }
    // Once the file changes, it is tried again (and fails again, for its own reason).
    setModificationTime(workspace.library.path + "/broken.jpg", seconds: 1_000_000_000)
    do throws(ImageRequestError) {
      _ = try await draw(library, asset, 80)
      Issue.record("drawn")
    } catch {
      #expect(error == first)
    }
  }

  @Test func aLivePhotoIsCachedUnderItsStill() async throws {
    let workspace = try Workspace()
    try workspace.library.add("DCIM/100APPLE/IMG_0200.HEIC", as: "IMG_0200.HEIC")
    try workspace.library.add("DCIM/100APPLE/IMG_0200.MOV", as: "IMG_0200.MOV")
    let library = workspace.assetsLibrary
    let asset = try await workspace.asset("IMG_0200.HEIC")
    #expect(asset.type == .livePhoto)
    _ = try await draw(library, asset, 40)
    #expect(status(workspace.entryPath("IMG_0200.HEIC", in: "normal")) != nil)
    #expect(status(workspace.entryPath("IMG_0200.MOV", in: "normal")) == nil)
    #expect(try await draw(library, asset, 40).source == .thumbnailCache)
  }

  @Test func aCacheInsideTheLibraryIsNeverWritten() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let inside = workspace.library.root.appendingPathComponent("cache")
    let library = AssetsLibrary(
      root: workspace.library.root, options: LibraryOptions(pictureCache: .directory(inside)))
    let asset = try #require(try await library.enumerate().assets.first)
    #expect(try await draw(library, asset, 80).source == .decodedImage)
    #expect(try await draw(library, asset, 80).source == .decodedImage)
    #expect(status(inside.path) == nil)
  }

  @Test func theDesktopCacheFollowsXDGCacheHome() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0002.jpg", as: "IMG_0002.jpg")
    let library = AssetsLibrary(root: workspace.library.root)
    #expect(library.options.pictureCache == .freedesktop)
    let asset = try #require(try await library.enumerate().assets.first)
    let environment = ["XDG_CACHE_HOME": workspace.cache.path, "HOME": "/nonexistent"]
    let sources = try await PictureCache.$environmentForTesting.withValue(environment) {
      () async throws -> [AssetImage.Source] in
      [try await draw(library, asset, 80).source, try await draw(library, asset, 80).source]
    }
    #expect(sources == [.decodedImage, .thumbnailCache])
    let name = MD5.hex(Array(workspace.uri("IMG_0002.jpg").utf8)) + ".png"
    #expect(status(workspace.cache.path + "/thumbnails/normal/" + name) != nil)
    #expect(status(workspace.cache.path + "/thumbnails")!.st_mode & 0o777 == 0o700)
    // Without an absolute XDG_CACHE_HOME or HOME there is no cache.
    #expect(PictureCache.folder(for: .freedesktop, environment: ["XDG_CACHE_HOME": "rel"]) == nil)
    #expect(
      PictureCache.folder(for: .freedesktop, environment: ["HOME": "/home/u"])?.path
        == "/home/u/.cache/thumbnails")
  }

  @Test func aPrivateCacheDropsItsOldestEntriesPastItsBound() async throws {
    let workspace = try Workspace()
    // One photo twice: two entries of exactly one size.
    try workspace.library.add("IMG_0002.jpg", as: "a.jpg")
    try workspace.library.add("IMG_0002.jpg", as: "b.jpg")
    let options = ImageRequestOptions(deliveryMode: .highQualityFormat)
    let first = try await workspace.asset("a.jpg")
    let second = try await workspace.asset("b.jpg")
    _ = try await workspace.assetsLibrary.image(
      for: first, targetSize: CGSize(width: 100, height: 100), contentMode: .aspectFit,
      options: options)
    let a = workspace.entryPath("a.jpg", in: "normal")
    let size = Int(try #require(status(a)).st_size)
    // The same cache, bounded to one and a half entries: the second entry pushes the
    // first (older) out.
    workspace.maximumBytes = size + size / 2
    let library = workspace.assetsLibrary
    _ = try await library.image(
      for: second, targetSize: CGSize(width: 100, height: 100), contentMode: .aspectFit,
      options: options)
    #expect(status(a) == nil)
    #expect(status(workspace.entryPath("b.jpg", in: "normal")) != nil)
  }

  // MARK: The caching manager

  @Test func theCachingManagerFillsTheCacheForLaterRequests() async throws {
    let workspace = try Workspace()
    try workspace.library.add("IMG_0001.JPG", as: "a.jpg")
    try workspace.library.add("IMG_0002.jpg", as: "b.jpg")
    try workspace.library.add("Videos/clip.mp4", as: "c.mp4")
    try workspace.library.add("Broken/broken.jpg", as: "d.jpg")
    let library = workspace.assetsLibrary
    let assets = try await library.enumerate().assets
    #expect(assets.count == 4)
    let manager = CachingImageManager(library: library)
    let box = CGSize(width: 80, height: 80)
    manager.startCaching(assets: assets, targetSize: box, contentMode: .aspectFit)
    manager.startCaching(assets: assets, targetSize: box, contentMode: .aspectFit)
    await manager.waitUntilIdle()
    for name in ["a.jpg", "b.jpg", "c.mp4"] {
      #expect(status(workspace.entryPath(name, in: "normal")) != nil, "\(name)")
    }
    #expect(status(workspace.entryPath("d.jpg", in: Self.failFolder)) != nil)
    for asset in assets where asset.name != "d.jpg" {
      #expect(try await draw(library, asset, 80).source == .thumbnailCache, "\(asset.name)")
    }
    // Once stopped, nothing queued starts: one at a time, eight assets queued, stopped
    // at once; what had started may finish, nothing more is drawn.
    let copies = try TemporaryFolder()
    for index in 0..<8 { try copies.add("IMG_0002.jpg", as: "copy-\(index).jpg") }
    let cache = try TemporaryFolder()
    let copyLibrary = AssetsLibrary(
      root: copies.root, options: LibraryOptions(pictureCache: .directory(cache.root)))
    let one = CachingImageManager(library: copyLibrary, maximumConcurrency: 1)
    one.startCaching(
      assets: try await copyLibrary.enumerate().assets, targetSize: box, contentMode: .aspectFit)
    one.stopCachingAllImages()
    let started = one.startedCount
    await one.waitUntilIdle()
    #expect(one.startedCount == started)
    let written =
      (try? FileManager.default.contentsOfDirectory(atPath: cache.path + "/normal").count) ?? 0
    #expect(written <= started, "\(written) of \(started)")
    // Stopped before it runs, nothing is drawn.
    manager.startCaching(
      assets: assets, targetSize: CGSize(width: 200, height: 200), contentMode: .aspectFill)
    manager.stopCachingAllImages()
    manager.stopCaching(assets: assets, targetSize: box, contentMode: .aspectFit)
    await manager.waitUntilIdle()
  }
  @Test func theCachingManagerWorksThroughALongQueue() async throws {
    let copies = try TemporaryFolder()
    for index in 0..<80 { try copies.add("IMG_0002.jpg", as: "copy-\(index).jpg") }
    let cache = try TemporaryFolder()
    let library = AssetsLibrary(
      root: copies.root, options: LibraryOptions(pictureCache: .directory(cache.root)))
    let assets = try await library.enumerate().assets
    let manager = CachingImageManager(library: library)
    let box = CGSize(width: 64, height: 64)
    // Overlapping batches in one call: each picture is queued once.
    manager.startCaching(
      assets: Array(assets[0..<50]) + Array(assets[30...]), targetSize: box,
      contentMode: .aspectFit)
    await manager.waitUntilIdle()
    #expect(manager.startedCount == 80)
    #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path + "/normal").count == 80)
  }
}
