import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// A packet whose one description holds `body` (attributes, then `>` and any elements).
private func packet(_ body: String) -> [UInt8] {
  Array(
    """
    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
    xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
    xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
    xmlns:tiff="http://ns.adobe.com/tiff/1.0/" \(body)
    </rdf:Description></rdf:RDF></x:xmpmeta>
    """.utf8)
}

/// Metadata with a date and a camera from EXIF but no place: the gap a phone with its
/// location turned off leaves.
private func withoutPlace() -> MediaMetadata {
  var metadata = MediaMetadata()
  metadata.dateTimeOriginal = CaptureDate(
    utc: Date(timeIntervalSince1970: 1_600_000_000), source: .exifDateTimeOriginal)
  metadata.make = "Apple"
  return metadata
}

@Suite struct XMPGatingTests {
  @Test func aPacketThatNamesNoPropertyForTheGapIsNotParsed() {
    // Broken XML: a parse would report it. Without a position property it is not parsed.
    let broken = packet(#"xmp:Rating="3" xmp:CreateDate="2020-01-01T10:00:00">"#).dropLast(12)
    var metadata = withoutPlace()
    #expect(XMPFallback.apply(Array(broken), to: &metadata) == nil)
    #expect(metadata.problems.isEmpty && metadata.location == nil)
    // The same packet naming a position is parsed, and its fault is reported.
    let named = packet(#"exif:GPSLatitude="48,51.5N">"#).dropLast(12)
    #expect(XMPFallback.apply(Array(named), to: &metadata) != nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  @Test func aPacketThatNamesAPropertyForTheGapFillsIt() {
    var metadata = withoutPlace()
    let text = packet(#"exif:GPSLatitude="48,51.5N" exif:GPSLongitude="2,17.7E">"#)
    #expect(XMPFallback.apply(text, to: &metadata) != nil)
    #expect(metadata.location.map { abs($0.latitude - 48.858333) < 1e-5 } == true)
    // Dates and the camera are named by their own properties.
    var undated = MediaMetadata()
    undated.location = Location(latitude: 1, longitude: 2, altitude: nil)
    undated.model = "X"
    #expect(XMPFallback.apply(text, to: &undated) == nil)
    #expect(
      XMPFallback.apply(packet(#"xmp:CreateDate="2020-01-01T10:00:00">"#), to: &undated) != nil)
    #expect(undated.xmpDate != nil)
    var nameless = MediaMetadata()
    nameless.location = Location(latitude: 1, longitude: 2, altitude: nil)
    nameless.xmpDate = undated.xmpDate
    #expect(XMPFallback.apply(packet(#"tiff:Model="Pixel 8">"#), to: &nameless) != nil)
    #expect(nameless.model == "Pixel 8")
  }

  @Test func aUTF16PacketIsAlwaysParsedWhenThereIsAGap() throws {
    // Its names are not the UTF-8 bytes searched for.
    let text = String(
      decoding: packet(#"exif:GPSLatitude="48,51.5N" exif:GPSLongitude="2,17.7E">"#), as: UTF8.self)
    let units = Array(text.utf16)
    let little: [UInt8] = [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let big: [UInt8] = [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    for bytes in [little, big] {
      var metadata = withoutPlace()
      #expect(XMPFallback.apply(bytes, to: &metadata) != nil)
      #expect(metadata.location != nil)
    }
  }

  @Test func aMotionPhotoPacketIsParsedForTheGapEvenWithoutItsNames() {
    // Parsed by the locator anyway, so its problems are reported as the fallback's.
    let text = packet(
      #"xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="1">"#
    ).dropLast(12)
    var metadata = withoutPlace()
    #expect(XMPFallback.apply(Array(text), to: &metadata) != nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  /// Every offset, every pattern length up to 5, over bytes with repeated first bytes:
  /// the search agrees with a plain one.
  @Test func theByteSearchAgreesWithAPlainSearch() {
    let bytes: [UInt8] = Array("aabaabbaaababXbaaZ".utf8)
    func plain(_ pattern: [UInt8]) -> Bool {
      guard !pattern.isEmpty, pattern.count <= bytes.count else { return false }
      return (0...(bytes.count - pattern.count)).contains {
        Array(bytes[$0..<($0 + pattern.count)]) == pattern
      }
    }
    var patterns: [[UInt8]] = [[], Array(bytes), Array(bytes) + [0x61], [0x5A], [0x00]]
    for start in bytes.indices {
      for length in 1...5 where start + length <= bytes.count {
        patterns.append(Array(bytes[start..<(start + length)]))
        patterns.append(Array(bytes[start..<(start + length)]) + [0x58])
      }
    }
    for pattern in patterns {
      #expect(ByteSearch.contains(bytes, pattern) == plain(pattern), "\(pattern)")
    }
    #expect(!ByteSearch.contains([], [0x61]))
  }

  @Test func aFloodOfNearMatchesIsSearchedToItsEnd() {
    // 2 MiB of a name's first ten letters over and over: every one is a candidate.
    let near = Array(repeating: Array("MotionPhot".utf8), count: 200_000).flatMap { $0 }
    #expect(!MotionPhotoLocator.mayDescribeMotionPhoto(near))
    #expect(MotionPhotoLocator.mayDescribeMotionPhoto(near + Array("MotionPhoto".utf8)))
    #expect(
      !XMPMarkers.mayFill(.init(needsDate: true, needsPlace: true, needsCamera: true), from: near))
  }
}
