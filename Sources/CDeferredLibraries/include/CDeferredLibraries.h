#ifndef GROUPENUMERATOR_CDEFERREDLIBRARIES_H
#define GROUPENUMERATOR_CDEFERREDLIBRARIES_H

// libexif and SQLite, opened with dlopen on first use rather than linked.
//
// This target defines every libexif and SQLite function the package calls, under the
// library's own name and prototype (the real headers declare them). Each definition
// opens the library once (`pthread_once`), then calls the real function through a
// pointer. A process that reads no EXIF block and opens no index (a second run handed
// back from a snapshot or a stored listing, `Demo --help`) never maps either library, and
// starts without them. The definitions are hidden: nothing outside the program that links
// them calls them.
//
// When a library cannot be opened, its functions do nothing and return what means
// failure for them (NULL, `SQLITE_CANTOPEN`, `SQLITE_MISUSE`, 0); the functions below say
// why, for the message.

/// Opens libexif (`libexif.so.12`) if it is not yet open.
///
/// @return NULL when libexif is open; otherwise why it could not be (the text lives as long
/// as the process).
const char *_Nullable CDeferredLibraries_libexif(void);

/// Opens SQLite (`libsqlite3.so.0`) if it is not yet open.
///
/// @return NULL when SQLite is open; otherwise why it could not be.
const char *_Nullable CDeferredLibraries_sqlite(void);

#endif
