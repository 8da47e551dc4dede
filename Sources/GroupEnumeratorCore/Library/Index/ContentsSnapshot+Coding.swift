import Dispatch
import FoundationEssentials
import Synchronization

/// The contents in a snapshot: what ``AssetsLibrary/Contents`` holds besides its
/// statistics and warnings, in ``StoredResult``'s form.
///
/// In order: how many files the enumeration took its assets from; the groups (kind, path,
/// counts by type); the other files; the folder problems (sorted by path); the groups the
/// assets name (kind and path, each once); then the assets in chunks of ``chunkSize``,
/// each chunk its count and its bytes (length first), so that the chunks are decoded in
/// parallel: in a chunk, every asset the index of its group in that list, its path, its
/// sidecar resources (each as a stored row writes a resource), and its row as the index stores it
/// (``StoredResult/encode(_:sidecarCount:checkedEnd:)``), length first.
extension ContentsSnapshot {
  /// What ``decodeContents(_:)`` gives back.
  struct Body: Sendable {
    var files: Int
    var groups: [AssetGroup]
    var otherFiles: [OtherFile]
    var folderProblems: [LibraryPath: AssetProblem]
    var assets: [Asset]
  }

  static let groupKinds = StoredResult.NameTable(AssetGroup.Kind.allCases)
  static let otherReasons = StoredResult.NameTable(OtherFile.Reason.allCases)

