// SQLite's statements of the perspective-rebuild role. Writers take turns (one writer per file):
// no lock is needed for a swap or for an event's completions.
#include "sqlite/sqlite_perspective_rebuild.hpp"

#include <algorithm>

#include "fmt/format.h"
#include "sqlite/sql/rebuild_sql.hpp"

namespace whizbang {

namespace {

SqlParam uuid_param(const Uuid& id) { return SqlBlob(id.bytes().begin(), id.bytes().end()); }

absl::StatusOr<Uuid> read_uuid(const SqlRow& row, std::size_t column) {
  absl::StatusOr<SqlBlob> bytes = row.blob(column);
  if (!bytes.ok()) return bytes.status();
  Uuid::Bytes raw{};
  if (bytes->size() != raw.size()) {
    return absl::DataLossError(fmt::format("column {}: a uuid of {} bytes", column, bytes->size()));
  }
  std::copy(bytes->begin(), bytes->end(), raw.begin());
  return Uuid(raw);
}

RebuildDialect make_dialect() {
  using sqlite::sql::kRebuildColumns;
  using sqlite::sql::kTypes;
  RebuildDialect d;
  d.uuid = uuid_param;
  d.read_uuid = read_uuid;
  d.streams_first = "SELECT DISTINCT stream_id FROM wh_event_store WHERE event_type IN " + kTypes +
                    " ORDER BY stream_id LIMIT $2";
  d.streams_after = "SELECT DISTINCT stream_id FROM wh_event_store WHERE event_type IN " + kTypes +
                    " AND stream_id > $2 ORDER BY stream_id LIMIT $3";
  d.count_all = "SELECT count(*) FROM wh_event_store WHERE event_type IN " + kTypes;
  d.count_stream =
      "SELECT count(*) FROM wh_event_store WHERE stream_id = $2 AND event_type IN " + kTypes;
  d.read_stream =
      "SELECT event_id, event_type, event_data, metadata, version, created_at FROM wh_event_store "
      "WHERE stream_id = $2 AND event_type IN " +
      kTypes + " ORDER BY version";
  d.replayed_work =
      "SELECT event_work_id, event_id FROM wh_perspective_events WHERE perspective_name = $1 AND "
      "stream_id = $2 AND stream_version <= $3";
  d.delete_work = "DELETE FROM wh_perspective_events WHERE event_work_id = $1";
  d.work_remaining = "SELECT count(*) FROM wh_perspective_events WHERE event_id = $1";
  d.insert_lifecycle =
      "INSERT INTO wh_lifecycle_completions (event_id, stream_id, instance_id, lease_expiry, "
      "created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO NOTHING";
  d.record_shadow =
      "INSERT INTO wh_perspective_rebuild_streams (perspective_name, stream_id, version) VALUES "
      "($1, $2, $3) ON CONFLICT (perspective_name, stream_id) DO UPDATE SET version = "
      "excluded.version";
  d.behind_all =
      "SELECT DISTINCT es.stream_id FROM wh_event_store es LEFT JOIN "
      "wh_perspective_rebuild_streams rs ON rs.perspective_name = $1 AND rs.stream_id = "
      "es.stream_id WHERE es.event_type IN (SELECT value FROM json_each($2)) AND (rs.version IS "
      "NULL OR es.version > rs.version) ORDER BY es.stream_id";
  d.behind_stream =
      "SELECT 1 FROM wh_event_store es WHERE es.stream_id = $3 AND es.event_type IN (SELECT "
      "value FROM json_each($2)) AND es.version > COALESCE((SELECT version FROM "
      "wh_perspective_rebuild_streams WHERE perspective_name = $1 AND stream_id = $3), -1) LIMIT 1";
  d.delete_models = "DELETE FROM wh_perspective_models WHERE perspective_name = $1";
  d.delete_stream_model =
      "DELETE FROM wh_perspective_models WHERE perspective_name = $1 AND stream_id = $2";
  d.rename_models =
      "UPDATE wh_perspective_models SET perspective_name = $1 WHERE perspective_name = $2";
  d.shadow_streams =
      "SELECT stream_id, version FROM wh_perspective_rebuild_streams WHERE perspective_name = $1";
  d.delete_shadow = "DELETE FROM wh_perspective_rebuild_streams WHERE perspective_name = $1";
  d.has_models = "SELECT 1 FROM wh_perspective_models WHERE perspective_name = $1 LIMIT 1";
  d.request =
      "INSERT INTO wh_perspective_rebuilds (perspective_name, mode, streams, status, "
      "requested_at, updated_at) VALUES ($1, $2, $3, 'requested', $4, $4) ON CONFLICT "
      "(perspective_name) DO UPDATE SET mode = excluded.mode, streams = excluded.streams, status = "
      "'requested', checkpoint = NULL, events_done = 0, events_total = 0, streams_done = 0, "
      "events_per_second = 0, instance_id = NULL, lease_expiry = NULL, requested_at = "
      "excluded.requested_at, started_at = NULL, updated_at = excluded.updated_at, error = '' "
      "WHERE wh_perspective_rebuilds.status NOT IN ('requested', 'running')";
  d.claim =
      "UPDATE wh_perspective_rebuilds SET status = 'running', instance_id = $2, lease_expiry = $3, "
      "started_at = COALESCE(started_at, $4), updated_at = $4 WHERE perspective_name = $1 AND "
      "(status = 'requested' OR (status = 'running' AND (instance_id IS NULL OR lease_expiry < $4 "
      "OR instance_id = $2)))";
  d.save =
      "UPDATE wh_perspective_rebuilds SET status = $3, checkpoint = $4, events_done = $5, "
      "events_total = $6, streams_done = $7, events_per_second = $8, error = $9, lease_expiry = "
      "$10, updated_at = $11 WHERE perspective_name = $1 AND instance_id = $2";
  d.select_rebuilds = kRebuildColumns + " ORDER BY perspective_name";
  d.select_rebuild = kRebuildColumns + " WHERE perspective_name = $1";
  d.select_versions =
      "SELECT perspective_name, version, built_at FROM wh_perspective_versions ORDER BY "
      "perspective_name";
  d.set_version =
      "INSERT INTO wh_perspective_versions (perspective_name, version, built_at) VALUES ($1, $2, "
      "$3) ON CONFLICT (perspective_name) DO UPDATE SET version = excluded.version, built_at = "
      "excluded.built_at";
  d.lag =
      "SELECT perspective_name, count(*), min(created_at) FROM wh_perspective_events WHERE "
      "processed_at IS NULL AND dead_lettered_at IS NULL GROUP BY perspective_name ORDER BY "
      "perspective_name";
  return d;
}

}  // namespace

const RebuildDialect& sqlite_rebuild_dialect() {
  static const RebuildDialect dialect = make_dialect();
  return dialect;
}

}  // namespace whizbang
