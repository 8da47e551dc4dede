import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct ISO6709Tests {
  /// Every Annex H form, with and without zero padding, `/`, altitude, CRS and NULs.
  @Test(arguments: [
    // Degrees, padded, as most writers do.
    ("+35.0116+135.7681+050.000/", 35.0116, 135.7681, 50.0 as Double?),
    ("-33.8568+151.2153/", -33.8568, 151.2153, nil),
    ("+48.8577+002.295/", 48.8577, 2.295, nil),
    ("+27.1281+100.2508+000.000/", 27.1281, 100.2508, 0),
    ("+40.7128-074.006+10.000/", 40.7128, -74.006, 10),
    ("+35-120/", 35, -120, nil),
    ("+90.0000-180.0000/", 90, -180, nil),
    // Degrees without padding: a Google Pixel's ©xyz, 1–2 latitude and 1–3 longitude digits.
    ("+47.5383-2.8919+000.000/", 47.5383, -2.8919, 0),
    ("+48.8125+2.4862+000.000/", 48.8125, 2.4862, 0),
    ("+5.6037-0.1870/", 5.6037, -0.187, nil),
    ("-1.2921+36.8219/", -1.2921, 36.8219, nil),
    ("+0+0/", 0, 0, nil),
    ("-9-79.5/", -9, -79.5, nil),
    ("+35.0116+35.7681/", 35.0116, 35.7681, nil),
    // No closing `/`: Apple's ISO6709 key as some writers leave it.
    ("+29.758938-095.36770", 29.758938, -95.3677, nil),
    ("+29.758938-095.36770+012.5", 29.758938, -95.3677, 12.5),
    ("+35.0116+135.7681+050.000", 35.0116, 135.7681, 50),
    ("+1.5+2.5", 1.5, 2.5, nil),
    // Degrees and minutes, degrees minutes and seconds (full widths).
    ("+4030.5-07330.5/", 40.508333, -73.508333, nil),
    ("+4030-07330/", 40.5, -73.5, nil),
    ("+403000.5-0733000-12.5/", 40.500139, -73.5, -12.5),
    ("+404530.24-0735845.36/", 40.758400, -73.979267, nil),
    ("-335130-1511255+10/", -33.858333, -151.215278, 10),
    // CRS, trailing NULs, both.
    ("+35.0+135.0+50CRSWGS_84/", 35, 135, 50),
    ("+35.0+135.0/\0\0", 35, 135, nil),
    ("+47.5383-2.8919+000.000/\0", 47.5383, -2.8919, 0),
    ("+35.0+135.0CRSWGS_84", 35, 135, nil),
    ("+29.758938-095.36770\0\0\0", 29.758938, -95.3677, nil),
  ])
  func validPointsAreRead(text: String, latitude: Double, longitude: Double, altitude: Double?)
    throws
  {
    let location = try #require(ISO6709.location(parsing: text))
    #expect(abs(location.latitude - latitude) < 1e-6)
    #expect(abs(location.longitude - longitude) < 1e-6)
    #expect(location.altitude == altitude)
  }

  @Test(arguments: [
    "", "/", "\0", "35.0116+135.7681/", "+35.0116 +135.7681/", "+35.0116", "+35.0116/",
    "+135.0116+135.7681/", "+91.0+000.0/", "+00.0+181.0/", "+4060.0+00000.0/",
    "+403060+0000000/", "+35.+135.0/", "+35.0+135.0/x", "+35.0+135.0//", "+35.0+135.0+/",
    "+35.0+135.0CRS/", "+3a.0+135.0/", "+35,0+135,0/", "+1234567.0+135.0/",
    // A digit count no form gives: 3 or 5 latitude digits, 4 or 6 longitude digits.
    "+403.5+135.0/", "+40305.5+135.0/", "+35.0+1350.5/", "+35.0+135000/",
    // Garbage around a valid point, signs doubled, a second slash-less point.
    " +35.0+135.0/", "+35.0+135.0 ", "++35.0+135.0/", "+35.0+135.0+1+2/",
    "+35.0-+135.0/", "+35.0+135.0/+1", "+35.0+135.0\u{0}x", "−35.0+135.0/",
    "+99999999999999999999999.0+135.0/", "+35.0+135.0+1e400/",
  ])
  func malformedPointsAreRejected(text: String) {
    #expect(ISO6709.location(parsing: text) == nil)
  }

  @Test func aLongRunOfDigitsIsRejectedWithoutCrashing() {
    let digits = String(repeating: "9", count: 4096)
    #expect(ISO6709.location(parsing: "+" + digits + "+" + digits + "/") == nil)
    #expect(ISO6709.location(parsing: "+1.0+2.0+" + digits + "/") == nil)
    #expect(ISO6709.location(parsing: "+1." + digits + "+2.0/") != nil)
  }
}

@Suite struct QuickTimeDateTextTests {
  @Test(arguments: [
    ("2021-06-01T19:00:00+0900", "2021-06-01T19:00:00+09:00"),
    ("2021-06-01T19:00:00+09:00", "2021-06-01T19:00:00+09:00"),
    ("2019-02-12T15:27:12-0330", "2019-02-12T15:27:12-03:30"),
    ("2019-02-12T15:27:12+08", "2019-02-12T15:27:12+08:00"),
    ("2019-02-12T15:27:12Z", "2019-02-12T15:27:12Z"),
    ("2019-02-12T15:27:12.250+0100", "2019-02-12T15:27:12.250+01:00"),
    ("2019-02-12T15:27:12", "2019-02-12T15:27:12"),
    ("2020-02-29T00:00:00+0000\0", "2020-02-29T00:00:00+00:00"),
  ])
  func acceptedFormsParse(text: String, iso8601: String) throws {
    let date = try #require(QuickTimeDateText.captureDate(parsing: text))
    #expect(date.iso8601 == iso8601)
    #expect(date.source == .quickTimeCreationDate)
  }

  @Test(arguments: [
    "", "2021", "2021-06-01", "2021-06-01 19:00:00+0900", "2021:06:01T19:00:00+0900",
    "2021-13-01T19:00:00+0900", "2021-02-30T19:00:00+0900", "2021-06-01T24:00:00+0900",
    "2021-06-01T19:60:00+0900", "2021-06-01T19:00:00+1900", "2021-06-01T19:00:00+0960",
    "2021-06-01T19:00:00+090", "2021-06-01T19:00:00+09:0", "2021-06-01T19:00:00 +0900",
    "2021-06-01T19:00:00.+0900", "2021-06-01T19:00:00+0900x", "2021-06-01T19:00:00ZZ",
    "0000-00-00T00:00:00Z", "２０２１-06-01T19:00:00Z", "2021-06-01T19:00:00+09:00:00",
  ])
  func everythingElseIsRejected(text: String) {
    #expect(QuickTimeDateText.captureDate(parsing: text) == nil)
  }
}
