// SqlPerspectiveRebuild: the perspective-rebuild role over a backend's SqlSession.
#include "sql_perspective_rebuild.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "fmt/format.h"
#include "whizbang/internal/status_macros.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

namespace {

// An int64 column that may be NULL.
absl::StatusOr<std::optional<std::int64_t>> optional_int(const SqlRow& row, std::size_t column) {
  if (row.is_null(column)) return std::optional<std::int64_t>();
  WB_ASSIGN_OR_RETURN(std::int64_t value, row.int64(column));
  return std::optional<std::int64_t>(value);
}

}  // namespace

std::string event_types_json(std::span<const std::string> event_types) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  for (const std::string& type : event_types) {
    writer.String(type.data(), static_cast<rapidjson::SizeType>(type.size()));
  }
  writer.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::int64_t SqlPerspectiveRebuild::now_micros() const { return to_unix_micros(options_.now()); }

template <class T, class Body>
absl::StatusOr<T> SqlPerspectiveRebuild::in_transaction(Body&& body) {
  Transaction tx(transactions_);
  if (!tx.status().ok()) return tx.status();
  WB_ASSIGN_OR_RETURN(SqlSession * sql, tx.sql());
  absl::StatusOr<T> result = body(*sql);
  if (!result.ok()) return result.status();
  WB_RETURN_IF_ERROR(tx.commit());
  return result;
}

absl::StatusOr<std::vector<Uuid>> SqlPerspectiveRebuild::perspective_streams(
    std::span<const std::string> event_types, const std::optional<Uuid>& after, std::size_t limit) {
  const std::string types = event_types_json(event_types);
  return in_transaction<std::vector<Uuid>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::vector<Uuid>> {
        const auto count = static_cast<std::int64_t>(limit);
        absl::StatusOr<SqlRows> rows =
            after ? sql.query(dialect_.streams_after, {types, dialect_.uuid(*after), count})
                  : sql.query(dialect_.streams_first, {types, count});
        if (!rows.ok()) return rows.status();
        std::vector<Uuid> streams;
        streams.reserve(rows->rows.size());
        for (const SqlRow& row : rows->rows) {
          WB_ASSIGN_OR_RETURN(Uuid stream, dialect_.read_uuid(row, 0));
          streams.push_back(stream);
        }
        return streams;
      });
}

absl::StatusOr<std::int64_t> SqlPerspectiveRebuild::count_perspective_events(
    std::span<const std::string> event_types, std::span<const Uuid> streams) {
  const std::string types = event_types_json(event_types);
  return in_transaction<std::int64_t>([&](SqlSession& sql) -> absl::StatusOr<std::int64_t> {
    if (streams.empty()) {
      WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.count_all, {types}));
      return rows.rows.at(0).int64(0);
    }
    std::int64_t total = 0;
    for (const Uuid& stream : streams) {
      WB_ASSIGN_OR_RETURN(SqlRows rows,
                          sql.query(dialect_.count_stream, {types, dialect_.uuid(stream)}));
      WB_ASSIGN_OR_RETURN(std::int64_t count, rows.rows.at(0).int64(0));
      total += count;
    }
    return total;
  });
}

absl::StatusOr<std::vector<StoredEvent>> SqlPerspectiveRebuild::read_perspective_events(
    std::span<const Uuid> streams, std::span<const std::string> event_types) {
  const std::string types = event_types_json(event_types);
  return in_transaction<std::vector<StoredEvent>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::vector<StoredEvent>> {
        std::vector<StoredEvent> events;
        for (const Uuid& stream : streams) {
          WB_ASSIGN_OR_RETURN(SqlRows rows,
                              sql.query(dialect_.read_stream, {types, dialect_.uuid(stream)}));
          for (const SqlRow& row : rows.rows) {
            StoredEvent event;
            WB_ASSIGN_OR_RETURN(Uuid id, dialect_.read_uuid(row, 0));
            event.event_id = MessageId::from_trusted(id);
            event.stream_id = stream;
            WB_ASSIGN_OR_RETURN(event.event_type, row.text(1));
            WB_ASSIGN_OR_RETURN(event.event_data, row.text(2));
            WB_ASSIGN_OR_RETURN(event.metadata, row.text(3));
            WB_ASSIGN_OR_RETURN(event.version, row.int64(4));
            WB_ASSIGN_OR_RETURN(std::int64_t created, row.int64(5));
            event.created_at = from_unix_micros(created);
            events.push_back(std::move(event));
          }
        }
        return events;
      });
}

