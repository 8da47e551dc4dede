/// Reads an asset's sidecars — `.xmp` files and Google Takeout `.json` files — where its
/// own metadata left a date or a place unknown, and applies them through
/// ``XMPFallback`` (which decides precedence: the file's own metadata, then its embedded
/// XMP, then an `.xmp` sidecar, then a Takeout sidecar).
///
/// A sidecar is opened like the media file, beneath the library root (`openat`
/// relative, `O_NOFOLLOW`, read-only, a regular file only), in the same reader job, after
/// the media file has been closed: one descriptor per job at a time, as before. It is read
/// whole up to ``maximumSize`` bytes; a larger one is not read and is a problem on the
/// asset, as is one that cannot be opened or parsed. Nothing else changes for the asset:
/// it is listed as it would be without the sidecar.
enum SidecarReader {
  /// The largest sidecar read. Takeout sidecars are about 1 KiB; XMP sidecars a few KiB,
  /// a few hundred with a long edit history.
  static let maximumSize = 1 << 20

  /// What a sidecar is, by its extension.
  enum Kind {
    /// An `.xmp` file: an XMP packet.
    case xmp
    /// A Google Takeout `.json` file.
    case takeout
  }

  /// The kind of a sidecar resource, or `nil` for one that is never read (`.aae`,
  /// `.thm`, `.lrv`, …).
  static func kind(of sidecar: AssetResource) -> Kind? {
    switch MediaSniffer.lowercasedExtension(of: sidecar.path.lastComponentBytes) {
    case "xmp": .xmp
    case "json": .takeout
    default: nil
    }
  }

  /// Applies `sidecars` to `metadata`: the `.xmp` ones first (by path), then the Takeout
  /// ones; each only where a gap is left. Nothing is opened when the file's own metadata
  /// already has a date and a place.
  ///
  /// - Parameters:
  ///   - sidecars: The asset's sidecar resources.
  ///   - root: The open library root.
  ///   - metadata: The media file's metadata, completed in place.
  static func apply(
    _ sidecars: [AssetResource], root: LibraryRoot, to metadata: inout MediaMetadata
  ) {
    let readable = sidecars.compactMap { sidecar in kind(of: sidecar).map { (sidecar, $0) } }
    let ordered =
      readable.filter { $0.1 == .xmp } + readable.filter { $0.1 == .takeout }
    for (sidecar, kind) in ordered {
      guard XMPFallback.gaps(in: metadata).needsDateOrPlace else { return }
      let name = LibraryPath.escape(sidecar.path.lastComponentBytes)
      let bytes: [UInt8]
      do {
        bytes = try contents(of: sidecar.path, root: root)
      } catch {
        if error.code == .unsupported {
          metadata.reportTrippedBudget(error)
        } else {
          metadata.report(error)
        }
        continue
      }
      switch kind {
      case .xmp: XMPFallback.applySidecar(bytes, named: name, to: &metadata)
      case .takeout: XMPFallback.applyTakeout(bytes, named: name, to: &metadata)
      }
    }
  }

  /// A sidecar's bytes, read beneath the root.
  ///
  /// - Throws: An ``AssetProblem``: ``AssetProblem/Code/unsupported`` for a sidecar larger
  ///   than ``maximumSize``, else why it could not be opened or read.
  static func contents(of path: LibraryPath, root: LibraryRoot) throws(AssetProblem) -> [UInt8] {
    try LibraryFile.withOpened(root: root, path: path) { file throws(AssetProblem) in
      guard file.count <= maximumSize else {
        throw AssetProblem(
          .unsupported,
          "The sidecar '\(path.escaped)' is \(file.count) bytes; sidecars are read up to "
            + "\(maximumSize) bytes, so it was not read.")
      }
      return try file.bytes(at: 0, length: file.count)
    }
  }
}
