// iofleet serve's tables in the history database (its queue and schedules: serve_store.h): serve
// creates and migrates them, the history knows nothing of them. Their version is serve's row of
// `schema_versions` (the history's own is PRAGMA user_version).
#pragma once

#include <sqlite3.h>

#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

inline constexpr int kServeSchemaVersion = 1;

// Brings serve's tables of the open database `db` (at `path`, named in errors) to
// kServeSchemaVersion in one transaction; refuses a newer version. A database whose history
// schema 2 made these tables before serve owned them keeps their rows.
Status MigrateServeSchema(sqlite3* db, const std::string& path);

}  // namespace iofleet::controller
