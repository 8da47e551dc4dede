import Foundation
import GroupEnumerator
import Testing

@_spi(Demo) @testable import GroupEnumeratorCore

/// The contract's text rules, each written once in the library: ISO 8601 with its offset,
/// the `±HH:MM` offset alone, the file extension, and the legacy GPS dictionary.
@Suite struct ContractTextTests {
  static let zones: [(CaptureDate.Zone, String, String?)] = [
    (.utc, "Z", nil),
    (.unknown, "", nil),
    (.offset(seconds: 9 * 3600), "+09:00", "+09:00"),
    (.offset(seconds: -(5 * 3600 + 30 * 60)), "-05:30", "-05:30"),
    (.offset(seconds: 0), "+00:00", "+00:00"),
    (.offset(seconds: 18 * 3600), "+18:00", "+18:00"),
    (.offset(seconds: -(3600 + 59)), "-01:00", "-01:00"),
  ]

  @Test(arguments: 0..<zones.count)
  func iso8601AndTheOffsetTextAgreeForEveryZone(index: Int) throws {
    let (zone, suffix, offsetText) = ContractTextTests.zones[index]
    let date = try #require(
      CaptureDate(
        year: 7, month: 1, day: 2, hour: 3, minute: 4, second: 5, subsecond: "0120",
        zone: zone, source: .exifDateTimeOriginal))
    #expect(date.iso8601 == "0007-01-02T03:04:05.0120" + suffix)
    #expect(date.withISO8601UTF8 { Array($0) } == Array(date.iso8601.utf8))
    #expect(zone.offsetText == offsetText)
  }

  @Test func iso8601HasNoFractionWithoutSubsecondDigits() throws {
    let date = try #require(
      CaptureDate(
        year: 2019, month: 12, day: 31, hour: 23, minute: 59, second: 60, zone: .utc,
        source: .quickTimeMovieHeader))
    #expect(date.iso8601 == "2019-12-31T23:59:60Z")
  }

  @Test func aLongRunOfSubsecondDigitsIsKeptWhole() throws {
    let digits = String(repeating: "9", count: 200)
    let date = try #require(
      CaptureDate(
        year: 2020, month: 2, day: 29, hour: 0, minute: 0, second: 0, subsecond: digits,
        zone: .offset(seconds: 3600), source: .exifDateTimeOriginal))
    #expect(date.iso8601 == "2020-02-29T00:00:00.\(digits)+01:00")
  }

  @Test(arguments: [
    ("IMG_1.JPG", "JPG"), ("a/b/c.tar.gz", "gz"), (".hidden", ""), ("noext", ""),
    ("trailing.", ""), ("Album.d/file", ""),
  ])
  func theFileExtensionIsWhatFollowsTheLastDotOfTheName(path: String, expected: String) {
    #expect(LibraryPath(path).fileExtension == expected)
  }

  @Test func theFileExtensionOfBytesThatAreNotUTF8IsEscaped() {
    let path = LibraryPath(bytes: Array("x.".utf8) + [0xFF])
    #expect(path.fileExtension == "%FF")
  }

  @Test func theLegacyGPSIsUnsignedDegreesWithHemispheres() throws {
    let southWest = try #require(Location(latitude: -33.5, longitude: -151.25))
    #expect(
      LegacyGPS(southWest)
        == .coordinates(
          latitude: Location.UnsignedCoordinate(degrees: 33.5, reference: "S"),
          longitude: Location.UnsignedCoordinate(degrees: 151.25, reference: "W")))
    let origin = try #require(Location(latitude: 0, longitude: 0))
    #expect(origin.unsignedLatitude.reference == "N")
    #expect(origin.unsignedLongitude.reference == "E")
    let dictionary = LegacyGPS(southWest).dictionary
    #expect(dictionary["Latitude"] as? Double == 33.5)
    #expect(dictionary["LongitudeRef"] as? String == "W")
    #expect(dictionary.count == 4)
  }

  @Test func withoutALocationTheLegacyGPSIsTheTwoZeroStrings() {
    let dictionary = LegacyGPS(nil).dictionary
    #expect(dictionary.count == 2)
    #expect(dictionary["Latitude"] as? String == "0.0")
    #expect(dictionary["Longitude"] as? String == "0.0")
  }
}
