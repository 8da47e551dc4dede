#ifndef GROUPENUMERATOR_CSQLITE_SHIM_H
#define GROUPENUMERATOR_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a destructor pointer, which Swift cannot
/// import; binding with it makes SQLite copy the bytes before the call returns.
static inline int CSQLite_bind_blob_transient(
    sqlite3_stmt *_Nonnull statement, int index, const void *_Nullable bytes, int count) {
  return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

/// The same for text (UTF-8, `count` bytes).
static inline int CSQLite_bind_text_transient(
    sqlite3_stmt *_Nonnull statement, int index, const char *_Nullable text, int count) {
  return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

#endif
