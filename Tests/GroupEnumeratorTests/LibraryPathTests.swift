import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct LibraryPathTests {
  @Test func escapingRoundTripsInvalidUTF8AndPercent() {
    let path = LibraryPath(bytes: Array("a%b/".utf8) + [0xFF, 0xFE] + Array("é.jpg".utf8))
    #expect(path.escaped == "a%25b/%FF%FEé.jpg")
    #expect(LibraryPath(escaped: path.escaped) == path)
  }

  /// `String(validUTF8:)` agrees with `String(validating:as:)` on ASCII, valid multi-byte
  /// text, and every way of being invalid (a lone continuation byte, a cut sequence, an
  /// overlong form, a surrogate, past U+10FFFF), including after a long ASCII prefix.
  @Test(
    arguments: [
      [], Array("IMG_0001.JPG".utf8), Array("caf\u{E9} \u{1F4F7}.heic".utf8), [0x80], [0xC3],
      [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],
      Array(String(repeating: "a", count: 100).utf8) + [0xE2, 0x82],
      Array(String(repeating: "a", count: 100).utf8) + [0xE2, 0x82, 0xAC],
    ] as [[UInt8]])
  func validUTF8TextIsWhatValidatingGives(bytes: [UInt8]) {
    let expected = String(validating: bytes, as: UTF8.self)
    #expect(String(validUTF8: bytes) == expected)
    #expect(bytes.withUnsafeBufferPointer { String(validUTF8: $0) } == expected)
    #expect(LibraryPath(bytes: bytes).isValidUTF8 == (expected != nil))
  }

  /// `<` is the order of the bytes as unsigned numbers, a path before every longer path
  /// it begins: what `lexicographicallyPrecedes` gives, for bytes past 0x7F too (a signed
  /// comparison would put them first) and for paths that share a long prefix.
  @Test func pathsOrderByTheirUnsignedBytes() {
    let prefix = Array("2015/2015-01-01 Album 000/IMG_000".utf8)
    let paths: [[UInt8]] = [
      [], [0x00], [0x01], [0x7F], [0x80], [0xFF], [0xFF, 0x00], Array("a".utf8),
      Array("ab".utf8), Array("a/b".utf8), Array("a0".utf8), prefix, prefix + [0x31],
      prefix + [0x32], prefix + [0xC3, 0xA9], prefix + [0x31, 0x00],
    ]
    for left in paths {
      for right in paths {
        #expect(
          (LibraryPath(bytes: left) < LibraryPath(bytes: right))
            == left.lexicographicallyPrecedes(right), "\(left) < \(right)")
      }
    }
  }

  @Test func normalisationTwinsStayDistinct() {
    let nfc = LibraryPath("caf\u{E9}.jpg")
    let nfd = LibraryPath("cafe\u{301}.jpg")
    #expect(nfc != nfd)
    #expect(Set([nfc, nfd]).count == 2)
  }

  @Test func stableIdentifiersDependOnlyOnThePath() {
    let a = StableIdentifier.uuid(namespace: "asset", path: LibraryPath("Trips/a.jpg"))
    let b = StableIdentifier.uuid(namespace: "asset", path: LibraryPath("Trips/a.jpg"))
    let c = StableIdentifier.uuid(namespace: "asset", path: LibraryPath("Trips/b.jpg"))
    #expect(a == b)
    #expect(a != c)
    #expect(a.uuidString.dropFirst(14).first == "8")
    // The value is part of every asset URL: it must never change.
    let pinned = StableIdentifier.uuid(namespace: "asset", path: LibraryPath("IMG_9000.JPG"))
    #expect(pinned.uuidString == "7DB86573-E174-8850-B9A6-DFA356993491")
  }

  @Test func identifierTextIsUUIDString() throws {
    for path in ["", "Trips/a.jpg", "IMG_0001.JPG", "caf\u{E9}/x"] {
      let uuid = StableIdentifier.uuid(namespace: "asset", path: LibraryPath(path))
      #expect(StableIdentifier.text(of: uuid) == uuid.uuidString)
    }
    for text in ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"] {
      #expect(StableIdentifier.text(of: try #require(UUID(uuidString: text))) == text)
    }
  }
}

@Suite struct AssetURLTests {
  /// `urlString` skips Foundation for plain extensions: it must be `url`'s text for
  /// every kind of name.
  @Test(arguments: [
    "a.jpg", "IMG_0001.JPG", "noext", ".hidden", "x.tar.gz", "caf\u{E9}.h\u{E9}ic", "a.j pg",
    "a.j%g", "a.",
  ])
  func urlStringIsTheURLsText(name: String) {
    let path = LibraryPath("Album/" + name)
    let asset = Asset(
      path: path, group: .album, groupPath: LibraryPath("Album"), type: .photo,
      resources: [], fileModificationDate: Date(timeIntervalSince1970: 0),
      metadata: MediaMetadata())
    #expect(asset.urlString == asset.url.absoluteString)
  }

  @Test func urlStringOfANameThatIsNotUTF8() {
    let path = LibraryPath(bytes: Array("bad.j".utf8) + [0xFF])
    let asset = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo, resources: [],
      fileModificationDate: Date(timeIntervalSince1970: 0), metadata: MediaMetadata())
    #expect(asset.urlString == asset.url.absoluteString)
  }
}
