import Foundation
import Testing

@testable import GroupEnumerator

@Suite struct LibraryPathTests {
  @Test func escapingRoundTripsInvalidUTF8AndPercent() {
    let path = LibraryPath(bytes: Array("a%b/".utf8) + [0xFF, 0xFE] + Array("é.jpg".utf8))
    #expect(path.escaped == "a%25b/%FF%FEé.jpg")
    #expect(LibraryPath(escaped: path.escaped) == path)
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
  }
}
