import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// `--verify`: the listing checks every photo's end (``LibraryOptions/verifiesFileEnds``).
@Suite struct VerifyOptionTests {
  @Test func verifyTurnsTheEndCheckOnForTheListingOnly() throws {
    let parsed = try ArgumentParser.parse(["--verify", "--format", "json", "/srv/photos"])
    guard case .run(let options) = parsed else {
      Issue.record("parsed as \(parsed)")
      return
    }
    #expect(options.verifiesFileEnds)
    #expect(options.libraryOptions.verifiesFileEnds)
    let plain = try ArgumentParser.parse(["/srv/photos"])
    guard case .run(let without) = plain else {
      Issue.record("parsed as \(plain)")
      return
    }
    #expect(!without.libraryOptions.verifiesFileEnds)
    #expect(throws: UsageError.self) { try ArgumentParser.parse(["groups", "--verify"]) }
  }
}
