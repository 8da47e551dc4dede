import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@Suite struct JSONFormatterTests {
  @Test func stringsEscapeQuotesBackslashesAndControlCharacters() {
    #expect(JSONValue.quoted(#"say "hi" \ bye"#) == #""say \"hi\" \\ bye""#)
    #expect(JSONValue.quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
    #expect(JSONValue.quoted("\u{08}\u{0C}") == #""\b\f""#)
    #expect(JSONValue.quoted("\u{00}\u{01}\u{1F}") == #""\u0000\u0001\u001f""#)
  }

  @Test func stringsKeepSlashesDeleteAndNonASCIIAsTheyAre() {
    #expect(JSONValue.quoted("a/b") == #""a/b""#)
    #expect(JSONValue.quoted("\u{7F}") == "\"\u{7F}\"")
    #expect(JSONValue.quoted("京都 café 📷 %FF") == "\"京都 café 📷 %FF\"")
  }

  @Test func numbersAreShortestRoundTripAndNonFiniteIsNull() {
    #expect(JSONValue.number(12.5).serialized() == "12.5")
    #expect(JSONValue.number(3.0).serialized() == "3.0")
    #expect(JSONValue.number(0.00001).serialized() == "1e-05")
    #expect(JSONValue.number(-33.856784).serialized() == "-33.856784")
    #expect(JSONValue.number(Double.nan).serialized() == "null")
    #expect(JSONValue.number(-Double.infinity).serialized() == "null")
    #expect(JSONValue.integer(Int64.min).serialized() == "-9223372036854775808")
  }

  @Test func objectsKeepTheirKeyOrderAndNestWithTwoSpaces() {
    let value = JSONValue.object([
      ("z", .integer(1)), ("a", .array([.bool(true), .null])), ("m", .object([])),
      ("e", .array([])),
    ])
    #expect(
      value.serialized() == """
        {
          "z": 1,
          "a": [
            true,
            null
          ],
          "m": {},
          "e": []
        }
        """)
  }

  @Test func theLegacyDictionaryOfAPhotoWithGPSHasUnsignedDegreesAndRefs() throws {
    let asset = try SampleAssets.photoWithGPS()
    let url = asset.url.absoluteString
    #expect(url == "assets-library://asset/asset.JPG?id=\(asset.id.uuidString)&ext=JPG")
    #expect(
      JSONFormatter.legacyDictionary(for: asset).serialized() == """
        {
          "photoDefaultPath": "\(url)",
          "photoThumPath": "\(url)",
          "photoName": "IMG_0001.JPG",
          "photoGPS": {
            "Latitude": 33.856784,
            "LatitudeRef": "S",
            "Longitude": 151.215297,
            "LongitudeRef": "W"
          },
          "photoDateTime": "2019:05:01 12:34:56"
        }
        """)
  }

  @Test func theLegacyDictionaryWithoutGPSHasZeroStringsAndNoDateTime() {
    let asset = SampleAssets.photoWithoutGPS()
    let url = asset.url.absoluteString
    #expect(
      JSONFormatter.legacyDictionary(for: asset).serialized() == """
        {
          "photoDefaultPath": "\(url)",
          "photoThumPath": "\(url)",
          "photoName": "京都の写真.png",
          "photoGPS": {
            "Latitude": "0.0",
            "Longitude": "0.0"
          },
          "photoDateTime": "0"
        }
        """)
  }

  @Test func aPhotoHasEveryKeyOfTheContractInOrder() throws {
    let asset = try SampleAssets.photoWithGPS()
    let id = asset.id.uuidString
    let url = asset.url.absoluteString
    #expect(
      JSONFormatter.object(for: asset).serialized() == """
        {
          "id": "\(id)",
          "url": "\(url)",
          "path": "DCIM/100APPLE/IMG_0001.JPG",
          "name": "IMG_0001.JPG",
          "group": "Camera Roll",
          "type": "photo",
          "resources": [
            {
              "name": "IMG_0001.JPG",
              "path": "DCIM/100APPLE/IMG_0001.JPG",
              "role": "photo"
            }
          ],
          "width": 3024,
          "height": 4032,
          "orientation": 6,
          "duration": null,
          "creationDate": "2019-05-01T12:34:56.12+09:00",
          "creationDateSource": "exif:DateTimeOriginal",
          "dateTime": "2019:05:01 12:34:56",
          "location": {
            "latitude": -33.856784,
            "longitude": -151.215297,
            "altitude": 12.5
          },
          "fileSize": 2345678,
          "hasThumbnail": true,
          "legacy": {
            "photoDefaultPath": "\(url)",
            "photoThumPath": "\(url)",
            "photoName": "IMG_0001.JPG",
            "photoGPS": {
              "Latitude": 33.856784,
              "LatitudeRef": "S",
              "Longitude": 151.215297,
              "LongitudeRef": "W"
            },
            "photoDateTime": "2019:05:01 12:34:56"
          },
          "problems": []
        }
        """)
  }

  @Test func aVideoHasNoLegacyDictionaryAndAFileTimeFallbackIsNamed() throws {
    let video = try SampleAssets.video()
    let text = JSONFormatter.object(for: video).serialized()
    #expect(text.contains(#""legacy": null,"#))
    #expect(text.contains(#""duration": 3.5,"#))
    #expect(text.contains(#""creationDate": "2020-01-02T03:04:05Z","#))
    #expect(text.contains(#""creationDateSource": "quicktime:mvhd","#))
    #expect(text.contains(#""dateTime": "0","#))
    #expect(text.contains(#""orientation": null,"#))

    let photo = SampleAssets.photoWithoutGPS()
    let photoText = JSONFormatter.object(for: photo).serialized()
    #expect(photoText.contains(#""group": "旅行","#))
    #expect(photoText.contains(#""creationDate": "2023-11-14T22:13:20Z","#))
    #expect(photoText.contains(#""creationDateSource": "file:mtime","#))
    #expect(photoText.contains(#""location": null,"#))
    #expect(photoText.contains(#""width": null,"#))
    #expect(
      photoText.hasSuffix(
        """
          "problems": [
            "malformed: The PNG ends inside a chunk."
          ]
        }
        """))
  }

  @Test func aNonUTF8PathIsEscapedSoItRoundTrips() throws {
    let path = LibraryPath(bytes: Array("bad".utf8) + [0xFF, 0xFE] + Array("%.jpg".utf8))
    let asset = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: nil, fileSize: 1)],
      fileModificationDate: Date(timeIntervalSince1970: 0), metadata: MediaMetadata())
    let text = JSONFormatter.object(for: asset).serialized()
    #expect(text.contains(#""path": "bad%FF%FE%25.jpg","#))
    #expect(LibraryPath(escaped: "bad%FF%FE%25.jpg") == path)
  }

  @Test func anEmptyListIsAnEmptyArray() {
    #expect(JSONFormatter.format(assets: []) == "[]\n")
  }
}
