public import FoundationEssentials

/// Where pictures drawn by `image(for:targetSize:contentMode:options:)` are kept, so that
/// the next request for the same file reads a small PNG instead of decoding the file
/// (``LibraryOptions/pictureCache``).
///
/// Either cache is laid out as the freedesktop.org Thumbnail Managing Standard lays out
/// `~/.cache/thumbnails`: `normal/`, `large/`, `x-large/` and `xx-large/` hold PNGs of at
/// most 128, 256, 512 and 1024 pixels a side, named after the MD5 of the file's `file://`
/// URI and recording that URI and the file's modification time; `fail/` records files that
/// cannot be drawn. An entry is used only while it names the file and its modification
/// time; anything else is drawn again and replaced. The cache is never inside the library:
/// a location there is not used (pictures are then drawn every time). docs/Rendering.md
/// describes the validation and how each cache is bounded.
public enum PictureCacheLocation: Sendable, Hashable {
  /// No cache: every picture is drawn from its file.
  case none
  /// The desktop's shared thumbnail cache, `$XDG_CACHE_HOME/thumbnails` (or
  /// `$HOME/.cache/thumbnails` when `XDG_CACHE_HOME` is unset or not an absolute path),
  /// read and written with the file managers that follow the standard (GNOME Files,
  /// Thunar, …): what they made is reused, what is drawn here they reuse. The default.
  /// Without either variable, no cache is used.
  case freedesktop
  /// A private cache in this folder, laid out the same way (beside the index, say), and
  /// kept under `maximumBytes` by deleting its oldest entries.
  case directory(URL, maximumBytes: Int = 1 << 30)
}
