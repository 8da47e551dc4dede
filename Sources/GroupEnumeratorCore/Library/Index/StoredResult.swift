import FoundationEssentials

/// An asset as the index stores it: everything ``AssetReader`` produced for one file,
/// except what comes from the walk (the path, the group, the sidecar resources), in a
/// small versioned binary form.
///
/// The form: a version byte (``version``), whether the file's end was checked (a byte, 0
/// or 1: ``LibraryOptions/verifiesFileEnds``), then the fields in a fixed order, integers as
/// zig-zag LEB128, doubles as their IEEE bits, text and bytes with their length first, an
/// optional value after a presence byte. Decoding checks every length and value and
/// returns `nil` on anything unexpected, so a damaged row is read again, never trusted:
/// also each value against what a reader can produce (``Bounds``) and against the file
/// as the walk sees it now (a resource's size is the file's, a byte range lies in it).
enum StoredResult {
  /// The version of the form; a row of another version is read again. Raised whenever a
  /// reader changes what it reports for an unchanged file, so that rows stored by the
  /// older readers are not handed on.
  static let version: UInt8 = 3

  /// The stored form of `asset`, read from a file with `sidecarCount` sidecar resources
  /// (listed last among its resources), by a run that checked every file's end or not
  /// (`checkedEnd`).
  static func encode(_ asset: Asset, sidecarCount: Int, checkedEnd: Bool = false) -> [UInt8] {
    var writer = Writer()
    writer.byte(version)
    writer.byte(checkedEnd ? 1 : 0)
    writer.text(asset.type.rawValue)
    writer.double(asset.fileModificationDate.timeIntervalSinceReferenceDate)
    let own = asset.resources.dropLast(sidecarCount)
    writer.integer(own.count)
    for resource in own { writer.resource(resource) }
    let metadata = asset.metadata
    let extra = asset.problems.dropFirst(metadata.problems.count)
    writer.problems(Array(extra))
    writer.metadata(metadata)
    return writer.output
  }

  /// What a reader can produce, so what a decoded value must be within: a stored row
  /// that says otherwise was not written by this code (a crafted or damaged index).
  enum Bounds {
    /// Pixel sizes: every format stores them in at most 32 bits.
    static let side = 0...Int(UInt32.max)
    /// Seconds: a 64-bit count of units, each at least a second's 2^32th… and at most a
    /// second, as `mvhd` and AVI give them; never negative, never infinite.
    static let duration = 0...Double(UInt64.max)
    /// A modification time, in seconds from 2001: years 1 to 9999, what a `Date` prints.
    static let time = -63_113_904_000.0...252_423_993_599.0
  }

  /// The asset of `job` from its stored form and the sidecars the walk found now.
  ///
  /// - Parameters:
  ///   - fileSize: The file's size now (its key's), when known: the first resource (the
  ///     file itself) must have it, and byte ranges must lie within it.
  ///   - needsCheckedEnd: Whether the run checks every file's end: then a row stored by a
  ///     run that did not is not taken (the file is read, and checked, again).
  /// - Returns: `nil` when `bytes` is not a well-formed value of this ``version``, a value
  ///   is out of ``Bounds`` or does not fit the file, or its file's end was not checked
  ///   and `needsCheckedEnd`.
  static func decode(
    _ bytes: ArraySlice<UInt8>, job: ReadJob, fileSize: Int64? = nil,
    needsCheckedEnd: Bool = false
  ) -> Asset? {
    bytes.withUnsafeBufferPointer {
      decode(
        Reader(bytes: $0), path: job.file.path, group: job.group, sidecars: job.file.sidecars,
        fileSize: fileSize, needsCheckedEnd: needsCheckedEnd)
    }
  }

  /// The asset of the file at `path` in `group` from its stored form read in place, with
  /// `sidecars` (the sidecar resources) listed after its own resources; as
  /// ``decode(_:job:fileSize:needsCheckedEnd:)``.
  static func decode(
    _ reader: consuming Reader, path: LibraryPath, group: ScannedGroup.Key,
    sidecars: [AssetResource], fileSize: Int64?, needsCheckedEnd: Bool
  ) -> Asset? {
    guard reader.byte() == version, let checked = reader.byte(), checked <= 1,
      checked == 1 || !needsCheckedEnd,
      let type = reader.named(Names.types),
      let time = reader.double(), Bounds.time.contains(time),
      let count = reader.integer(), (0...16).contains(count)
    else { return nil }
    var resources: [AssetResource] = []
    resources.reserveCapacity(count + sidecars.count)
    for _ in 0..<count {
      // A range lies inside the file (the video of a motion photo).
      guard
        let resource = reader.resource(
          sameAs: path, rangeBound: fileSize ?? resources.first?.fileSize),
        // The file itself, listed first, has the size it has now (its key matched).
        !resources.isEmpty || fileSize == nil || resource.fileSize == fileSize
      else { return nil }
      resources.append(resource)
    }
    let bound = fileSize ?? resources.first?.fileSize ?? 0
    resources += sidecars
    guard let extra = reader.problems(), let metadata = reader.metadata(), reader.isAtEnd,
      metadata.isWithinBounds(fileSize: Int(bound))
    else { return nil }
    return Asset(
      path: path, group: group.kind, groupPath: group.path, type: type,
      resources: resources,
      fileModificationDate: Date(timeIntervalSinceReferenceDate: time), metadata: metadata,
      problems: extra)
  }

  /// The names of the enumerations a stored result holds, as ``Reader/named(_:)`` reads
  /// them.
  enum Names {
    static let types = NameTable(AssetType.allCases)
    static let roles = NameTable(AssetResource.Role.allCases)
    static let formats = NameTable(MediaFormat.allCases)
    static let sources = NameTable(CaptureDate.Source.allCases)
    static let codes = NameTable(AssetProblem.Code.allCases)
  }

  /// The cases of an enumeration by the UTF-8 bytes of their raw values.
  struct NameTable<Value: Sendable>: Sendable {
    private let entries: [(name: [UInt8], value: Value)]

    init(_ cases: some Collection<Value>) where Value: RawRepresentable<String> {
      entries = cases.map { (Array($0.rawValue.utf8), $0) }
    }

    /// The case whose raw value's bytes are `name`.
    func value(named name: UnsafeBufferPointer<UInt8>) -> Value? {
      for entry in entries where entry.name.count == name.count {
        if entry.name.withUnsafeBufferPointer({ $0.elementsEqual(name) }) { return entry.value }
      }
      return nil
    }
  }
}

extension MediaMetadata {
  /// Whether every value is one a reader of a file of `fileSize` bytes can produce
  /// (``StoredResult/Bounds``): pixel sizes within 32 bits, an orientation of 1 to 8, a
  /// finite duration of at most 2^64 seconds, an embedded video inside the file.
  fileprivate func isWithinBounds(fileSize: Int) -> Bool {
    // Each side on its own: an array of the two would be an allocation per row.
    if let pixelWidth, !StoredResult.Bounds.side.contains(pixelWidth) { return false }
    if let pixelHeight, !StoredResult.Bounds.side.contains(pixelHeight) { return false }
    if let orientation, !(1...8).contains(orientation) { return false }
    if let duration, !StoredResult.Bounds.duration.contains(duration) { return false }
    if let range = embeddedVideoRange, range.lowerBound < 0 || range.upperBound > fileSize {
      return false
    }
    if let altitude = location?.altitude, !altitude.isFinite { return false }
    return true
  }
}
