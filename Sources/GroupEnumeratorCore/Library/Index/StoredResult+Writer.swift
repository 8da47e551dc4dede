import FoundationEssentials

extension StoredResult {
  /// Appends the stored form of values to ``output``, in the order ``Reader`` reads them.
  struct Writer {
    var output: [UInt8] = []

    mutating func byte(_ value: UInt8) { output.append(value) }

    mutating func integer<Value: BinaryInteger>(_ value: Value) {
      let signed = Int64(truncatingIfNeeded: value)
      var zigzag = UInt64(bitPattern: (signed << 1) ^ (signed >> 63))
      while zigzag >= 0x80 {
        output.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
        zigzag >>= 7
      }
      output.append(UInt8(zigzag))
    }

    mutating func double(_ value: Double) {
      var bits = value.bitPattern
      for _ in 0..<8 {
        output.append(UInt8(truncatingIfNeeded: bits))
        bits >>= 8
      }
    }

    mutating func bytes(_ value: [UInt8]) {
      integer(value.count)
      output += value
    }

    mutating func text(_ value: String) {
      integer(value.utf8.count)
      output += value.utf8
    }

    mutating func bool(_ value: Bool) { byte(value ? 1 : 0) }

    mutating func optional<Value>(_ value: Value?, _ body: (inout Writer, Value) -> Void) {
      guard let value else { return byte(0) }
      byte(1)
      body(&self, value)
    }

    /// A resource: its path, role, format, size and byte range.
    mutating func resource(_ resource: AssetResource) {
      bytes(resource.path.bytes)
      text(resource.role.rawValue)
      optional(resource.format) { $0.text($1.rawValue) }
      integer(resource.fileSize)
      optional(resource.byteRange) {
        $0.integer($1.lowerBound)
        $0.integer($1.upperBound)
      }
    }

    mutating func problems(_ problems: [AssetProblem]) {
      integer(problems.count)
      for problem in problems {
        text(problem.code.rawValue)
        text(problem.message)
      }
    }

    mutating func date(_ date: CaptureDate?) {
      optional(date) { writer, date in
        for field in [date.year, date.month, date.day, date.hour, date.minute, date.second] {
          writer.integer(field)
        }
        writer.optional(date.subsecond) { $0.text($1) }
        switch date.zone {
        case .utc: writer.byte(0)
        case .offset(let seconds):
          writer.byte(1)
          writer.integer(seconds)
        case .unknown: writer.byte(2)
        }
        writer.text(date.source.rawValue)
      }
    }

    mutating func metadata(_ metadata: MediaMetadata) {
      optional(metadata.dateTime) { $0.text($1) }
      for date in [
        metadata.dateTimeOriginal, metadata.dateTimeDigitized, metadata.modificationDateTime,
        metadata.xmpDate, metadata.sidecarDate, metadata.quickTimeCreationDate,
        metadata.movieHeaderCreationDate,
      ] {
        self.date(date)
      }
      optional(metadata.location) { writer, location in
        writer.double(location.latitude)
        writer.double(location.longitude)
        writer.optional(location.altitude) { $0.double($1) }
      }
      for value in [metadata.pixelWidth, metadata.pixelHeight, metadata.orientation] {
        optional(value) { $0.integer($1) }
      }
      bool(metadata.hasThumbnail)
      optional(metadata.duration) { $0.double($1) }
      for value in [metadata.make, metadata.model, metadata.lensModel, metadata.contentIdentifier] {
        optional(value) { $0.text($1) }
      }
      optional(metadata.embeddedVideoRange) {
        $0.integer($1.lowerBound)
        $0.integer($1.upperBound)
      }
      let log = metadata.problemLog
      problems(log.kept)
      integer(log.omitted)
      text(log.firstOmittedCode.rawValue)
      problems(log.trippedBudgets)
    }
  }
}