absl::Status SqlPerspectiveRebuild::complete_replayed(SqlSession& sql, std::string_view perspective,
                                                      const Uuid& stream, std::int64_t version) {
  WB_ASSIGN_OR_RETURN(SqlRows work, sql.query(dialect_.replayed_work,
                                              {perspective, dialect_.uuid(stream), version}));
  const std::int64_t now = now_micros();
  const std::int64_t lease =
      now + std::chrono::duration_cast<std::chrono::microseconds>(options_.lease_duration).count();
  for (const SqlRow& row : work.rows) {
    WB_ASSIGN_OR_RETURN(Uuid work_id, dialect_.read_uuid(row, 0));
    WB_ASSIGN_OR_RETURN(Uuid event_id, dialect_.read_uuid(row, 1));
    // Completions of one event's perspective events take turns, so exactly one sees the last
    // one gone (the WhenAll gate opens once), as in complete_perspective_work.
    if (!dialect_.lock_event.empty()) {
      WB_RETURN_IF_ERROR(sql.query(dialect_.lock_event, {dialect_.uuid(event_id)}).status());
    }
    WB_ASSIGN_OR_RETURN(std::int64_t deleted,
                        sql.execute(dialect_.delete_work, {dialect_.uuid(work_id)}));
    if (deleted == 0) continue;
    WB_ASSIGN_OR_RETURN(SqlRows remaining,
                        sql.query(dialect_.work_remaining, {dialect_.uuid(event_id)}));
    WB_ASSIGN_OR_RETURN(std::int64_t left, remaining.rows.at(0).int64(0));
    if (left != 0) continue;
    WB_RETURN_IF_ERROR(sql.execute(dialect_.insert_lifecycle,
                                   {dialect_.uuid(event_id), dialect_.uuid(stream),
                                    dialect_.uuid(options_.instance.instance_id), lease, now})
                           .status());
  }
  return absl::OkStatus();
}

absl::Status SqlPerspectiveRebuild::complete_replayed_events(std::string_view perspective,
                                                             const Uuid& stream,
                                                             std::int64_t version) {
  return in_transaction<bool>([&](SqlSession& sql) -> absl::StatusOr<bool> {
           WB_RETURN_IF_ERROR(complete_replayed(sql, perspective, stream, version));
           return true;
         })
      .status();
}

absl::Status SqlPerspectiveRebuild::record_shadow_stream(std::string_view shadow,
                                                         const Uuid& stream, std::int64_t version) {
  return in_transaction<std::int64_t>([&](SqlSession& sql) {
           return sql.execute(dialect_.record_shadow, {shadow, dialect_.uuid(stream), version});
         })
      .status();
}

absl::StatusOr<std::vector<Uuid>> SqlPerspectiveRebuild::shadow_streams_behind(
    std::string_view shadow, std::span<const std::string> event_types,
    std::span<const Uuid> streams) {
  const std::string types = event_types_json(event_types);
  return in_transaction<std::vector<Uuid>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::vector<Uuid>> {
        std::vector<Uuid> behind;
        if (streams.empty()) {
          WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.behind_all, {shadow, types}));
          for (const SqlRow& row : rows.rows) {
            WB_ASSIGN_OR_RETURN(Uuid stream, dialect_.read_uuid(row, 0));
            behind.push_back(stream);
          }
          return behind;
        }
        for (const Uuid& stream : streams) {
          WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.behind_stream,
                                                      {shadow, types, dialect_.uuid(stream)}));
          if (!rows.rows.empty()) behind.push_back(stream);
        }
        return behind;
      });
}

absl::Status SqlPerspectiveRebuild::lock_perspective_models(std::string_view) {
  if (dialect_.lock_models.empty()) return absl::OkStatus();
  return in_transaction<std::int64_t>(
             [&](SqlSession& sql) { return sql.execute(dialect_.lock_models, {}); })
      .status();
}

