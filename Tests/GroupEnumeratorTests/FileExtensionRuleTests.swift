import Foundation
import GroupEnumerator
import Testing

@_spi(Demo) @testable import GroupEnumeratorCore

/// The one rule for a file's extension (``LibraryPath/extensionStart(inName:)``), as the
/// asset URL, the `--ext` selection and the choice of reader by name apply it.
@Suite struct FileExtensionRuleTests {
  /// The extension is what follows the last dot after the name's first byte; a leading
  /// dot starts a hidden file's name, and a final dot gives an empty extension.
  @Test(
    arguments: [
      ("IMG_0001.JPG", "JPG"), ("a.b.heic", "heic"), ("folder.d/IMG", nil),
      (".jpg", nil), ("..jpg", "jpg"), ("IMG.", ""), ("noextension", nil),
    ] as [(String, String?)])
  func theExtensionFollowsTheLastDotAfterTheFirstByte(name: String, expected: String?) {
    let bytes = LibraryPath(name).lastComponentBytes
    let found = LibraryPath.extensionStart(inName: bytes).map {
      String(decoding: bytes[$0...], as: UTF8.self)
    }
    #expect(found == expected, "\(name)")
    #expect(LibraryPath(name).fileExtension == expected ?? "", "\(name)")
  }

  @Test func extensionsCompareLowerCasedInASCIIOnly() {
    #expect(LibraryPath.lowercasedASCII(Array("JPG".utf8)) == Array("jpg".utf8))
    #expect(LibraryPath.lowercasedASCII(Array("ÉPS".utf8)) == Array("Éps".utf8))
  }

  /// The three users agree on a hidden file's name and on case.
  @Test func theSelectionAndTheSnifferFollowTheSameRule() {
    let selection = FileSelection(extensions: ["jpg"])
    #expect(selection.includesFile(at: LibraryPath("DCIM/IMG.JPG")))
    #expect(!selection.includesFile(at: LibraryPath("DCIM/.jpg")))
    #expect(MediaSniffer.lowercasedExtension(of: Array("IMG.JPG".utf8)) == "jpg")
    #expect(MediaSniffer.lowercasedExtension(of: Array(".jpg".utf8)) == nil)
  }

  /// The edge where the users differ, kept as it was: `--ext .` (an empty extension)
  /// selects names that end in a dot, while the sniffer finds no reader by an empty
  /// extension and the URL's extension is empty.
  @Test func anEmptyExtensionIsSelectableButNamesNoReader() {
    let selection = FileSelection(extensions: ["."])
    #expect(selection.includesFile(at: LibraryPath("IMG.")))
    #expect(!selection.includesFile(at: LibraryPath("IMG")))
    #expect(MediaSniffer.lowercasedExtension(of: Array("IMG.".utf8)) == nil)
    #expect(LibraryPath("IMG.").fileExtension == "")
  }
}
