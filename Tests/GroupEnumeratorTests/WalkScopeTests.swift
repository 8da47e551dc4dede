import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

/// A walk of some folders (what a watcher lists after a change) finds exactly what the
/// full walk finds in those folders.
@Suite struct WalkScopeTests {
  /// A library with sidecars, a Live Photo pair, a Camera Roll of three folders, nested
  /// albums, and folders the walk never enters (hidden, NAS, a link out of the library).
  private func makeLibrary() throws -> (TemporaryFolder, TemporaryFolder) {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    try outside.write(SampleBytes.jpeg, as: "out.jpg")
    try folder.write(SampleBytes.jpeg, as: "IMG_0001.jpg")
    try folder.write(Array("<x:xmpmeta/>".utf8), as: "IMG_0001.xmp")
    try folder.add(Sample.liveStill, as: "DCIM/100APPLE/IMG_0200.HEIC")
    try folder.add(Sample.liveMovie, as: "DCIM/100APPLE/IMG_0200.MOV")
    try folder.write(SampleBytes.jpeg, as: "DCIM/101APPLE/IMG_0300.jpg")
    try folder.write(SampleBytes.jpeg, as: "Album/a.jpg")
    try folder.write(Array("notes".utf8), as: "Album/notes.txt")
    try folder.write(SampleBytes.jpeg, as: "Trips/Rome/r.jpg")
    try folder.write(SampleBytes.jpeg, as: "Trips/Rome/Day 2/d.jpg")
    try folder.write(SampleBytes.jpeg, as: "Trips/Paris/p.jpg")
    try folder.write(SampleBytes.jpeg, as: ".hidden/h.jpg")
    try folder.write(SampleBytes.jpeg, as: "@eaDir/t.jpg")
    try folder.symlink("Link", to: outside.path)
    return (folder, outside)
  }

  @Test func someFoldersAreListedAsTheFullWalkListsThem() throws {
    let (folder, outside) = try makeLibrary()
    _ = outside
    let scanner = LibraryScanner(root: folder.path, options: LibraryOptions())
    let full = try scanner.scan()
    let listed = Locked<[LibraryPath]>([])
    let scope = WalkScope(
      folders: [
        .root, LibraryPath("DCIM/100APPLE"), LibraryPath("DCIM/101APPLE"), LibraryPath("Album"),
        LibraryPath(".hidden"), LibraryPath("@eaDir"), LibraryPath("Link"),
      ],
      subtrees: [LibraryPath("Trips/Rome"), LibraryPath("Gone")],
      didListFolder: { path in listed.mutex.withLock { $0.append(path) } })
    let part = try scanner.scan(in: try LibraryRoot(path: folder.path), scope: scope)
    let wanted: Set<LibraryPath> = [
      .root, LibraryPath("Album"), LibraryPath("Trips/Rome"), LibraryPath("Trips/Rome/Day 2"),
    ]
    #expect(part.groups == full.groups.filter { wanted.contains($0.path) })
    #expect(part.groups.count == 4)
    #expect(
      part.otherFiles == full.otherFiles.filter { wanted.contains($0.path.parent) })
    #expect(
      Set(listed.mutex.withLock { $0 }) == [
        .root, LibraryPath("DCIM/100APPLE"), LibraryPath("DCIM/101APPLE"), LibraryPath("Album"),
        LibraryPath("Trips/Rome"), LibraryPath("Trips/Rome/Day 2"),
      ])
    // The Camera Roll, listed through all its folders, has the pair and the sidecar.
    let cameraRoll = try #require(part.groups.first { $0.kind == .savedPhotos })
    #expect(cameraRoll.files.count == 4)
    #expect(cameraRoll.files.first { $0.path == LibraryPath("IMG_0001.jpg") }?.sidecars.count == 1)
  }

  @Test func theRootAsASubtreeIsTheFullWalk() throws {
    let (folder, outside) = try makeLibrary()
    _ = outside
    let scanner = LibraryScanner(root: folder.path, options: LibraryOptions())
    let full = try scanner.scan()
    let part = try scanner.scan(
      in: try LibraryRoot(path: folder.path), scope: WalkScope(subtrees: [.root]))
    #expect(part.groups == full.groups)
    #expect(part.otherFiles == full.otherFiles)
  }
}
