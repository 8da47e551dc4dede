import Foundation

/// Turns one scanned file into an asset: opens it beneath the root, hands it to the
/// reader for its format, and files every failure under the asset.
enum AssetReader {
  /// Reads `job`'s file. Never throws: problems end up in the asset.
  ///
  /// - Parameter rootDescriptor: An open descriptor of the library root.
  static func read(_ job: ReadJob, rootDescriptor: Int32) -> Asset {
    let file = job.file
    var metadata = MediaMetadata()
    if let problem = file.problem {
      metadata.problems.append(problem)
    } else if let format = file.format {
      metadata = readMetadata(of: file.path, format: format, rootDescriptor: rootDescriptor)
    }
    let role: AssetResource.Role = file.type == .video ? .video : .photo
    return Asset(
      path: file.path, group: job.group.kind, groupPath: job.group.path, type: file.type,
      resources: [
        AssetResource(path: file.path, role: role, format: file.format, fileSize: file.fileSize)
      ],
      fileModificationDate: file.modificationDate, metadata: metadata)
  }

  /// Reads the metadata of one file whose content sniffed as `format`.
  static func readMetadata(
    of path: LibraryPath, format: MediaFormat, rootDescriptor: Int32
  ) -> MediaMetadata {
    let read: (LibraryFile) -> MediaMetadata
    switch format {
    case .jpeg:
      read = { JPEGMetadataReader.read(from: PrefetchedByteSource($0)) }
    case .heic, .avif:
      // Our own box reader finds the primary item's size and the EXIF item (libexif reads
      // it): faster than gexiv2 and right where exiv2 0.27.6 is not (README, formats).
      read = { HEIFMetadataReader.read(from: $0) }
    case .png:
      // Our own chunk walk reads IHDR and the EXIF block (eXIf, or ImageMagick's raw
      // profile in a text chunk, which exiv2 0.27.6 misses); libexif decodes it.
      read = { PNGMetadataReader.read(from: PrefetchedByteSource($0)) }
    case .tiff, .raw:
      // exiv2 0.27.6 reads neither BigTIFF nor CR3 (an ISO-BMFF RAW): our own readers do.
      read = { readTIFFFamily(from: $0, format: format) }
    case .webp, .jpegXL:
      read = { Exiv2MetadataReader.read(from: $0, format: format) }
    case .quickTime, .mp4, .m4v, .threeGPP:
      // Never handed to gexiv2 (ROBUSTNESS §0.2): our own box reader reads movies.
      read = { QuickTimeMetadataReader.read(from: PrefetchedByteSource($0)) }
    case .gif, .bmp:
      // exiv2 0.27.6 reads no metadata from GIF or BMP; nothing else does yet.
      return MediaMetadata()
    case .avi, .matroska, .mpegTransportStream, .windowsMedia:
      // Never handed to gexiv2 (its video code is unsafe here), and not ours to read yet.
      var metadata = MediaMetadata()
      metadata.problems.append(
        AssetProblem(
          .unsupported,
          "The \(format.rawValue) container is not read; the date shown is the file's own time."))
      return metadata
    }
    do {
      return try LibraryFile.withOpened(rootDescriptor: rootDescriptor, path: path) {
        file throws(AssetProblem) in read(file)
      }
    } catch {
      var metadata = MediaMetadata()
      metadata.problems.append(error)
      return metadata
    }
  }

  /// Reads a file that sniffed as TIFF or RAW: BigTIFF (`II+\0`, `MM\0+`, whatever its
  /// name) with ``BigTIFFReader``, a RAW that is an ISO base media file (Canon CR3) with
  /// ``CR3MetadataReader``, everything else with gexiv2.
  static func readTIFFFamily(from file: some ByteSource, format: MediaFormat) -> MediaMetadata {
    let header = (try? file.bytes(at: 0, length: 8)) ?? []
    if BigTIFFReader.isBigTIFF(header: header) {
      return BigTIFFReader.read(from: file)
    }
    if format == .raw, CR3MetadataReader.isISOBaseMedia(header: header) {
      return CR3MetadataReader.read(from: PrefetchedByteSource(file))
    }
    return Exiv2MetadataReader.read(from: file, format: format)
  }
}
