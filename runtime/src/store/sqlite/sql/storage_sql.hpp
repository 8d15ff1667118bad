// SQLite SQL: storing outbox and inbox rows (the outbox and inbox roles).
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

// ---- storage ----------------------------------------------------------------------------------
// ?1 id ?2 destination ?3 type ?4 envelope ?5 scope ?6 stream ?7 is_event ?8 instance ?9 lease
// ?10 now ?11 scheduled for. A tombstoned (published) id is a duplicate like an existing row.
inline const std::string kInsertOutbox =
    "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, scope, stream_id, "
    "is_event, status, attempts, instance_id, lease_expiry, created_at, scheduled_for) "
    "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, 0, ?8, ?9, ?10, ?11 "
    "WHERE NOT EXISTS (SELECT 1 FROM wh_outbox_tombstones WHERE message_id = ?1) "
    "ON CONFLICT (message_id) DO NOTHING";
inline const std::string kInsertDeduplication =
    "INSERT INTO wh_message_deduplication (message_id, first_seen_at) VALUES (?1, ?2) "
    "ON CONFLICT (message_id) DO NOTHING";
// ?1 id ?2 handler ?3 type ?4 envelope ?5 stream ?6 is_event ?7 source service ?8 now ?9 instance
// ?10 lease expiry (both NULL: stored unleased)
inline const std::string kInsertInbox =
    "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, stream_id, "
    "is_event, status, attempts, source_service_id, received_at, instance_id, lease_expiry) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, 0, ?7, ?8, ?9, ?10) ON CONFLICT (message_id) DO NOTHING";

// ?1 stream: an inbox row of it still to handle (handled rows are deleted; kept dead letters
// hold nothing back).
inline const std::string kInboxStreamWaits =
    "SELECT 1 FROM wh_inbox WHERE stream_id = ?1 AND processed_at IS NULL "
    "AND dead_lettered_at IS NULL LIMIT 1";

}  // namespace whizbang::sqlite::sql
