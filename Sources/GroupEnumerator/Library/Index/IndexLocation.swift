public import Foundation

/// Where an enumeration keeps its index of what it read (``LibraryOptions/index``).
///
/// With an index, a file whose device, inode, size, modification and change times (and
/// whose sidecars) are unchanged since the last enumeration is not opened: its asset comes
/// from the index. The output is the same as without it; only the time differs. The index
/// is an SQLite database, never inside the library (a path inside it is refused with a
/// warning, and the library is read without an index).
public enum IndexLocation: Sendable, Hashable {
  /// No index: every file is read (the default).
  case none
  /// The index file at this URL, created when missing, rebuilt (with a warning) when it
  /// belongs to another library, has another schema or is damaged.
  case file(URL)
}
