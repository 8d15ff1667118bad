// PostgreSQL SQL: perspective rebuilds, versions and lag (migration 5).
#pragma once

#include <string>
#include <string_view>

namespace whizbang::postgres::sql {

// Migration 5 (the tables are SQLite migration 9's): the rebuilds (lease, checkpoint, progress),
// the shadow's stream versions, the version of the code that built each perspective's models.
inline constexpr std::string_view kRebuildSchema = R"sql(
CREATE TABLE wh_perspective_rebuilds (
  perspective_name text PRIMARY KEY,
  mode text NOT NULL,
  streams text NOT NULL,
  status text NOT NULL,
  checkpoint uuid,
  events_done bigint NOT NULL DEFAULT 0,
  events_total bigint NOT NULL DEFAULT 0,
  streams_done bigint NOT NULL DEFAULT 0,
  events_per_second double precision NOT NULL DEFAULT 0,
  instance_id uuid,
  lease_expiry bigint,
  requested_at bigint NOT NULL,
  started_at bigint,
  updated_at bigint NOT NULL,
  error text NOT NULL DEFAULT ''
);
CREATE TABLE wh_perspective_rebuild_streams (
  perspective_name text NOT NULL,
  stream_id uuid NOT NULL,
  version bigint NOT NULL,
  PRIMARY KEY (perspective_name, stream_id)
);
CREATE TABLE wh_perspective_versions (
  perspective_name text PRIMARY KEY,
  version bigint NOT NULL,
  built_at bigint NOT NULL
);
CREATE INDEX wh_event_store_type_stream ON wh_event_store (event_type, stream_id);
CREATE INDEX wh_perspective_events_lane ON wh_perspective_events (perspective_name, stream_id,
  stream_version);
)sql";

inline const std::string kTypesOf1 = "(SELECT jsonb_array_elements_text($1::jsonb))";
inline const std::string kTypesOf2 = "(SELECT jsonb_array_elements_text($2::jsonb))";

inline const std::string kRebuildColumns =
    "SELECT perspective_name, mode, streams, status, checkpoint::text, events_done, "
    "events_total, streams_done, events_per_second, instance_id::text, lease_expiry, "
    "requested_at, started_at, updated_at, error FROM wh_perspective_rebuilds";

}  // namespace whizbang::postgres::sql