absl::Status SqlPerspectiveRebuild::swap_shadow_models(std::string_view perspective,
                                                       std::string_view shadow,
                                                       std::span<const Uuid> streams) {
  return in_transaction<bool>([&](SqlSession& sql) -> absl::StatusOr<bool> {
           if (streams.empty()) {
             WB_RETURN_IF_ERROR(sql.execute(dialect_.delete_models, {perspective}).status());
           } else {
             for (const Uuid& stream : streams) {
               WB_RETURN_IF_ERROR(
                   sql.execute(dialect_.delete_stream_model, {perspective, dialect_.uuid(stream)})
                       .status());
             }
           }
           WB_RETURN_IF_ERROR(sql.execute(dialect_.rename_models, {perspective, shadow}).status());
           WB_ASSIGN_OR_RETURN(SqlRows covered, sql.query(dialect_.shadow_streams, {shadow}));
           for (const SqlRow& row : covered.rows) {
             WB_ASSIGN_OR_RETURN(Uuid stream, dialect_.read_uuid(row, 0));
             WB_ASSIGN_OR_RETURN(std::int64_t version, row.int64(1));
             WB_RETURN_IF_ERROR(complete_replayed(sql, perspective, stream, version));
           }
           WB_RETURN_IF_ERROR(sql.execute(dialect_.delete_shadow, {shadow}).status());
           return true;
         })
      .status();
}

absl::Status SqlPerspectiveRebuild::drop_perspective_models(std::string_view perspective) {
  return in_transaction<bool>([&](SqlSession& sql) -> absl::StatusOr<bool> {
           WB_RETURN_IF_ERROR(sql.execute(dialect_.delete_models, {perspective}).status());
           WB_RETURN_IF_ERROR(sql.execute(dialect_.delete_shadow, {perspective}).status());
           return true;
         })
      .status();
}

absl::StatusOr<bool> SqlPerspectiveRebuild::has_perspective_models(std::string_view perspective) {
  return in_transaction<bool>([&](SqlSession& sql) -> absl::StatusOr<bool> {
    WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.has_models, {perspective}));
    return !rows.rows.empty();
  });
}

absl::StatusOr<bool> SqlPerspectiveRebuild::request_perspective_rebuild(
    const PerspectiveRebuildRow& row) {
  return in_transaction<bool>([&](SqlSession& sql) -> absl::StatusOr<bool> {
    WB_ASSIGN_OR_RETURN(
        std::int64_t changed,
        sql.execute(dialect_.request, {row.perspective_name, row.mode, row.streams, now_micros()}));
    return changed > 0;
  });
}

absl::StatusOr<PerspectiveRebuildRow> SqlPerspectiveRebuild::read_row(const SqlRow& row) const {
  PerspectiveRebuildRow out;
  WB_ASSIGN_OR_RETURN(out.perspective_name, row.text(0));
  WB_ASSIGN_OR_RETURN(out.mode, row.text(1));
  WB_ASSIGN_OR_RETURN(out.streams, row.text(2));
  WB_ASSIGN_OR_RETURN(out.status, row.text(3));
  if (!row.is_null(4)) {
    WB_ASSIGN_OR_RETURN(Uuid checkpoint, dialect_.read_uuid(row, 4));
    out.checkpoint = checkpoint;
  }
  WB_ASSIGN_OR_RETURN(out.events_done, row.int64(5));
  WB_ASSIGN_OR_RETURN(out.events_total, row.int64(6));
  WB_ASSIGN_OR_RETURN(out.streams_done, row.int64(7));
  WB_ASSIGN_OR_RETURN(out.events_per_second, row.real(8));
  if (!row.is_null(9)) {
    WB_ASSIGN_OR_RETURN(Uuid instance, dialect_.read_uuid(row, 9));
    out.instance_id = instance;
  }
  WB_ASSIGN_OR_RETURN(std::optional<std::int64_t> lease, optional_int(row, 10));
  if (lease) out.lease_expiry = from_unix_micros(*lease);
  WB_ASSIGN_OR_RETURN(std::int64_t requested, row.int64(11));
  out.requested_at = from_unix_micros(requested);
  WB_ASSIGN_OR_RETURN(std::optional<std::int64_t> started, optional_int(row, 12));
  if (started) out.started_at = from_unix_micros(*started);
  WB_ASSIGN_OR_RETURN(std::int64_t updated, row.int64(13));
  out.updated_at = from_unix_micros(updated);
  WB_ASSIGN_OR_RETURN(out.error, row.text(14));
  return out;
}

