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
        == "id,url,path,name,group,type,width,height,orientation,duration,creationDate,"
        + "creationDateSource,dateTime,latitude,longitude,altitude,fileSize,hasThumbnail,"
        + "problems\r\n")
  }

  @Test func anAssetIsOneRecordInColumnOrder() throws {
    let asset = try SampleAssets.photoWithGPS()
    #expect(
      CSVFormatter.fields(for: asset) == [
        asset.id.uuidString, asset.url.absoluteString, "DCIM/100APPLE/IMG_0001.JPG",
        "IMG_0001.JPG", "Camera Roll", "photo", "3024", "4032", "6", "",
        "2019-05-01T12:34:56.12+09:00", "exif:DateTimeOriginal", "2019:05:01 12:34:56",
        "-33.856784", "-151.215297", "12.5", "2345678", "true", "",
      ])
    let plain = SampleAssets.photoWithoutGPS()
    let fields = CSVFormatter.fields(for: plain)
    #expect(fields.count == CSVFormatter.assetColumns.count)
    #expect(fields[4] == "旅行")
    #expect(fields[12] == "0")
    #expect(Array(fields[13...15]) == ["", "", ""])
    #expect(fields[18] == "malformed: The PNG ends inside a chunk.")
  }

  @Test func problemsAreJoinedWithSemicolons() throws {
    var metadata = MediaMetadata()
    metadata.problems = [
      AssetProblem(.invalidValue, "GPS latitude 501 is out of range."),
      AssetProblem(.malformed, #"The "APP1" segment is cut short, at 12, of 40."#),
    ]
    let path = LibraryPath("a.jpg")
    let asset = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo, resources: [],
      fileModificationDate: .distantPast, metadata: metadata)
    let record = CSVFormatter.record(CSVFormatter.fields(for: asset))
    #expect(
      record.hasSuffix(
        #","invalidValue: GPS latitude 501 is out of range.; "#
          + #"malformed: The ""APP1"" segment is cut short, at 12, of 40.""# + "\r\n"))
  }
}
