import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@Suite struct JSONFormatterTests {
  @Test func stringsEscapeQuotesBackslashesAndControlCharacters() {
    #expect(JSONWriter.quoted(#"say "hi" \ bye"#) == #""say \"hi\" \\ bye""#)
    #expect(JSONWriter.quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
    #expect(JSONWriter.quoted("\u{08}\u{0C}") == #""\b\f""#)
    #expect(JSONWriter.quoted("\u{00}\u{01}\u{1F}") == #""\u0000\u0001\u001f""#)
  }

  @Test func stringsKeepSlashesAndNonASCIIAsTheyAre() {
    #expect(JSONWriter.quoted("a/b") == #""a/b""#)
    #expect(JSONWriter.quoted("京都 café 📷 %FF") == "\"京都 café 📷 %FF\"")
    // U+00A0 and U+00A9 are C2 A0 and C2 A9: the C1 check must not take them.
    #expect(JSONWriter.quoted("\u{A0}©\u{FF}") == "\"\u{A0}©\u{FF}\"")
  }

  @Test func deleteAndC1ControlsAreEscapedSoNoTerminalActsOnThem() {
    #expect(JSONWriter.quoted("\u{7F}") == #""\u007f""#)
    #expect(JSONWriter.quoted("a\u{80}b\u{9B}31m\u{9F}") == #""a\u0080b\u009b31m\u009f""#)
  }

  @Test func compactObjectsAreOneLineWithoutSpaces() {
    var writer = JSONWriter(compact: true)
    writer.object { json in
      json.key("a")
      json.array { array in
        array.integer(1)
        array.string("x y")
      }
      json.key("b")
      json.object { _ in }
    }
    #expect(writer.text == #"{"a":[1,"x y"],"b":{}}"#)
  }

  /// The URL, path and name written from a path's bytes (printable ASCII without `%`, `"`
  /// or `\\`, an extension of letters and digits) are the text ``Asset/urlString``,
  /// ``LibraryPath/escaped`` and ``Asset/name`` make; any other path takes those
  /// strings, escaped as JSON.
  @Test(arguments: [
    "2019/IMG_0001.JPG", "a/b/c/photo.heic", "noextension", "dir.d/noext", ".jpg", "a/.hidden",
    "x/trailing.", "x/two.dots.Png", "x/dash-ext.jp-g", "x/percent%41.jpg", "x/quote\".jpg",
    "x/back\\slash.jpg", "x/caf\u{E9}.jpg", "x/\u{7F}.jpg", "x/tab\t.jpg", "x/space name.JPG",
    "x/ext.caf\u{E9}",
  ])
  func assetTextIsTheTextTheAssetMakes(path: String) {
    let asset = Asset(
      path: LibraryPath(path), group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: LibraryPath(path), role: .photo, format: nil, fileSize: 1)],
      fileModificationDate: Date(timeIntervalSinceReferenceDate: 0), metadata: MediaMetadata())
    let text = AssetText(asset)
    #expect(json { text.writeURL(to: &$0) } == JSONWriter.quoted(asset.urlString))
    #expect(json { text.writePath(to: &$0) } == JSONWriter.quoted(asset.path.escaped))
    #expect(json { text.writeName(to: &$0) } == JSONWriter.quoted(asset.name))
  }

  /// The text of the one value `write` writes.
  private func json(_ write: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter()
    write(&writer)
    return writer.text
  }

  @Test func numbersAreShortestRoundTripAndNonFiniteIsNull() {
    #expect(json { $0.number(12.5) } == "12.5")
    #expect(json { $0.number(3.0) } == "3.0")
    #expect(json { $0.number(0.00001) } == "1e-05")
    #expect(json { $0.number(-33.856784) } == "-33.856784")
    #expect(json { $0.number(Double.nan) } == "null")
    #expect(json { $0.number(-Double.infinity) } == "null")
    #expect(json { $0.number(nil) } == "null")
    #expect(json { $0.integer(Int64.min) } == "-9223372036854775808")
    #expect(json { $0.integer(Int?.none) } == "null")
  }

  @Test func uuidsAreWrittenAsFoundationWritesThem() throws {
    for text in [
      "00000000-0000-0000-0000-000000000000", "7DB86573-E174-8850-B9A6-DFA356993491",
      "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "01234567-89AB-CDEF-0123-456789ABCDEF",
    ] {
      let uuid = try #require(UUID(uuidString: text))
      #expect(json { $0.string(uuid: uuid) } == "\"\(uuid.uuidString)\"")
    }
    #expect(json { $0.string(uuid: UUID()) }.count == 38)
  }

  /// Zones and fractions of a second the ISO 8601 writer must agree with `iso8601` on.
  static let zonesAndSubseconds: [(CaptureDate.Zone, String?)] = [
    (.unknown, nil), (.utc, "5"), (.offset(seconds: -(9 * 3600 + 1800)), "047"),
    (.offset(seconds: 5 * 3600 + 45 * 60), nil), (.offset(seconds: 0), "000001"),
  ]

  @Test(arguments: zonesAndSubseconds)
  func datesAreWrittenAsTheirISO8601Text(zone: CaptureDate.Zone, subsecond: String?) throws {
    for (year, month, day) in [(1, 1, 1), (2024, 2, 29), (9999, 12, 31), (987, 7, 4)] {
      let date = try #require(
        CaptureDate(
          year: year, month: month, day: day, hour: 7, minute: 5, second: 9,
          subsecond: subsecond, zone: zone, source: .exifDateTimeOriginal))
      #expect(json { $0.string(iso8601: date) } == "\"\(date.iso8601)\"")
    }
    #expect(json { $0.string(iso8601: nil) } == "null")
  }

  @Test func integersOfEveryWidthAndSignAreDecimal() {
    #expect(json { $0.integer(0) } == "0")
    #expect(json { $0.integer(-7) } == "-7")
    #expect(json { $0.integer(Int64.max) } == "9223372036854775807")
    #expect(json { $0.integer(UInt64.max) } == "18446744073709551615")
    #expect(json { $0.integer(UInt8(200)) } == "200")
  }

  @Test(arguments: [
    (-22.906799999999997, 7, "-22.9068"), (35.0116, 7, "35.0116"), (0.1 + 0.2, 7, "0.3"),
    (1e-5, 7, "0.00001"), (4e-8, 7, "0.0"), (-4e-8, 7, "0.0"), (180, 7, "180.0"),
    (-0.00000005, 7, "-0.0000001"), (12.3456, 3, "12.346"), (-0.0005, 3, "-0.001"),
    (1e300, 3, "1" + String(repeating: "0", count: 300) + ".0"),
    (123_456.78949, 3, "123456.789"), (2.5, 0, "3.0"), (-2.5, 0, "-3.0"),
    (0.0, 0, "0.0"), (-0.0, 7, "0.0"), (0.1, 15, "0.1"),
    (-8_999_999.123456789, 9, "-8999999.123456789"),
    // Too large for the decimals: a plain whole number, never an exponent.
    (1e16, 3, "10000000000000000.0"), (-1.5e16, 3, "-15000000000000000.0"),
    (9_007_199_254_740.992, 3, "9007199254741.0"), (0x1p63, 3, "9223372036854776000.0"),
    (-1.7976931348623157e308, 3, "-17976931348623157" + String(repeating: "0", count: 292) + ".0"),
    (.leastNonzeroMagnitude, 7, "0.0"),
  ])
  func roundedNumbersArePlainDecimalsWithNoFloatNoise(
    value: Double, places: Int, expected: String
  ) {
    let written = json { $0.number(value, decimalPlaces: places) }
    #expect(written == expected)
    if let parsed = Double(written), value.magnitude < 1e9 {
      let halfStep = 0.5 / (0..<places).reduce(1.0) { product, _ in product * 10 }
      #expect(abs(parsed - value) <= halfStep + 1e-12, "\(written) is the nearest decimal")
    }
    #expect(json { $0.number(nil, decimalPlaces: places) } == "null")
    #expect(json { $0.number(.nan, decimalPlaces: places) } == "null")
  }

  @Test func objectsKeepTheirKeyOrderAndNestWithTwoSpaces() {
    let text = json { writer in
      writer.object { object in
        object.key("z")
        object.integer(1)
        object.key("a")
        object.array { array in
          array.bool(true)
          array.null()
        }
        object.key("m")
        object.object { _ in }
        object.key("e")
        object.array { _ in }
      }
    }
    #expect(
      text == """
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

  /// Keys nested deeper than the precomputed indentation reaches get their commas and
  /// indentation, pretty and compact.
  @Test(arguments: [false, true])
  func deeplyNestedKeysGetTheirCommasAndIndentation(compact: Bool) {
    let depth = 20
    var writer = JSONWriter(compact: compact)
    func nest(_ level: Int, _ json: inout JSONWriter) {
      json.object { object in
        object.key("x")
        object.integer(level)
        object.key("child")
        if level < depth { nest(level + 1, &object) } else { object.null() }
        object.key("array")
        object.array { $0.string("v") }
      }
    }
    nest(1, &writer)
    func expected(_ level: Int) -> String {
      let pad = String(repeating: "  ", count: level)
      let inner = String(repeating: "  ", count: level - 1)
      let child = level < depth ? expected(level + 1) : "null"
      if compact { return #"{"x":\#(level),"child":\#(child),"array":["v"]}"# }
      return "{\n\(pad)\"x\": \(level),\n\(pad)\"child\": \(child),\n"
        + "\(pad)\"array\": [\n\(pad)  \"v\"\n\(pad)]\n\(inner)}"
    }
    #expect(writer.text == expected(1))
  }

  @Test func aWriterStartedAtALevelIndentsItsLinesToMatch() {
    var writer = JSONWriter(level: 1)
    writer.object { object in
      object.key("k")
      object.array { $0.string("v") }
    }
    #expect(writer.text == "{\n    \"k\": [\n      \"v\"\n    ]\n  }")
  }

  @Test func theLegacyDictionaryOfAPhotoWithGPSHasUnsignedDegreesAndRefs() throws {
    let asset = try SampleAssets.photoWithGPS()
    let url = asset.url.absoluteString
    #expect(url == "assets-library://asset/asset.JPG?id=\(asset.id.uuidString)&ext=JPG")
    #expect(
      JSONFormatter.legacyDictionary(for: asset) == """
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
      JSONFormatter.legacyDictionary(for: asset) == """
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
      JSONFormatter.object(for: asset) == """
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
          "make": "Apple",
          "model": "iPhone XS",
          "lensModel": "iPhone XS back dual camera 4.25mm f/1.8",
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
    let text = JSONFormatter.object(for: video)
    #expect(text.contains(#""legacy": null,"#))
    #expect(text.contains(#""duration": 3.5,"#))
    #expect(text.contains(#""creationDate": "2020-01-02T03:04:05Z","#))
    #expect(text.contains(#""creationDateSource": "quicktime:mvhd","#))
    #expect(text.contains(#""dateTime": null,"#))
    #expect(text.contains(#""orientation": null,"#))

    let photo = SampleAssets.photoWithoutGPS()
    let photoText = JSONFormatter.object(for: photo)
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
    let text = JSONFormatter.object(for: asset)
    #expect(text.contains(#""path": "bad%FF%FE%25.jpg","#))
    #expect(LibraryPath(escaped: "bad%FF%FE%25.jpg") == path)
  }

  @Test func sidecarsAreResourcesWithTheirRoleAndAddNothingToTheSize() throws {
    let text = JSONFormatter.object(for: try SampleAssets.livePhotoWithSidecars())
    #expect(
      text.contains(
        """
          "resources": [
            {
              "name": "IMG_0003.HEIC",
              "path": "IMG_0003.HEIC",
              "role": "photo"
            },
            {
              "name": "IMG_0003.MOV",
              "path": "IMG_0003.MOV",
              "role": "pairedVideo"
            },
            {
              "name": "IMG_0003.AAE",
              "path": "IMG_0003.AAE",
              "role": "sidecar"
            },
            {
              "name": "IMG_0003.HEIC.xmp",
              "path": "IMG_0003.HEIC.xmp",
              "role": "sidecar"
            }
          ],
        """))
    #expect(text.contains(#""fileSize": 1000,"#))
  }

  @Test func anEmptyListIsAnEmptyArray() {
    #expect(JSONFormatter.format(assets: []) == "[]\n")
  }
}
