import FoundationEssentials

/// An asset encodes as the object the Demo prints for it (`Demo --format json`,
/// `Demo lookup`; docs/Formats.md lists its members): the same keys with the same values,
/// given in the Demo's order (an `Encoder` may reorder them), so a program that uses the
/// library can write what the Demo writes with any `Encoder`.
///
/// ```swift
/// let data = try JSONEncoder().encode(asset)
/// ```
///
/// Dates are ISO 8601 text, coordinates rounded to ``Location/coordinateDecimalPlaces``
/// and altitudes to ``Location/altitudeDecimalPlaces``, problems `"code: message"`
/// strings, and photos carry their ``legacyDictionary``. Absent values are `null`; only
/// the legacy dictionary keeps the original's `"0"` and `"0.0"` placeholders.
///
/// An asset is `Encodable` only: the object leaves out most of what an ``Asset`` holds
/// (every capture date the file had, each resource's format and size, the file's
/// modification time), so it cannot be decoded back into the same value.
extension Asset: Encodable {
  /// Encodes the asset as the Demo's JSON object (see the extension's overview).
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What `encoder` throws.
  public func encode(to encoder: any Encoder) throws {
    var visitor = EncodingVisitor(encoder.container(keyedBy: SchemaKey.self))
    AssetSchema.visit(self, with: &visitor)
    if let error = visitor.error { throw error }
  }
}

/// A key of the asset object, as ``AssetSchema`` names it.
private struct SchemaKey: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }

  init(_ key: StaticString) { stringValue = key.description }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Writes what ``AssetSchema`` visits into a keyed container; the first error the
/// container throws stops the writing and is kept in ``error``.
private struct EncodingVisitor: AssetSchemaVisitor {
  private var container: KeyedEncodingContainer<SchemaKey>
  private(set) var error: (any Error)?

  init(_ container: KeyedEncodingContainer<SchemaKey>) { self.container = container }

  private mutating func write(
    _ body: (inout KeyedEncodingContainer<SchemaKey>) throws -> Void
  ) {
    guard error == nil else { return }
    do { try body(&container) } catch { self.error = error }
  }

  /// Runs `members` on a visitor of `nested`, keeping its error.
  private mutating func write(
    into nested: KeyedEncodingContainer<SchemaKey>, _ members: (inout EncodingVisitor) -> Void
  ) {
    var visitor = EncodingVisitor(nested)
    members(&visitor)
    if error == nil { error = visitor.error }
  }

  mutating func string(_ key: StaticString, _ value: String?) {
    write { try $0.encode(value, forKey: SchemaKey(key)) }
  }

  mutating func integer<Value: FixedWidthInteger & Encodable>(
    _ key: StaticString, _ value: Value?
  ) {
    write { try $0.encode(value, forKey: SchemaKey(key)) }
  }

  mutating func number(_ key: StaticString, _ value: Double?) {
    write { try $0.encode(value.flatMap { $0.isFinite ? $0 : nil }, forKey: SchemaKey(key)) }
  }

  mutating func number(_ key: StaticString, _ value: Double?, decimalPlaces places: Int) {
    let rounded = value.map { Location.rounded($0, decimalPlaces: places) }
    write { try $0.encode(rounded, forKey: SchemaKey(key)) }
  }

  mutating func bool(_ key: StaticString, _ value: Bool) {
    write { try $0.encode(value, forKey: SchemaKey(key)) }
  }

  mutating func null(_ key: StaticString) {
    write { try $0.encodeNil(forKey: SchemaKey(key)) }
  }

  mutating func object(_ key: StaticString, _ members: (inout EncodingVisitor) -> Void) {
    guard error == nil else { return }
    write(into: container.nestedContainer(keyedBy: SchemaKey.self, forKey: SchemaKey(key)), members)
  }

  mutating func objects<Elements: Sequence>(
    _ key: StaticString, _ elements: Elements,
    _ members: (inout EncodingVisitor, Elements.Element) -> Void
  ) {
    guard error == nil else { return }
    var array = container.nestedUnkeyedContainer(forKey: SchemaKey(key))
    for element in elements {
      write(into: array.nestedContainer(keyedBy: SchemaKey.self)) { members(&$0, element) }
    }
  }

  mutating func strings(_ key: StaticString, _ values: [String]) {
    write { try $0.encode(values, forKey: SchemaKey(key)) }
  }

  mutating func identifier(_ key: StaticString, _ id: UUID) {
    string(key, StableIdentifier.text(of: id))
  }
}
