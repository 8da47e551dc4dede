import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The files of `Fixtures/Sidecars`, made by `Fixtures/make-sidecars.sh` (see
/// `Fixtures/Sidecars.md` for what each holds).
private let sidecars = Sample.fixtures.folder("Sidecars").url

/// Every asset of one folder of `Fixtures/Sidecars`, by path.
private func assets(in folder: String) async throws -> [String: Asset] {
  let contents = try await AssetsLibrary(root: sidecars.appendingPathComponent(folder))
    .enumerate(filter: .all)
  return Dictionary(contents.assets.map { ($0.path.description, $0) }) { first, _ in first }
}

/// The names of an asset's sidecar resources.
private func sidecarNames(_ asset: Asset) -> [String] {
  asset.resources.filter { $0.role == .sidecar }.map(\.name)
}

private func isNear(_ location: Location?, _ latitude: Double, _ longitude: Double) -> Bool {
  guard let location else { return false }
  return abs(location.latitude - latitude) < 1e-9 && abs(location.longitude - longitude) < 1e-9
}

@Suite struct EmbeddedXMPTests {
  @Test(arguments: [
    ("only-xmp.png", "2021-03-01T10:00:00", CaptureDate.Source.xmpEXIFDateTimeOriginal),
    ("only-xmp.heic", "2021-03-02T10:00:00", .xmpEXIFDateTimeOriginal),
    ("only-xmp.tif", "2021-03-03T10:00:00", .xmpEXIFDateTimeOriginal),
    ("only-xmp.webp", "2021-03-04T10:00:00", .xmpCreateDate),
  ])
  func aFileWhoseDateAndPlaceAreOnlyInItsXMPTakesThemFromIt(
    name: String, taken: String, source: CaptureDate.Source
  ) async throws {
    let asset = try #require(try await assets(in: "Embedded")[name])
    #expect(asset.problems.isEmpty, "\(asset.problems)")
    #expect(asset.creationDate?.iso8601 == taken)
    #expect(asset.creationDate?.source == source)
    #expect(isNear(asset.location, 35.6586, 139.7454), "\(String(describing: asset.location))")
    #expect(asset.location?.altitude == 333)
    #expect(asset.pixelWidth == 32 && asset.pixelHeight == 24)
  }

  @Test func embeddedXMPIsKeptApartFromTheFilesOwnDates() throws {
    let bytes = [UInt8](
      try Data(contentsOf: sidecars.appendingPathComponent("Embedded/only-xmp.png")))
    let metadata = MetadataReaderTable.read(from: ArrayByteSource(bytes), format: .png)
    #expect(metadata.dateTimeOriginal == nil)
    #expect(metadata.xmpDate?.source == .xmpEXIFDateTimeOriginal)
    #expect(metadata.sidecarDate == nil)
  }
}

/// PNG's XMP chunk and where the chunk walk looks for it.
@Suite struct PNGXMPTests {
  private let packet = Array(
    (#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF "#
      + #"xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description "#
      + #"xmlns:exif="http://ns.adobe.com/exif/1.0/" "#
      + #"exif:DateTimeOriginal="2011-11-11T11:11:11" exif:GPSLatitude="48,51.6N" "#
      + #"exif:GPSLongitude="2,21E"/></rdf:RDF></x:xmpmeta>"#).utf8)

  private func exifWithDateOnly() -> [UInt8] {
    var builder = EXIFTestBuilder()
    builder.exif = [(0x9003, .ascii("2020:02:02 02:02:02"))]
    return builder.tiff()
  }

  @Test(arguments: [false, true])
  func anXMPChunkAfterTheEXIFChunkFillsOnlyThePlace(compressed: Bool) throws {
    let png = PNGBuilder.png(before: [
      PNGBuilder.exif(exifWithDateOnly()),
      try PNGBuilder.internationalText("XML:com.adobe.xmp", packet, compressed: compressed),
    ])
    let metadata = PNGMetadataReader.read(from: ArrayByteSource(png))
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2020-02-02T02:02:02")
    #expect(metadata.xmpDate == nil)
    #expect(isNear(metadata.location, 48.86, 2.35))
  }

  @Test func anXMPChunkAfterTheImageDataIsNotLookedForWhenEXIFCameFirst() throws {
    let png = PNGBuilder.png(
      before: [PNGBuilder.exif(exifWithDateOnly())],
      after: [try PNGBuilder.internationalText("XML:com.adobe.xmp", packet, compressed: false)])
    let metadata = PNGMetadataReader.read(from: ArrayByteSource(png))
    #expect(metadata.dateTimeOriginal != nil)
    #expect(metadata.location == nil)
  }

  @Test func anXMPChunkInATextChunkIsReadToo() throws {
    let png = PNGBuilder.png(after: [PNGBuilder.text("XML:com.adobe.xmp", packet)])
    let metadata = PNGMetadataReader.read(from: ArrayByteSource(png))
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.xmpDate?.iso8601 == "2011-11-11T11:11:11")
    #expect(isNear(metadata.location, 48.86, 2.35))
  }
}

@Suite struct SidecarReadingTests {
  @Test func aJPEGWithoutMetadataTakesItsDateAndPlaceFromItsXMPSidecar() async throws {
    let listed = try await assets(in: "XMP")
    let photo = try #require(listed["DSC_0002.jpg"])
    #expect(photo.problems.isEmpty, "\(photo.problems)")
    #expect(photo.creationDate?.iso8601 == "2021-04-01T08:30:00+09:00")
    #expect(photo.creationDate?.source == .sidecarXMPEXIFDateTimeOriginal)
    #expect(photo.creationDate?.source.rawValue == "sidecar:xmp:exif:DateTimeOriginal")
    #expect(isNear(photo.location, -33.8568, 151.2153))
    #expect(sidecarNames(photo) == ["DSC_0002.xmp"])
    // The darktable form: the whole name, then `.xmp`.
    let darktable = try #require(listed["DSC_0003.JPG"])
    #expect(darktable.creationDate?.iso8601 == "2021-04-02T09:00:00")
    #expect(darktable.creationDate?.source == .sidecarXMPPhotoshopDateCreated)
    #expect(darktable.location == nil)
    #expect(listed.count == 2)
  }

  @Test func theFilesOwnEXIFDateWinsOverAConflictingSidecarWhichStillGivesThePlace()
    async throws
  {
    let photo = try #require(try await assets(in: "Order")["exif.jpg"])
    #expect(photo.creationDate?.iso8601 == "2021-05-01T12:00:00")
    #expect(photo.creationDate?.source == .exifDateTimeOriginal)
    #expect(photo.metadata.sidecarDate == nil)
    #expect(isNear(photo.location, 64.1466, -21.9426))
  }

  @Test func embeddedXMPWinsOverASidecar() async throws {
    let photo = try #require(try await assets(in: "Order")["embedded.jpg"])
    #expect(photo.creationDate?.iso8601 == "2021-05-02T12:00:00")
    #expect(photo.creationDate?.source == .xmpEXIFDateTimeOriginal)
    #expect(isNear(photo.location, 1.2834, 103.8607))
  }

  @Test func anXMPSidecarWinsOverATakeoutSidecarWhichStillGivesThePlace() async throws {
    let photo = try #require(try await assets(in: "Order")["both.jpg"])
    #expect(photo.problems.isEmpty, "\(photo.problems)")
    #expect(photo.creationDate?.iso8601 == "2021-05-03T12:00:00")
    #expect(photo.creationDate?.source == .sidecarXMPCreateDate)
    #expect(isNear(photo.location, 40.6892, -74.0445))
    #expect(photo.location?.altitude == 10)
    #expect(sidecarNames(photo) == ["both.jpg.json", "both.xmp"])
  }

  @Test(arguments: [
    (
      "PXL_20210601_120000.jpg", "PXL_20210601_120000.jpg.supplemental-metadata.json",
      "2021-06-01T12:00:00Z"
    ),
    (
      "Screenshot_20210602-130000_GoogleMap.jpg",
      "Screenshot_20210602-130000_GoogleMap.jpg.suppl.json", "2021-06-02T13:00:00Z"
    ),
    ("IMG_0001.jpg", "IMG_0001.jpg.json", "2021-06-03T12:00:00Z"),
    ("IMG_0001(1).jpg", "IMG_0001.jpg(1).json", "2021-06-03T13:00:00Z"),
  ])
  func aTakeoutSidecarInEachOfItsNameFormsGivesItsPhotoTheTimeTaken(
    photo name: String, sidecar: String, taken: String
  ) async throws {
    let listed = try await assets(in: "Takeout")
    let photo = try #require(listed[name])
    #expect(photo.problems.isEmpty, "\(photo.problems)")
    #expect(sidecarNames(photo) == [sidecar])
    #expect(photo.creationDate?.iso8601 == taken)
    #expect(photo.creationDate?.source == .takeoutPhotoTakenTime)
    #expect(photo.creationDate?.source.rawValue == "takeout:photoTakenTime")
    #expect(listed[sidecar] == nil, "the sidecar is not an asset of its own")
  }

  @Test func aTakeoutSidecarsPathFindsItsPhoto() async throws {
    let library = AssetsLibrary(root: sidecars.appendingPathComponent("Takeout"))
    let photo = try await library.asset(at: LibraryPath("IMG_0001.jpg(1).json"))
    #expect(photo?.path == LibraryPath("IMG_0001(1).jpg"))
    #expect(photo?.creationDate?.source == .takeoutPhotoTakenTime)
  }

  @Test func aTakeoutSidecarGivesThePlaceOfGeoData() async throws {
    let photo = try #require(try await assets(in: "Takeout")["PXL_20210601_120000.jpg"])
    #expect(isNear(photo.location, 48.8606, 2.3376))
    #expect(photo.location?.altitude == 35)
  }

  @Test func aJSONFileNamedLikeASidecarButWithoutTakeoutKeysIsNotOne() async throws {
    let photo = try #require(try await assets(in: "Takeout")["notes.jpg"])
    #expect(sidecarNames(photo).isEmpty)
    #expect(photo.creationDate?.source == .fileModificationTime)
  }

  @Test func aBrokenXMPSidecarIsAProblemAndTheAssetIsListedAsWithoutIt() async throws {
    let photo = try #require(try await assets(in: "Broken")["DSC_0004.jpg"])
    #expect(photo.type == .photo)
    #expect(photo.problems.map(\.code) == [.malformed])
    #expect(photo.problems.first?.message.contains("'DSC_0004.xmp'") == true)
    #expect(photo.creationDate?.source == .fileModificationTime)
    #expect(photo.pixelWidth == 32)
    #expect(sidecarNames(photo) == ["DSC_0004.xmp"])
  }

  @Test func aTakeoutSidecarWhoseTimeIsNotATimeIsAProblem() async throws {
    let photo = try #require(try await assets(in: "Broken")["IMG_0005.jpg"])
    #expect(photo.problems.map(\.code) == [.invalidValue])
    #expect(photo.problems.first?.message.contains("'IMG_0005.jpg.json'") == true)
    #expect(photo.creationDate?.source == .fileModificationTime)
  }

  @Test func anOversizeSidecarIsNotReadAndIsAProblem() async throws {
    let folder = try TemporaryFolder()
    let jpeg = [UInt8](try Data(contentsOf: sidecars.appendingPathComponent("XMP/DSC_0002.jpg")))
    let packet = [UInt8](try Data(contentsOf: sidecars.appendingPathComponent("XMP/DSC_0002.xmp")))
    try folder.write(jpeg, as: "A/DSC_0002.jpg")
    // A valid packet padded past the cap, as XMP padding is written.
    let padding = [UInt8](repeating: UInt8(ascii: " "), count: SidecarReader.maximumSize)
    try folder.write(packet + padding, as: "A/DSC_0002.xmp")
    let contents = try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
    let photo = try #require(contents.assets.first)
    #expect(contents.assets.count == 1)
    #expect(photo.problems.map(\.code) == [.unsupported])
    #expect(photo.problems.first?.message.contains("read up to 1048576 bytes") == true)
    #expect(photo.creationDate?.source == .fileModificationTime)
    #expect(photo.location == nil)
  }

  @Test(arguments: [
    // Names that are not UTF-8 (0xCB is a lead byte with no continuation): Foundation's
    // parser traps on each of these unless they are refused before it.
    Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><a xmlns:p"#.utf8) + [0xCB]
      + Array(#"q="1"/></x:xmpmeta>"#.utf8),
    Array("<a b".utf8) + [0xCB] + Array(#"c="1"/>"#.utf8),
    Array("<a".utf8) + [0xCB] + Array("b/>".utf8),
    Array("<a>".utf8) + [0] + Array("</a>".utf8),
  ])
  func aSidecarThatIsNotUTF8IsAProblemNotACrash(packet: [UInt8]) async throws {
    let folder = try TemporaryFolder()
    let jpeg = [UInt8](try Data(contentsOf: sidecars.appendingPathComponent("XMP/DSC_0002.jpg")))
    try folder.write(jpeg, as: "A/DSC_0002.jpg")
    try folder.write(packet, as: "A/DSC_0002.xmp")
    let contents = try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
    let photo = try #require(contents.assets.first)
    #expect(
      photo.problems.map(\.message) == [
        "The sidecar 'DSC_0002.xmp': The XMP packet is neither UTF-8 nor UTF-16 text; ignored."
      ])
    #expect(photo.creationDate?.source == .fileModificationTime)
  }

  @Test(arguments: [true, false])
  func aUTF16SidecarIsReadAsItsText(bigEndian: Bool) async throws {
    let folder = try TemporaryFolder()
    let jpeg = [UInt8](try Data(contentsOf: sidecars.appendingPathComponent("XMP/DSC_0002.jpg")))
    let packet = try String(
      decoding: Data(contentsOf: sidecars.appendingPathComponent("XMP/DSC_0002.xmp")),
      as: UTF8.self)
    let units = Array(packet.utf16)
    let bytes = units.flatMap { unit -> [UInt8] in
      let pair = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
      return bigEndian ? pair : pair.reversed()
    }
    try folder.write(jpeg, as: "A/DSC_0002.jpg")
    try folder.write(bytes + [0, 0], as: "A/DSC_0002.xmp")
    let contents = try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
    let photo = try #require(contents.assets.first)
    #expect(photo.problems.isEmpty, "\(photo.problems)")
    #expect(photo.creationDate?.iso8601 == "2021-04-01T08:30:00+09:00")
    #expect(isNear(photo.location, -33.8568, 151.2153))
  }

  @Test func sidecarsAreNotOpenedWhenTheFileHasADateAndAPlace() async throws {
    let folder = try TemporaryFolder()
    try folder.add(Sample.photoWithGPS, as: "IMG_0001.JPG")
    try folder.write(Array("<not xml".utf8), as: "IMG_0001.xmp")
    let photo = try #require(
      try await AssetsLibrary(root: folder.root).enumerate(filter: .all).assets.first)
    #expect(photo.problems.isEmpty, "\(photo.problems)")
    #expect(photo.creationDate?.source == .exifDateTimeOriginal)
    #expect(sidecarNames(photo) == ["IMG_0001.xmp"])
  }
}

@Suite struct TakeoutMatchingTests {
  private func names(_ sidecar: String) -> [String] {
    SidecarMatching.takeoutMediaNames(forSidecarNamed: Array(sidecar.utf8)).map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  @Test func eachNameFormGivesTheMediaName() {
    #expect(names("img.jpg.json") == ["img.jpg"])
    #expect(names("img.jpg.supplemental-metadata.json").contains("img.jpg"))
    #expect(names("img.jpg.supplemental-metad.json").contains("img.jpg"))
    #expect(names("img.jpg.suppl.json").contains("img.jpg"))
    #expect(names("img.jpg(1).json") == ["img(1).jpg"])
    #expect(names("img.jpg.supplemental-metadata(12).json").contains("img(12).jpg"))
  }

  @Test func otherNamesGiveNothingThatLooksLikeMedia() {
    #expect(names("img.jpg").isEmpty)
    #expect(names(".json").isEmpty)
    #expect(!names("img.jpg.meta.json").contains("img.jpg"))
    #expect(names("img.jpg().json") == ["img.jpg()"])
  }

  private func file(_ name: String) -> ScannedFile {
    ScannedFile(
      path: LibraryPath(name), fileSize: 10, modificationDate: Date(timeIntervalSince1970: 0),
      format: .jpeg, type: .photo, problem: nil)
  }

  private func other(_ name: String) -> OtherFile {
    OtherFile(
      path: LibraryPath(name), fileSize: 10, modificationDate: Date(timeIntervalSince1970: 0),
      reason: .notMedia, message: "not media")
  }

  @Test func aSidecarWhoseMediaNameWasCutAt51BytesFindsItsFile() {
    let media = String(repeating: "a", count: 50) + ".jpg"
    let sidecar = String(media.prefix(46)) + ".json"
    var files = [file(media)]
    var others = [other(sidecar)]
    SidecarMatching.attachTakeoutSidecars(from: &others, to: &files) { _ in true }
    #expect(others.isEmpty)
    #expect(files.first?.sidecars.map(\.name) == [sidecar])
  }

  @Test func aCutNameAmongManyMediaNamesSharingItsStartFindsOnlyItsOwn() {
    // 2,000 media names whose first 46 bytes are one of 1,000 prefixes, and one sidecar
    // per prefix: the names after each prefix in byte order are the only ones looked at.
    var files: [ScannedFile] = []
    var others: [OtherFile] = []
    for number in 0..<1000 {
      let prefix = String(repeating: "p", count: 40) + String(format: "%06d", number)
      files.append(file(prefix + "-a.jpg"))
      if number % 2 == 0 { files.append(file(prefix + "-b.jpg")) }
      others.append(other(prefix + ".json"))
    }
    // A prefix shared by no media name, and one of three media names (no single owner).
    others.append(other(String(repeating: "q", count: 46) + ".json"))
    let three = String(repeating: "r", count: 46)
    files += ["1.jpg", "2.jpg", "3.jpg"].map { file(three + $0) }
    others.append(other(three + ".json"))
    files.sort { $0.path < $1.path }
    SidecarMatching.attachTakeoutSidecars(from: &others, to: &files) { _ in true }
    // Odd prefixes have one media name: attached. Even ones have two photos (no Live
    // Photo pair): left, as are the two without a single owner.
    #expect(others.count == 500 + 2)
    let attached = files.filter { !$0.sidecars.isEmpty }
    #expect(attached.count == 500)
    for file in attached {
      let name = file.path.lastComponent
      #expect(file.sidecars.map(\.name) == [String(name.prefix(46)) + ".json"])
    }
  }

  @Test func aSidecarIsAttachedOnlyWhenItsContentSaysSoAndOneFileFits() {
    var files = [file("x.jpg")]
    var others = [other("x.jpg.json")]
    SidecarMatching.attachTakeoutSidecars(from: &others, to: &files) { _ in false }
    #expect(others.count == 1)
    #expect(files[0].sidecars.isEmpty)
    // A media name that is not unique (ASCII case ignored): nothing fits alone.
    var two = [file("x.jpg"), file("X.JPG")]
    var json = [other("x.jpg.json")]
    SidecarMatching.attachTakeoutSidecars(from: &json, to: &two) { _ in true }
    #expect(json.count == 1)
    #expect(two.allSatisfy { $0.sidecars.isEmpty })
  }
}
