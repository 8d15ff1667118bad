// PostgreSQL's statements of the perspective-rebuild role. Uuids travel as text (`::uuid`).
// The swap locks wh_perspective_models against writers (SHARE ROW EXCLUSIVE): a live apply's
// save waits until the swap commits, then finds its perspective event completed by the swap and
// rolls back. An event's completions take its advisory lock, as complete_perspective_work does.
#include "postgres/postgres_perspective_rebuild.hpp"

#include "postgres/sql/rebuild_sql.hpp"

namespace whizbang {

namespace {

SqlParam uuid_param(const Uuid& id) { return SqlParam(id.to_string()); }

absl::StatusOr<Uuid> read_uuid(const SqlRow& row, std::size_t column) {
  absl::StatusOr<std::string> text = row.text(column);
  if (!text.ok()) return text.status();
  return Uuid::parse(*text);
}

RebuildDialect make_dialect() {
  using postgres::sql::kRebuildColumns;
  using postgres::sql::kTypesOf1;
  RebuildDialect d;
  d.uuid = uuid_param;
  d.read_uuid = read_uuid;
  d.streams_first =
      "SELECT DISTINCT stream_id::text AS s FROM wh_event_store WHERE event_type "
      "IN " +
      kTypesOf1 + " ORDER BY s LIMIT $2";
  d.streams_after =
      "SELECT DISTINCT stream_id::text AS s FROM wh_event_store WHERE event_type "
      "IN " +
      kTypesOf1 + " AND stream_id > $2::uuid ORDER BY s LIMIT $3";
  d.count_all = "SELECT count(*) FROM wh_event_store WHERE event_type IN " + kTypesOf1;
  d.count_stream =
      "SELECT count(*) FROM wh_event_store WHERE stream_id = $2::uuid AND event_type IN " +
      kTypesOf1;
  d.read_stream =
      "SELECT event_id::text, event_type, event_data, metadata, version, created_at FROM "
      "wh_event_store WHERE stream_id = $2::uuid AND event_type IN " +
      kTypesOf1 + " ORDER BY version";
  d.replayed_work =
      "SELECT event_work_id::text, event_id::text FROM wh_perspective_events WHERE "
      "perspective_name = $1::text AND stream_id = $2::uuid AND stream_version <= $3";
  d.lock_event = "SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))";
  d.delete_work = "DELETE FROM wh_perspective_events WHERE event_work_id = $1::uuid";
  d.work_remaining = "SELECT count(*) FROM wh_perspective_events WHERE event_id = $1::uuid";
  d.insert_lifecycle =
      "INSERT INTO wh_lifecycle_completions (event_id, stream_id, instance_id, lease_expiry, "
      "created_at) VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5) ON CONFLICT (event_id) DO "
      "NOTHING";
  d.record_shadow =
      "INSERT INTO wh_perspective_rebuild_streams (perspective_name, stream_id, version) VALUES "
      "($1::text, $2::uuid, $3) ON CONFLICT (perspective_name, stream_id) DO UPDATE SET version "
      "= excluded.version";
  d.behind_all =
      "SELECT DISTINCT es.stream_id::text FROM wh_event_store es LEFT JOIN "
      "wh_perspective_rebuild_streams rs ON rs.perspective_name = $1::text AND rs.stream_id = "
      "es.stream_id WHERE es.event_type IN " +
      postgres::sql::kTypesOf2 + " AND (rs.version IS NULL OR es.version > rs.version) ORDER BY 1";
  d.behind_stream =
      "SELECT 1 FROM wh_event_store es WHERE es.stream_id = $3::uuid AND es.event_type IN " +
      postgres::sql::kTypesOf2 +
      " AND es.version > COALESCE((SELECT version FROM wh_perspective_rebuild_streams WHERE "
      "perspective_name = $1::text AND stream_id = $3::uuid), -1) LIMIT 1";
  d.lock_models = "LOCK TABLE wh_perspective_models IN SHARE ROW EXCLUSIVE MODE";
  d.delete_models = "DELETE FROM wh_perspective_models WHERE perspective_name = $1::text";
  d.delete_stream_model =
      "DELETE FROM wh_perspective_models WHERE perspective_name = $1::text AND stream_id = "
      "$2::uuid";
  d.rename_models =
      "UPDATE wh_perspective_models SET perspective_name = $1::text WHERE perspective_name = "
      "$2::text";
  d.shadow_streams =
      "SELECT stream_id::text, version FROM wh_perspective_rebuild_streams WHERE "
      "perspective_name = $1::text";
  d.delete_shadow = "DELETE FROM wh_perspective_rebuild_streams WHERE perspective_name = $1::text";
  d.has_models = "SELECT 1 FROM wh_perspective_models WHERE perspective_name = $1::text LIMIT 1";
  d.request =
      "INSERT INTO wh_perspective_rebuilds AS r (perspective_name, mode, streams, status, "
      "requested_at, updated_at) VALUES ($1::text, $2::text, $3::text, 'requested', $4, $4) ON "
      "CONFLICT (perspective_name) DO UPDATE SET mode = excluded.mode, streams = "
      "excluded.streams, status = 'requested', checkpoint = NULL, events_done = 0, events_total = "
      "0, streams_done = 0, events_per_second = 0, instance_id = NULL, lease_expiry = NULL, "
      "requested_at = excluded.requested_at, started_at = NULL, updated_at = excluded.updated_at, "
      "error = '' WHERE r.status NOT IN ('requested', 'running')";
  d.claim =
      "UPDATE wh_perspective_rebuilds SET status = 'running', instance_id = $2::uuid, "
      "lease_expiry = $3, started_at = COALESCE(started_at, $4), updated_at = $4 WHERE "
      "perspective_name = $1::text AND (status = 'requested' OR (status = 'running' AND "
      "(instance_id IS NULL OR lease_expiry < $4 OR instance_id = $2::uuid)))";
  d.save =
      "UPDATE wh_perspective_rebuilds SET status = $3::text, checkpoint = $4::uuid, events_done "
      "= $5, events_total = $6, streams_done = $7, events_per_second = $8, error = $9::text, "
      "lease_expiry = $10, updated_at = $11 WHERE perspective_name = $1::text AND instance_id = "
      "$2::uuid";
  d.select_rebuilds = kRebuildColumns + " ORDER BY perspective_name";
  d.select_rebuild = kRebuildColumns + " WHERE perspective_name = $1::text";
  d.select_versions =
      "SELECT perspective_name, version, built_at FROM wh_perspective_versions ORDER BY "
      "perspective_name";
  d.set_version =
      "INSERT INTO wh_perspective_versions (perspective_name, version, built_at) VALUES "
      "($1::text, $2, $3) ON CONFLICT (perspective_name) DO UPDATE SET version = "
      "excluded.version, built_at = excluded.built_at";
  d.lag =
      "SELECT perspective_name, count(*), min(created_at) FROM wh_perspective_events WHERE "
      "processed_at IS NULL AND dead_lettered_at IS NULL GROUP BY perspective_name ORDER BY "
      "perspective_name";
  return d;
}

}  // namespace

const RebuildDialect& postgres_rebuild_dialect() {
  static const RebuildDialect dialect = make_dialect();
  return dialect;
}

}  // namespace whizbang
