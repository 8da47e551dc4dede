import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@Suite struct CSVFormatterTests {
  @Test(arguments: [
    ("plain", "plain"), ("", ""), ("a,b", #""a,b""#), (#"say "hi""#, #""say ""hi""""#),
    ("two\nlines", "\"two\nlines\""), ("cr\r", "\"cr\r\""), ("京都 café", "京都 café"),
    ("crlf\r\n", "\"crlf\r\n\""),
  ])
  func fieldsAreQuotedOnlyWhenTheyMustBe(field: String, expected: String) {
    #expect(CSVFormatter.escaped(field) == expected)
  }

  @Test func recordsEndInCRLF() {
    #expect(CSVFormatter.record(["a", "b,c", ""]) == "a,\"b,c\",\r\n")
  }

  @Test func theHeaderNamesTheContractColumns() {
    #expect(
      CSVFormatter.format(assets: [])
        == "id,url,path,name,group,type,resources,width,height,orientation,duration,creationDate,"
        + "creationDateSource,dateTime,latitude,longitude,altitude,fileSize,hasThumbnail,"
        + "make,model,lensModel,problems\r\n")
  }

  @Test func anAssetIsOneRecordInColumnOrder() throws {
    let asset = try SampleAssets.photoWithGPS()
    #expect(
      CSVFormatter.fields(for: asset) == [
        asset.id.uuidString, asset.url.absoluteString, "DCIM/100APPLE/IMG_0001.JPG",
        "IMG_0001.JPG", "Camera Roll", "photo",
        #"[{"name":"IMG_0001.JPG","path":"DCIM/100APPLE/IMG_0001.JPG","role":"photo"}]"#,
        "3024", "4032", "6", "",
        "2019-05-01T12:34:56.12+09:00", "exif:DateTimeOriginal", "2019:05:01 12:34:56",
        "-33.856784", "-151.215297", "12.5", "2345678", "true", "Apple", "iPhone XS",
        "iPhone XS back dual camera 4.25mm f/1.8", "[]",
      ])
    let plain = SampleAssets.photoWithoutGPS()
    let fields = CSVFormatter.fields(for: plain)
    #expect(fields.count == CSVFormatter.assetColumns.count)
    #expect(fields[4] == "旅行")
    #expect(fields[13] == "", "no TIFF DateTime is an empty field, not the legacy \"0\"")
    #expect(Array(fields[14...16]) == ["", "", ""])
    #expect(Array(fields[19...21]) == ["", "", ""], "no make, model or lens: empty fields")
    #expect(fields[22] == #"["malformed: The PNG ends inside a chunk."]"#)
  }

  @Test func problemsAreOneJSONArrayInOneField() throws {
    var metadata = MediaMetadata()
    metadata.problems = [
      AssetProblem(.invalidValue, "GPS latitude 501 is out of range; ignored."),
      AssetProblem(.malformed, #"The "APP1" segment is cut short, at 12, of 40."#),
    ]
    let path = LibraryPath("a.jpg")
    let asset = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo, resources: [],
      fileModificationDate: .distantPast, metadata: metadata)
    let record = CSVFormatter.record(CSVFormatter.fields(for: asset))
    #expect(
      record.hasSuffix(
        #","[""invalidValue: GPS latitude 501 is out of range; ignored."","#
          + #"""malformed: The \""APP1\"" segment is cut short, at 12, of 40.""]""#
          + "\r\n"))
  }

  @Test func aMakeThatStartsLikeAFormulaIsNeutralised() {
    var metadata = MediaMetadata()
    metadata.make = "=HYPERLINK(\"http://x\")"
    metadata.model = "-1+2"
    metadata.lensModel = "24-70mm, f/2.8"
    let path = LibraryPath("a.jpg")
    let asset = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo, resources: [],
      fileModificationDate: .distantPast, metadata: metadata)
    let fields = CSVFormatter.fields(for: asset)
    let column = { (name: String) in fields[CSVFormatter.assetColumns.firstIndex(of: name) ?? 0] }
    #expect(column("make") == "'=HYPERLINK(\"http://x\")")
    #expect(column("model") == "'-1+2")
    #expect(column("lensModel") == "24-70mm, f/2.8")
    #expect(CSVFormatter.record(fields).contains(#","'=HYPERLINK(""http://x"")","#))
  }

  @Test func aLivePhotosMovieAndSidecarAreInItsResourcesField() async throws {
    let contents = try await AssetsLibrary(root: DemoCommand.bundledLibrary).enumerate()
    let live = try #require(contents.assets.first { $0.type == .livePhoto })
    let resources = CSVFormatter.fields(for: live)[6]
    #expect(
      resources == #"[{"name":"IMG_0200.HEIC","path":"DCIM/100APPLE/IMG_0200.HEIC","#
        + #""role":"photo"},{"name":"IMG_0200.MOV","path":"DCIM/100APPLE/IMG_0200.MOV","#
        + #""role":"pairedVideo"},{"name":"IMG_0200.AAE","path":"DCIM/100APPLE/IMG_0200.AAE","#
        + #""role":"sidecar"}]"#)
  }

  @Test func coordinatesHaveAtMostSevenDecimalsAndAltitudeThree() throws {
    var metadata = MediaMetadata()
    let location = try #require(
      Location(latitude: -22.906799999999997, longitude: 0.000_000_04, altitude: 12.345_678))
    metadata.location = location
    let asset = Asset(
      path: LibraryPath("a.jpg"), group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [], fileModificationDate: .distantPast, metadata: metadata)
    let fields = CSVFormatter.fields(for: asset)
    #expect(Array(fields[14...16]) == ["-22.9068", "0.0", "12.346"])
  }
}