  static func encodeContents(
    _ contents: AssetsLibrary.Contents, into writer: inout StoredResult.Writer
  ) {
    let statistics = contents.statistics
    writer.integer(statistics.filesRead + statistics.filesFromIndex)
    writer.integer(contents.groups.count)
    for group in contents.groups {
      writer.text(group.kind.rawValue)
      writer.bytes(group.path.bytes)
      let counts = group.counts.sorted { $0.key.rawValue < $1.key.rawValue }
      writer.integer(counts.count)
      for (type, count) in counts {
        writer.text(type.rawValue)
        writer.integer(count)
      }
    }
    writer.integer(contents.otherFiles.count)
    for file in contents.otherFiles {
      writer.bytes(file.path.bytes)
      writer.integer(file.fileSize)
      writer.double(file.modificationDate.timeIntervalSinceReferenceDate)
      writer.text(file.reason.rawValue)
      writer.text(file.message)
    }
    let problems = contents.folderProblems.sorted {
      $0.key.bytes.lexicographicallyPrecedes($1.key.bytes)
    }
    writer.integer(problems.count)
    for (path, problem) in problems {
      writer.bytes(path.bytes)
      writer.problems([problem])
    }
    var groupIndex: [ScannedGroup.Key: Int] = [:]
    var groupKeys: [ScannedGroup.Key] = []
    for asset in contents.assets {
      let key = ScannedGroup.Key(kind: asset.group, path: asset.groupPath)
      if groupIndex[key] == nil {
        groupIndex[key] = groupKeys.count
        groupKeys.append(key)
      }
    }
    writer.integer(groupKeys.count)
    for key in groupKeys {
      writer.text(key.kind.rawValue)
      writer.bytes(key.path.bytes)
    }
    writer.integer(contents.assets.count)
    let assets = contents.assets
    let indexes = groupIndex
    let chunkCount = (assets.count + chunkSize - 1) / chunkSize
    // The chunks on every core at once, as they are decoded.
    let encoded = SanitizerVisibleMutex([[UInt8]](repeating: [], count: chunkCount))
    DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
      let start = chunk * chunkSize
      let bytes = encodeChunk(
        assets[start..<min(start + chunkSize, assets.count)], groups: indexes)
      encoded.withLock { $0[chunk] = bytes }
    }
    let chunks = encoded.withLock { $0 }
    // Room for the chunks, their counts and lengths, and the checksum: grown once.
    writer.output.reserveCapacity(
      writer.output.count + chunks.reduce(0, { $0 + $1.count }) + 20 * chunks.count + 32)
    writer.integer(chunkCount)
    for (chunk, bytes) in chunks.enumerated() {
      writer.integer(min(chunkSize, assets.count - chunk * chunkSize))
      writer.bytes(bytes)
    }
  }

  /// The bytes of one chunk of assets (see the type's description); `groups` gives each
  /// asset's group's place in the list of the assets' groups.
  static func encodeChunk(
    _ assets: ArraySlice<Asset>, groups: [ScannedGroup.Key: Int]
  ) -> [UInt8] {
    var chunk = StoredResult.Writer()
    for asset in assets {
      chunk.integer(groups[ScannedGroup.Key(kind: asset.group, path: asset.groupPath), default: 0])
      chunk.bytes(asset.path.bytes)
      let sidecars = asset.resources.filter { $0.role == .sidecar }
      chunk.integer(sidecars.count)
      for sidecar in sidecars { chunk.resource(sidecar) }
      chunk.bytes(StoredResult.encode(asset, sidecarCount: sidecars.count))
    }
    return chunk.output
  }

  /// The contents `reader` reads, from the bytes of `file`, whose first byte is at
  /// `fileStart` (the chunks of assets are decoded in parallel, each from `file`);
  /// `nil` too when `isAbandoned` says yes before a chunk.
  static func decodeContents(
    _ reader: inout StoredResult.Reader, file: [UInt8], fileStart: UnsafePointer<UInt8>,
    isAbandoned: (@Sendable () -> Bool)? = nil
  ) -> Body? {
    guard let files = reader.integer(), files >= 0, let groupCount = reader.count() else {
      return nil
    }
    var groups: [AssetGroup] = []
    groups.reserveCapacity(groupCount)
    for _ in 0..<groupCount {
      guard let kind = reader.named(groupKinds), let path = reader.byteRun(),
        let countCount = reader.count()
      else { return nil }
      var counts: [AssetType: Int] = [:]
      for _ in 0..<countCount {
        guard let type = reader.named(StoredResult.Names.types), let count = reader.integer(),
          count >= 0
        else { return nil }
        counts[type] = count
      }
      groups.append(AssetGroup(kind: kind, path: LibraryPath(bytes: Array(path)), counts: counts))
    }
    guard let otherCount = reader.count() else { return nil }
    var otherFiles: [OtherFile] = []
    otherFiles.reserveCapacity(otherCount)
    for _ in 0..<otherCount {
      guard let path = reader.byteRun(), let size = reader.integer(), size >= 0,
        let time = reader.double(), StoredResult.Bounds.time.contains(time),
        let reason = reader.named(otherReasons), let message = reader.text()
      else { return nil }
      otherFiles.append(
        OtherFile(
          path: LibraryPath(bytes: Array(path)), fileSize: Int64(size),
          modificationDate: Date(timeIntervalSinceReferenceDate: time), reason: reason,
          message: message))
    }
    guard let problemCount = reader.count() else { return nil }
    var folderProblems: [LibraryPath: AssetProblem] = [:]
    for _ in 0..<problemCount {
      guard let path = reader.byteRun(), let problems = reader.problems(), problems.count == 1
      else { return nil }
      folderProblems[LibraryPath(bytes: Array(path))] = problems[0]
    }
    guard let keyCount = reader.count() else { return nil }
    var groupKeys: [ScannedGroup.Key] = []
    groupKeys.reserveCapacity(keyCount)
    for _ in 0..<keyCount {
      guard let kind = reader.named(groupKinds), let path = reader.byteRun() else { return nil }
      groupKeys.append(ScannedGroup.Key(kind: kind, path: LibraryPath(bytes: Array(path))))
    }
    guard let assetCount = reader.integer(), assetCount >= 0, let chunkCount = reader.count()
    else { return nil }
    // Where each chunk's assets go in the array, and where its bytes are in `file`.
    var chunks: [(assets: Range<Int>, bytes: Range<Int>)] = []
    chunks.reserveCapacity(chunkCount)
    var next = 0
    for _ in 0..<chunkCount {
      guard let count = reader.count(), let bytes = reader.byteRun(), count <= bytes.count,
        let start = bytes.baseAddress.map({ $0 - fileStart })
      else { return nil }
      chunks.append((next..<next + count, start..<start + bytes.count))
      next += count
    }
    guard next == assetCount else { return nil }
    // The chunks on every core at once (each asset is a dozen allocations), each decoded
    // straight into its place in the one array (no asset is copied or moved after).
    let keys = groupKeys
    let spans = chunks
    let assets = [Asset](unsafeUninitializedCapacity: assetCount) { buffer, initialized in
      let target = ChunkTarget(buffer: buffer)
      // Which chunks were decoded; also what orders each chunk's writes into `buffer`
      // before the reads below, for ThreadSanitizer as for the processor.
      let decoded = SanitizerVisibleMutex([Bool](repeating: false, count: spans.count))
      DispatchQueue.concurrentPerform(iterations: spans.count) { index in
        // A chunk left undecoded makes the whole `nil`, below.
        if isAbandoned?() == true { return }
        let chunk = spans[index]
        let done = file.withUnsafeBufferPointer {
          decodeChunk(
            UnsafeBufferPointer(rebasing: $0[chunk.bytes]), groups: keys,
            into: target.region(chunk.assets))
        }
        decoded.withLock { $0[index] = done }
      }
      let outcomes = decoded.withLock { $0 }
      if outcomes.allSatisfy({ $0 }) {
        initialized = assetCount
      } else {
        for (index, done) in outcomes.enumerated() where done {
          target.region(spans[index].assets).deinitialize()
        }
        initialized = 0
      }
    }
    guard assets.count == assetCount else { return nil }
    return Body(
      files: files, groups: groups, otherFiles: otherFiles, folderProblems: folderProblems,
      assets: assets)
  }
}

