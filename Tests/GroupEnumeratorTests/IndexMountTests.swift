import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// An index path that reaches the library through a mount: ``IndexStore/mountedLibraryFolder
/// (holding:rootPath:mounts:)`` over `/proc/self/mountinfo` lines written here (the
/// process test `anIndexInABindMountOfALibraryFolderIsRefused` mounts for real).
@Suite struct IndexMountTests {
  private let table = """
    22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
    40 22 254:0 /home/me/Photos/Trips /mnt/trips rw,relatime - ext4 /dev/vda rw
    41 22 254:0 /home/me/Other /mnt/other rw,relatime - ext4 /dev/vda rw
    42 22 0:50 / /media/photos rw,relatime - overlay overlay rw,lowerdir=/srv/base:/srv/more,upperdir=/srv/up,workdir=/srv/work
    43 22 254:0 /home/me/with\\040space /mnt/sp rw - ext4 /dev/vda rw
    """

  private func inside(_ folder: String, _ root: String) -> String? {
    IndexStore.mountedLibraryFolder(
      holding: folder, rootPath: root, mounts: IndexStore.mounts(in: table))
  }

  @Test func aBindMountOfALibraryFolderIsTheLibrary() {
    #expect(inside("/mnt/trips", "/home/me/Photos") == "/mnt/trips")
    #expect(inside("/mnt/trips/deeper", "/home/me/Photos") == "/mnt/trips/deeper")
    // And the library bind-mounted, seen from its real place.
    #expect(inside("/home/me/Photos/Trips", "/mnt/trips") == "/home/me/Photos/Trips")
  }

  @Test func otherFoldersAreNot() {
    #expect(inside("/mnt/other", "/home/me/Photos") == nil)
    #expect(inside("/home/me/PhotosX", "/home/me/Photos") == nil)
    #expect(inside("/tmp", "/home/me/Photos") == nil)
    #expect(inside("/media/photos2", "/media/photos") == nil)
  }

  @Test func theLayersOfAnOverlayLibraryAreTheLibrary() {
    for layer in ["/srv/up", "/srv/up/x", "/srv/base", "/srv/more/y", "/srv/work"] {
      #expect(inside(layer, "/media/photos/2024") == layer, "\(layer)")
    }
    #expect(inside("/srv/upper", "/media/photos") == nil)
  }

  @Test func escapedMountPointsAreRead() {
    let mounts = IndexStore.mounts(in: table)
    #expect(mounts.count == 5)
    #expect(mounts.last?.mountPoint == "/mnt/sp")
    #expect(mounts.last?.root == "/home/me/with space")
    #expect(inside("/mnt/sp", "/home/me/with space") == "/mnt/sp")
  }
}