absl::StatusOr<std::optional<PerspectiveRebuildRow>>
SqlPerspectiveRebuild::claim_perspective_rebuild(std::span<const std::string> perspectives,
                                                 std::chrono::milliseconds lease) {
  return in_transaction<std::optional<PerspectiveRebuildRow>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::optional<PerspectiveRebuildRow>> {
        const std::int64_t now = now_micros();
        const std::int64_t expiry =
            now + std::chrono::duration_cast<std::chrono::microseconds>(lease).count();
        for (const std::string& name : perspectives) {
          WB_ASSIGN_OR_RETURN(
              std::int64_t claimed,
              sql.execute(dialect_.claim,
                          {name, dialect_.uuid(options_.instance.instance_id), expiry, now}));
          if (claimed == 0) continue;
          WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.select_rebuild, {name}));
          if (rows.rows.empty()) continue;
          WB_ASSIGN_OR_RETURN(PerspectiveRebuildRow row, read_row(rows.rows.front()));
          return std::optional<PerspectiveRebuildRow>(std::move(row));
        }
        return std::optional<PerspectiveRebuildRow>();
      });
}

absl::StatusOr<bool> SqlPerspectiveRebuild::save_perspective_rebuild(
    const PerspectiveRebuildRow& row, std::chrono::milliseconds lease) {
  return in_transaction<bool>([&](SqlSession& sql) -> absl::StatusOr<bool> {
    const std::int64_t now = now_micros();
    const std::int64_t expiry =
        now + std::chrono::duration_cast<std::chrono::microseconds>(lease).count();
    const SqlParam checkpoint =
        row.checkpoint ? dialect_.uuid(*row.checkpoint) : SqlParam(std::nullopt);
    const SqlParam parameters[] = {row.perspective_name,
                                   dialect_.uuid(options_.instance.instance_id),
                                   row.status,
                                   checkpoint,
                                   static_cast<long long>(row.events_done),
                                   static_cast<long long>(row.events_total),
                                   static_cast<long long>(row.streams_done),
                                   row.events_per_second,
                                   row.error,
                                   static_cast<long long>(expiry),
                                   static_cast<long long>(now)};
    WB_ASSIGN_OR_RETURN(std::int64_t changed, sql.execute(dialect_.save, parameters));
    return changed > 0;
  });
}

absl::StatusOr<std::vector<PerspectiveRebuildRow>> SqlPerspectiveRebuild::perspective_rebuilds() {
  return in_transaction<std::vector<PerspectiveRebuildRow>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::vector<PerspectiveRebuildRow>> {
        WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.select_rebuilds, {}));
        std::vector<PerspectiveRebuildRow> out;
        for (const SqlRow& row : rows.rows) {
          WB_ASSIGN_OR_RETURN(PerspectiveRebuildRow read, read_row(row));
          out.push_back(std::move(read));
        }
        return out;
      });
}

absl::StatusOr<std::vector<PerspectiveVersionRow>> SqlPerspectiveRebuild::perspective_versions() {
  return in_transaction<std::vector<PerspectiveVersionRow>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::vector<PerspectiveVersionRow>> {
        WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.select_versions, {}));
        std::vector<PerspectiveVersionRow> out;
        for (const SqlRow& row : rows.rows) {
          PerspectiveVersionRow read;
          WB_ASSIGN_OR_RETURN(read.perspective_name, row.text(0));
          WB_ASSIGN_OR_RETURN(std::int64_t version, row.int64(1));
          read.version = static_cast<std::uint32_t>(version);
          WB_ASSIGN_OR_RETURN(std::int64_t built, row.int64(2));
          read.built_at = from_unix_micros(built);
          out.push_back(std::move(read));
        }
        return out;
      });
}

absl::Status SqlPerspectiveRebuild::set_perspective_version(std::string_view perspective,
                                                            std::uint32_t version) {
  return in_transaction<std::int64_t>([&](SqlSession& sql) {
           return sql.execute(dialect_.set_version, {perspective, version, now_micros()});
         })
      .status();
}

absl::StatusOr<std::vector<PerspectiveLag>> SqlPerspectiveRebuild::perspective_lag() {
  return in_transaction<std::vector<PerspectiveLag>>(
      [&](SqlSession& sql) -> absl::StatusOr<std::vector<PerspectiveLag>> {
        WB_ASSIGN_OR_RETURN(SqlRows rows, sql.query(dialect_.lag, {}));
        std::vector<PerspectiveLag> out;
        for (const SqlRow& row : rows.rows) {
          PerspectiveLag lag;
          WB_ASSIGN_OR_RETURN(lag.perspective_name, row.text(0));
          WB_ASSIGN_OR_RETURN(lag.pending_events, row.int64(1));
          WB_ASSIGN_OR_RETURN(std::optional<std::int64_t> oldest, optional_int(row, 2));
          if (oldest) lag.oldest_pending = from_unix_micros(*oldest);
          out.push_back(std::move(lag));
        }
        return out;
      });
}

}  // namespace whizbang
