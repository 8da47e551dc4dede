public import Foundation

extension LegacyAssetsGroup {
  /// Like ``LegacyAssetsGroup/enumerateAssets(options:using:)``, for the assets at
  /// `indexes` only (`enumerateAssetsAtIndexes:options:usingBlock:`). Indexes past the end
  /// are ignored; the closing call still comes, with `nil` and `NSNotFound`.
  ///
  /// - Parameters:
  ///   - indexes: Positions in the filtered assets.
  ///   - options: ``EnumerationOptions/reverse`` to go backwards.
  ///   - block: Receives the asset (or `nil` at the end), its index, and `stop`.
  public func enumerateAssets(
    at indexes: IndexSet, options: EnumerationOptions,
    using block: (Asset?, Int, inout Bool) -> Void
  ) {
    enumerateAssets(atPositions: indexes, options: options, using: block)
  }
}
