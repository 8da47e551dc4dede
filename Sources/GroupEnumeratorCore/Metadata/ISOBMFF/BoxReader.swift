/// Reads box headers and box content from a ``ByteSource``, loading only what is asked for.
///
/// Skipping a box costs one header read, whatever its size: a 4 GB `mdat` is never loaded.
struct BoxReader<Source: ByteSource> {
  /// The file.
  let source: Source

  /// How deep boxes may nest below the top level before the reader refuses to go on.
  static var maximumDepth: Int { 16 }

  /// Creates a reader over a source.
  init(source: Source) { self.source = source }

  /// Reads the header of the box at `offset`, which lies inside a parent ending at `parentEnd`.
  ///
  /// - Throws: The header's parsing errors, or ``BoxParsingError/unreadable(offset:problem:)``.
  func header(at offset: Int, parentEnd: Int) throws(BoxParsingError) -> BoxHeader {
    let bytes = try read(at: offset, length: BoxHeader.maximumLength)
    return try BoxHeader(parsing: bytes, at: offset, parentEnd: parentEnd)
  }

  /// Loads a box's content, or its first `maximumLength` bytes when it is longer.
  func content(of header: BoxHeader, prefix maximumLength: Int) throws(BoxParsingError)
    -> BoxContent
  {
    let range = header.contentRange
    let bytes = try read(at: range.lowerBound, length: min(range.count, maximumLength))
    return BoxContent(header: header, bytes: bytes)
  }

  /// Loads a box's whole content.
  ///
  /// - Throws: ``BoxParsingError/contentTooLong(type:offset:length:limit:)`` when it is
  ///   longer than `limit` bytes.
  func content(of header: BoxHeader, limit: Int) throws(BoxParsingError) -> BoxContent {
    guard header.contentLength <= limit else {
      throw .contentTooLong(
        type: header.type, offset: header.offset, length: header.contentLength, limit: limit)
    }
    return try content(of: header, prefix: limit)
  }

  /// Reads up to `length` bytes at `offset`, converting a failed read into a box error.
  func read(at offset: Int, length: Int) throws(BoxParsingError) -> [UInt8] {
    guard length > 0 else { return [] }
    do {
      return try source.bytes(at: offset, length: length)
    } catch {
      throw .unreadable(offset: offset, problem: error)
    }
  }
}

/// Walks the boxes in one byte range — the top level of a file, or one box's children —
/// reading one header at a time and never storing the boxes it has passed.
///
/// Each step advances by at least 8 bytes, so a walk over `n` bytes ends after at most
/// `n / 8` steps. A size-0 box ends the walk, since it extends to the end of the range.
/// Inside a box, fewer than 8 trailing bytes that are all zero are accepted as QuickTime's
/// 32-bit terminator (which may end a user data list); other stray bytes,
/// and any at the top level (a file cut inside a box header), throw.
struct BoxIterator<Source: ByteSource> {
  /// Where boxes are read from.
  let reader: BoxReader<Source>
  /// Where the range ends.
  let end: Int
  /// How deep this range is: 0 for the top level, 1 for a top-level box's children.
  let depth: Int
  /// Where the next box starts.
  private(set) var position: Int

  /// Iterates the top-level boxes of a file.
  init(topLevelOf reader: BoxReader<Source>) {
    self.reader = reader
    self.end = max(0, reader.source.count)
    self.depth = 0
    self.position = 0
  }

  /// Iterates the children of `parent`, which lies at `depth` (0 at top level).
  ///
  /// - Parameter contentOffset: Bytes of the parent's content to skip before the first
  ///   child (4 for the version and flags of a full box such as `meta`).
  /// - Throws: ``BoxParsingError/nestingTooDeep(type:offset:limit:)`` when the children
  ///   would lie deeper than ``BoxReader/maximumDepth``.
  init(childrenOf parent: BoxHeader, depth: Int, reader: BoxReader<Source>, contentOffset: Int = 0)
    throws(BoxParsingError)
  {
    guard depth < BoxReader<Source>.maximumDepth else {
      throw .nestingTooDeep(
        type: parent.type, offset: parent.offset, limit: BoxReader<Source>.maximumDepth)
    }
    self.reader = reader
    self.end = parent.end
    self.depth = depth + 1
    let start = parent.contentRange.lowerBound.addingReportingOverflow(max(0, contentOffset))
    self.position = start.overflow ? parent.end : min(start.partialValue, parent.end)
  }

  /// The next box's header, or `nil` at the end of the range. A box clamped to the end of
  /// the range is returned with ``BoxHeader/isTruncated`` set, and is the last one.
  ///
  /// - Throws: A ``BoxParsingError`` when the next header is malformed or unreadable; the
  ///   walk is then over, since where the following box starts is unknown.
  mutating func next() throws(BoxParsingError) -> BoxHeader? {
    guard position < end else { return nil }
    let remaining = end - position
    if remaining < 8 {
      let tail = try reader.read(at: position, length: remaining)
      let start = position
      position = end
      if depth > 0, tail.count == remaining, tail.allSatisfy({ $0 == 0 }) { return nil }
      throw .truncatedHeader(offset: start, available: tail.count)
    }
    let header: BoxHeader
    do {
      header = try reader.header(at: position, parentEnd: end)
    } catch {
      position = end
      throw error
    }
    // `BoxHeader` guarantees `end >= offset + 8`; never stand still regardless.
    position = header.end > position ? header.end : end
    return header
  }
}
