/// The assets of one group in plan order, read a batch at a time (the batched delivery of
/// ``LibraryRun``: ``LibraryRun/queue(for:filter:fileSelection:)`` makes one,
/// ``LibraryRun/nextBatch(of:size:)`` reads from it).
///
/// Live Photo candidates are read when the group is planned, as every delivery reads them
/// before the rest, so that each confirmed pair is one asset at its still's place and its
/// movie is not delivered again.
struct GroupQueue: Sendable {
  /// The group's units in order; a delivered one becomes `nil`, so its asset is freed.
  private var units: [EnumerationUnit?]
  private var position = 0

  /// The queue of a plan's units.
  init(plan: EnumerationPlan) {
    self.units = plan.units
  }

  /// Whether every unit has been delivered.
  var isEmpty: Bool { position >= units.count }

  /// How many of the units not yet delivered are of each type: a confirmed Live Photo
  /// counts once, as `livePhoto`; every other file as the type its name gave it, which is
  /// the type its asset will have.
  var typeCounts: [AssetType: Int] {
    var counts: [AssetType: Int] = [:]
    for unit in units[position...] {
      switch unit {
      case .read(let asset): counts[asset.type, default: 0] += 1
      case .toRead(let job): counts[job.file.type, default: 0] += 1
      case nil: break
      }
    }
    return counts
  }

  /// Reads and returns the next `size` units' assets, in order.
  ///
  /// - Parameter read: Reads jobs, in job order.
  /// - Throws: What `read` throws; ``LibraryError/cancelled`` when it returns too few.
  mutating func nextBatch(
    size: Int, read: ([ReadJob]) async throws(LibraryError) -> [Asset]
  ) async throws(LibraryError) -> [Asset] {
    let end = min(units.count, position + size)
    let slice = units[position..<end]
    let fresh = try await read(slice.compactMap { $0?.job })
    var freshAssets = fresh.makeIterator()
    var assets: [Asset] = []
    assets.reserveCapacity(slice.count)
    for unit in slice {
      switch unit {
      case .read(let asset): assets.append(asset)
      case .toRead:
        guard let asset = freshAssets.next() else { throw .cancelled }
        assets.append(asset)
      case nil: throw .cancelled
      }
    }
    for index in position..<end { units[index] = nil }
    position = end
    return assets
  }
}
