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

/// Hardens a connection against a crafted database (`sqlite3_db_config` is variadic, which
/// Swift cannot call): defensive mode (no writes to `sqlite_master`, no
/// `PRAGMA writable_schema`), an untrusted schema (no functions with side effects in
/// views, triggers or defaults), and no triggers or views at all (the index has none, so
/// one found there never runs). Returns the first result that is not `SQLITE_OK`.
static inline int CSQLite_harden(sqlite3 *_Nonnull db) {
  const int options[][2] = {
      {SQLITE_DBCONFIG_DEFENSIVE, 1},
      {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
      {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
      {SQLITE_DBCONFIG_ENABLE_VIEW, 0},
  };
  for (unsigned index = 0; index < sizeof options / sizeof options[0]; index++) {
    int result = sqlite3_db_config(db, options[index][0], options[index][1], (int *)0);
    if (result != SQLITE_OK) return result;
  }
  return SQLITE_OK;
}

#endif
