import FoundationEssentials
@_spi(Demo) import GroupEnumeratorCore

/// Writes the asset object that ``AssetSchema`` walks as JSON text: the asset's URL, path
/// and name from its ``AssetText`` (without making a `String` for them), its group's name
/// as given (consecutive assets share it, and making it costs a hash of the path).
///
/// Start a walk inside ``writeObject(_:)``; take ``writer`` back when it returns.
struct AssetJSONVisitor: AssetSchemaVisitor {
  /// Where the text goes.
  private(set) var writer: JSONWriter
  private let text: AssetText
  private let groupName: String

  init(writer: JSONWriter, text: AssetText, groupName: String) {
    self.writer = writer
    self.text = text
    self.groupName = groupName
  }

  /// An object whose members `members` writes, with no key before it.
  mutating func writeObject(_ members: (inout AssetJSONVisitor) -> Void) {
    let outerCount = writer.openContainer(UInt8(ascii: "{"))
    members(&self)
    writer.closeContainer(UInt8(ascii: "}"), outerCount: outerCount)
  }

  /// An array of one object per element, with no key before it.
  mutating func writeObjects<Elements: Sequence>(
    _ elements: Elements, _ members: (inout AssetJSONVisitor, Elements.Element) -> Void
  ) {
    let outerCount = writer.openContainer(UInt8(ascii: "["))
    for element in elements { writeObject { members(&$0, element) } }
    writer.closeContainer(UInt8(ascii: "]"), outerCount: outerCount)
  }

  /// The `problems` array: each problem's `code: message`.
  static func writeProblems(_ problems: [AssetProblem], to writer: inout JSONWriter) {
    writer.array { array in
      for problem in problems { array.string(problem.description) }
    }
  }

  mutating func string(_ key: StaticString, _ value: String?) {
    writer.key(key)
    writer.string(value)
  }

  mutating func integer<Value: FixedWidthInteger & Encodable>(
    _ key: StaticString, _ value: Value?
  ) {
    writer.key(key)
    writer.integer(value)
  }

  mutating func number(_ key: StaticString, _ value: Double?) {
    writer.key(key)
    writer.number(value)
  }

  mutating func number(_ key: StaticString, _ value: Double?, decimalPlaces places: Int) {
    writer.key(key)
    writer.number(value, decimalPlaces: places)
  }

  mutating func bool(_ key: StaticString, _ value: Bool) {
    writer.key(key)
    writer.bool(value)
  }

  mutating func null(_ key: StaticString) {
    writer.key(key)
    writer.null()
  }

  mutating func object(_ key: StaticString, _ members: (inout AssetJSONVisitor) -> Void) {
    writer.key(key)
    writeObject(members)
  }

  mutating func objects<Elements: Sequence>(
    _ key: StaticString, _ elements: Elements,
    _ members: (inout AssetJSONVisitor, Elements.Element) -> Void
  ) {
    writer.key(key)
    writeObjects(elements, members)
  }

  mutating func strings(_ key: StaticString, _ values: [String]) {
    writer.key(key)
    writer.array { array in
      for value in values { array.string(value) }
    }
  }

  mutating func identifier(_ key: StaticString, _ id: UUID) {
    writer.key(key)
    writer.string(uuid: id)
  }

  mutating func url(_ key: StaticString, of asset: Asset) {
    writer.key(key)
    text.writeURL(to: &writer)
  }

  mutating func path(_ key: StaticString, of asset: Asset) {
    writer.key(key)
    text.writePath(to: &writer)
  }

  mutating func name(_ key: StaticString, of asset: Asset) {
    writer.key(key)
    text.writeName(to: &writer)
  }

  mutating func groupName(_ key: StaticString, of asset: Asset) {
    writer.key(key)
    writer.string(groupName)
  }

  mutating func date(_ key: StaticString, _ date: CaptureDate?) {
    writer.key(key)
    writer.string(iso8601: date)
  }

  mutating func problems(_ key: StaticString, _ problems: [AssetProblem]) {
    writer.key(key)
    AssetJSONVisitor.writeProblems(problems, to: &writer)
  }
}
