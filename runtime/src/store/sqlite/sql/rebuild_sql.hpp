// SQLite SQL: perspective rebuilds, versions and lag (migration 9).
#pragma once

#include <string>
#include <string_view>

namespace whizbang::sqlite::sql {

// Migration 9. wh_perspective_rebuilds: one row per perspective, the rebuild requested, running
// under a lease (resumed from `checkpoint`, the last stream done) or finished.
// wh_perspective_rebuild_streams: per shadow and stream, the stream version the shadow holds (what
// the swap catches up). wh_perspective_versions: the version of the code that built the models.
inline constexpr std::string_view kRebuildSchema = R"sql(
CREATE TABLE wh_perspective_rebuilds (
  perspective_name TEXT PRIMARY KEY NOT NULL,
  mode TEXT NOT NULL,
  streams TEXT NOT NULL,
  status TEXT NOT NULL,
  checkpoint BLOB,
  events_done INTEGER NOT NULL DEFAULT 0,
  events_total INTEGER NOT NULL DEFAULT 0,
  streams_done INTEGER NOT NULL DEFAULT 0,
  events_per_second REAL NOT NULL DEFAULT 0,
  instance_id BLOB,
  lease_expiry INTEGER,
  requested_at INTEGER NOT NULL,
  started_at INTEGER,
  updated_at INTEGER NOT NULL,
  error TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE TABLE wh_perspective_rebuild_streams (
  perspective_name TEXT NOT NULL,
  stream_id BLOB NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (perspective_name, stream_id)
) WITHOUT ROWID;
CREATE TABLE wh_perspective_versions (
  perspective_name TEXT PRIMARY KEY NOT NULL,
  version INTEGER NOT NULL,
  built_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX wh_event_store_type_stream ON wh_event_store (event_type, stream_id);
CREATE INDEX wh_perspective_events_lane ON wh_perspective_events (perspective_name, stream_id,
  stream_version);
)sql";

inline const std::string kTypes = "(SELECT value FROM json_each($1))";

inline const std::string kRebuildColumns =
    "SELECT perspective_name, mode, streams, status, checkpoint, events_done, events_total, "
    "streams_done, events_per_second, instance_id, lease_expiry, requested_at, started_at, "
    "updated_at, error FROM wh_perspective_rebuilds";

}  // namespace whizbang::sqlite::sql
