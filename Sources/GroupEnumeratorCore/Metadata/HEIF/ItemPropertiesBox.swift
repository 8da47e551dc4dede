/// The item properties box, `iprp`: the properties in its `ipco` box and the `ipma`
/// boxes that associate them with items.
///
/// `ipco`
/// holds the property boxes, numbered from 1 in order; one or more `ipma` boxes follow.
struct ItemPropertiesBox: Sendable {
  /// The properties of `ipco`, in order: index *i* of an association is element *i − 1*.
  let properties: [ItemProperty]
  /// The associations of every `ipma` box, the first box's entry winning for an item
  /// listed twice.
  let associations: [UInt32: [ItemPropertyAssociation.Association]]
  /// Why parts that could not be parsed were skipped (a malformed `ipma`, a clamped box).
  let skipped: [BoxParsingError]

  /// The most properties accepted; a 15-bit index reaches 32,767 of them.
  static let maximumPropertyCount = 1 << 15

  /// Parses an `iprp` box's whole content.
  ///
  /// - Throws: A ``BoxParsingError`` when a child box header is malformed or `ipco` has
  ///   more than ``maximumPropertyCount`` children.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    var properties: [ItemProperty] = []
    var associations: [UInt32: [ItemPropertyAssociation.Association]] = [:]
    var skipped: [BoxParsingError] = []
    var hasContainer = false
    for child in try content.children(from: 0, limit: 64) {
      if let truncation = child.header.truncation { skipped.append(truncation) }
      switch child.header.type {
      case .itemPropertyContainer where !hasContainer:
        hasContainer = true
        for property in try child.children(from: 0, limit: Self.maximumPropertyCount) {
          if let truncation = property.header.truncation { skipped.append(truncation) }
          properties.append(ItemProperty(parsing: property))
        }
      case .itemPropertyAssociation:
        do {
          let box = try ItemPropertyAssociation(parsing: child)
          associations.merge(box.associations) { first, _ in first }
        } catch {
          skipped.append(error)
        }
      default: break
      }
    }
    self.properties = properties
    self.associations = associations
    self.skipped = skipped
  }

  /// The properties associated with `itemID`, in association order. Indexes 0 and past
  /// the end of `ipco` are left out.
  func properties(of itemID: UInt32) -> [ItemProperty] {
    (associations[itemID] ?? []).compactMap { association in
      let index = association.propertyIndex - 1
      return properties.indices.contains(index) ? properties[index] : nil
    }
  }
}
