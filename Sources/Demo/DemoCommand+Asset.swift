import CStandardDescriptors
import Dispatch
import FoundationEssentials
import Glibc
import GroupEnumeratorCore
import Synchronization

/// The commands about one asset: `lookup` and `thumbnail`.
extension DemoCommand {
  /// `Demo lookup`: prints the object of the asset named by URL or path.
  static func lookup(
    _ options: DemoOptions, _ location: LibraryLocation, stdout: inout some TextOutputStream,
    stderr: inout some TextOutputStream
  ) async throws(LibraryError) -> Int32 {
    guard let asset = try await findAsset(options, location, stderr: &stderr) else {
      return failure
    }
    stdout.write(JSONFormatter.object(for: asset) + "\n")
    return success
  }

  /// The asset `lookup` and `thumbnail` name, by URL or by path; `nil` after printing
  /// why there is none.
  private static func findAsset(
    _ options: DemoOptions, _ location: LibraryLocation, stderr: inout some TextOutputStream
  ) async throws(LibraryError) -> Asset? {
    guard let reference = options.asset else { return nil }
    let library = location.library
    let strings = Strings(language: options.language)
    let root = library.root.path
    let display = location.displayPath
    let url: URL
    let path: LibraryPath?
    do throws(AssetLocation.Failure) {
      (url, path) = try AssetLocation.resolve(reference, root: root)
    } catch {
      switch error {
      case .outsideLibrary(let given, _):
        let message = strings.outsideLibrary(given, library: display)
        stderr.write("Error: \(OutputHygiene.message(message))\n")
      }
      return nil
    }
    // A path finds the asset any of whose files it is (a Live Photo's movie, a sidecar).
    let found: Asset?
    if let path {
      found = try await library.asset(at: path)
    } else {
      found = try await library.asset(for: url)
    }
    guard let asset = found else {
      var message =
        path.map { strings.noAssetAtPath($0.escaped, library: display) }
        ?? strings.assetNotFound(url.absoluteString, library: display)
      if let path, let other = try await library.otherFile(at: path) {
        message = strings.notAnAsset(path.escaped, reason: other.message)
      }
      stderr.write("Error: \(OutputHygiene.message(message))\n")
      return nil
    }
    return asset
  }

  /// Where pictures of `library`'s assets are drawn: in up to `workers` worker processes
  /// running `executable` (``WorkerPictures``), or in this process when it is `nil` or
  /// cannot be run (no /proc: a worker could not be given the library either).
  nonisolated static func pictureSource(
    _ library: AssetsLibrary, workers: Int, executable: String?, handsOnStored: Bool = false
  ) -> any PictureSource {
    guard let executable, access(executable, X_OK) == 0 else {
      return InProcessPictures(library: library, handsOnStored: handsOnStored)
    }
    return WorkerPictures(
      library: library, executable: executable, workers: workers, handsOnStored: handsOnStored)
  }

  /// `Demo thumbnail`: writes a picture of the asset drawn in the `--size` square (fitted,
  /// or with `--fill` filled and cropped), or without `--size` (or with `--embedded`) its
  /// embedded thumbnail byte for byte, to the `--output` file (`-`: standard output),
  /// never into the library unless the user names a path there (see ``ThumbnailFile``).
  static func thumbnail(
    _ options: DemoOptions, _ location: LibraryLocation, stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream, pictureWorker: String?
  ) async throws(LibraryError) -> Int32 {
    guard let output = options.output else { return usageFailure }
    let library = location.library
    let strings = Strings(language: options.language)
    guard let asset = try await findAsset(options, location, stderr: &stderr) else {
      return failure
    }
    let data: Data
    if let size = options.pictureSize {
      // One picture, in one worker process (with `pictureWorker`): a decoder that crashes
      // or hangs on this file costs this command's picture, not a crash of the Demo.
      let pictures = pictureSource(library, workers: 1, executable: pictureWorker)
      let result = await pictures.picture(of: asset, side: size, fills: options.fillsPicture)
      await pictures.shutDown()
      switch result {
      case .success(let image): data = image.data
      case .failure(let problem):
        if Task.isCancelled { throw .cancelled }
        stderr.write("Error: \(OutputHygiene.message(problem.message))\n")
        return failure
      }
    } else {
      do throws(ThumbnailError) {
        data = try await library.thumbnail(for: asset).data
      } catch {
        switch error {
        case .library(let fault): throw fault
        case .noEmbeddedThumbnail(let name):
          stderr.write("Error: \(OutputHygiene.message(strings.noThumbnail(name)))\n")
        case .unreadable(let problem):
          stderr.write("Error: \(OutputHygiene.message(problem.message))\n")
        }
        return failure
      }
    }
    if output == "-" {
      stdout.write(bytes: Array(data))
      return success
    }
    do throws(ThumbnailFile.Failure) {
      try ThumbnailFile.write(data, to: output, replacing: options.replacesOutput)
    } catch {
      let message = strings.cannotWrite(output, reason: error.reason)
      stderr.write("Error: \(OutputHygiene.message(message))\n")
      return failure
    }
    return success
  }
}
