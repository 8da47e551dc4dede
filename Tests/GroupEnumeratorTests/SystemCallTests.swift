import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// The OS layer (`Library/System`): failures name the C function that failed and its
/// `errno`, and the library's messages pass both on.
@Suite struct SystemCallTests {
  @Test func aRootThatIsALinkLoopFailsNamingOpenAndELOOP() throws {
    let folder = try TemporaryFolder()
    try folder.symlink("loop", to: "loop")
    let root = folder.absolute("loop")
    #expect(throws: LibraryError.unreadableRoot(path: root, call: "open", errno: ELOOP)) {
      _ = try LibraryRoot(path: root)
    }
    let message = LibraryError.unreadableRoot(path: root, call: "open", errno: ELOOP).description
    #expect(
      message.hasPrefix("Cannot read the photo library at '\(root)': open failed (errno \(ELOOP): ")
    )
  }

  @Test func readingAFolderFailsNamingPread() throws {
    let folder = try TemporaryFolder()
    let descriptor = try FileDescriptor.open(folder.path, options: [.directory, .closeOnExec])
    defer { descriptor.close() }
    var byte: UInt8 = 0
    #expect(throws: SystemCallError(function: "pread", errno: Errno(rawValue: EISDIR))) {
      _ = try withUnsafeMutableBytes(of: &byte) { buffer in
        try descriptor.read(into: buffer, atAbsoluteOffset: 0)
      }
    }
  }

  @Test func openingBeneathRefusesLinksAndParents() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("real")
    try folder.write("real/a.jpg", SampleBytes.jpeg)
    try folder.symlink("linked", to: "real")
    let root = try LibraryRoot(path: folder.path)
    try #require(FileDescriptor.isOpenBeneathAvailable, "the kernel has no openat2")
    let opened = try #require(
      try root.descriptor.openBeneath(Array("real/a.jpg".utf8), options: [.closeOnExec]))
    #expect(try opened.status().kind == .regular)
    opened.close()
    #expect(throws: SystemCallError(function: "openat2", errno: .tooManySymbolicLinkLevels)) {
      _ = try root.descriptor.openBeneath(Array("linked/a.jpg".utf8), options: [.closeOnExec])
    }
    #expect(throws: SystemCallError(function: "openat2", errno: .improperLink)) {
      _ = try root.descriptor.openBeneath(Array("real/../../x".utf8), options: [.closeOnExec])
    }
  }
}
