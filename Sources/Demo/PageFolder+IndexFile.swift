import FoundationEssentials
import Glibc

extension PageFolder {
  /// `index.html` being written: buffered, then flushed, synced and renamed by
  /// ``publish()``; ``discard()`` (or a failure) removes it.
  final class IndexFile {
    let folder: Int32
    let temporaryName: String
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var failure: Failure?
    /// Whether ``publish()`` or ``discard()`` ran (each runs once).
    private var isClosed = false

    init(folder: Int32, temporaryName: String, descriptor: Int32) {
      self.folder = folder
      self.temporaryName = temporaryName
      self.descriptor = descriptor
      buffer.reserveCapacity(1 << 16)
    }

    /// Adds `text`; written when 64 KiB are held. A write error is kept for ``publish()``.
    func write(_ text: String) {
      buffer.append(contentsOf: text.utf8)
      if buffer.count >= 1 << 16 { flush() }
    }

    /// Whether a write has failed (the page cannot be completed).
    var hasFailed: Bool { failure != nil }

    private func flush() {
      guard failure == nil, !buffer.isEmpty else {
        buffer.removeAll(keepingCapacity: true)
        return
      }
      do throws(Failure) {
        try PageFolder.writeAll(buffer, to: descriptor)
      } catch {
        failure = error
      }
      buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is held, syncs, and renames the file to `index.html`.
    func publish() throws(Failure) {
      guard !isClosed else { return }
      isClosed = true
      flush()
      var outcome = failure
      if outcome == nil, fsync(descriptor) != 0 { outcome = PageFolder.failure(errno: errno) }
      if close(descriptor) != 0, outcome == nil { outcome = PageFolder.failure(errno: errno) }
      if outcome == nil, renameat(folder, temporaryName, folder, "index.html") != 0 {
        outcome = PageFolder.failure(errno: errno)
      }
      if let outcome {
        unlinkat(folder, temporaryName, 0)
        throw outcome
      }
      fsync(folder)
    }

    /// Removes the unfinished page.
    func discard() {
      guard !isClosed else { return }
      isClosed = true
      close(descriptor)
      unlinkat(folder, temporaryName, 0)
    }
  }
}