extension ContentsSnapshot {
  /// How many assets a chunk holds: chunks are decoded in parallel.
  static let chunkSize = 1024

  /// Decodes one chunk's assets into `destination` (uninitialised, as many places as the
  /// chunk holds assets); `false`, with `destination` left uninitialised, when the chunk is
  /// not well formed.
  static func decodeChunk(
    _ bytes: UnsafeBufferPointer<UInt8>, groups: [ScannedGroup.Key],
    into destination: UnsafeMutableBufferPointer<Asset>
  ) -> Bool {
    var reader = StoredResult.Reader(bytes: bytes)
    var count = 0
    func decodeOne() -> Asset? {
      guard let index = reader.integer(), groups.indices.contains(index),
        let path = reader.byteRun(), let sidecarCount = reader.count()
      else { return nil }
      let assetPath = LibraryPath(bytes: Array(path))
      var sidecars: [AssetResource] = []
      if sidecarCount > 0 {
        sidecars.reserveCapacity(sidecarCount)
        for _ in 0..<sidecarCount {
          guard let sidecar = reader.resource(sameAs: assetPath, rangeBound: nil),
            sidecar.role == .sidecar
          else { return nil }
          sidecars.append(sidecar)
        }
      }
      guard let row = reader.byteRun() else { return nil }
      return StoredResult.decode(
        StoredResult.Reader(bytes: row), path: assetPath,
        group: groups[index], sidecars: sidecars, fileSize: nil, needsCheckedEnd: false)
    }
    while count < destination.count, let asset = decodeOne() {
      destination.initializeElement(at: count, to: asset)
      count += 1
    }
    guard count == destination.count, reader.isAtEnd else {
      UnsafeMutableBufferPointer(rebasing: destination[..<count]).deinitialize()
      return false
    }
    return true
  }
}

/// The array of assets being made by ``ContentsSnapshot/decodeContents(_:file:fileStart:isAbandoned:)``,
/// shared by the threads that decode its chunks.
///
/// `@unchecked Sendable` is safe: each thread initialises only the region of its own chunk
/// (the regions are disjoint, from the chunks' counts, which add up to the array's
/// capacity), the buffer outlives the threads (`concurrentPerform` returns only when all are
/// done, inside the initialiser that owns it), and every read or deinitialisation happens
/// after that, ordered by the mutex each thread locks after writing.
private struct ChunkTarget: @unchecked Sendable {
  let buffer: UnsafeMutableBufferPointer<Asset>

  /// The places in `range`.
  func region(_ range: Range<Int>) -> UnsafeMutableBufferPointer<Asset> {
    UnsafeMutableBufferPointer(rebasing: buffer[range])
  }
}

extension StoredResult.Reader {
  /// A count of things that follow, each at least a byte long: never more than the bytes
  /// left, so that a damaged count cannot ask for a huge reservation.
  mutating func count() -> Int? {
    guard let value = integer(), value >= 0, value <= end - offset else { return nil }
    return value
  }
}
