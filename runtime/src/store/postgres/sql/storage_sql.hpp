// PostgreSQL SQL: storing outbox and inbox rows (the outbox and inbox roles).
#pragma once

#include <string>
#include <string_view>

#include "postgres/sql/dialect.hpp"

namespace whizbang::postgres::sql {

// ---- storage ----------------------------------------------------------------------------------
// A batch of outbox rows in one statement, one array per column (binary_array.hpp): ?1 ids
// ?2 destinations ?3 types ?4 envelopes ?5 scopes ?6 streams ?7 is_event ?8 scheduled for; ?9 now
// ?10 instance ?11 lease expiry. A row is inserted only when its id is new to wh_outbox_ids (the
// first of several rows with one id); returns the ids inserted. Ids are taken in id order, so
// two batches sharing ids lock them in the same order.
inline const std::string kInsertOutbox =
    "WITH input AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], "
    "$5::text[], $6::uuid[], $7::boolean[], $8::bigint[]) WITH ORDINALITY AS i(message_id, "
    "destination, message_type, event_data, scope, stream_id, is_event, scheduled_for, n)), "
    "fresh AS (INSERT INTO wh_outbox_ids (message_id, stored_at) SELECT DISTINCT message_id, "
    "$9::bigint FROM input ORDER BY message_id ON CONFLICT (message_id) DO NOTHING "
    "RETURNING message_id) "
    "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, scope, stream_id, "
    "is_event, status, attempts, instance_id, lease_expiry, created_at, scheduled_for) "
    "SELECT DISTINCT ON (i.message_id) i.message_id, i.destination, i.message_type, "
    "i.event_data, i.scope, i.stream_id, i.is_event, 1, 0, $10::uuid, $11::bigint, $9::bigint, "
    "i.scheduled_for FROM input i JOIN fresh USING (message_id) ORDER BY i.message_id, i.n "
    "RETURNING message_id";
// ?1 id ?2 handler ?3 type ?4 envelope ?5 stream ?6 is_event ?7 source service ?8 now. The row is
// inserted only when its id is new to wh_message_deduplication (permanent inbox dedup).
inline const std::string kInsertInbox =
    "WITH fresh AS (INSERT INTO wh_message_deduplication (message_id, first_seen_at) "
    "VALUES ($1::uuid, $8::bigint) ON CONFLICT (message_id) DO NOTHING RETURNING message_id) "
    "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, stream_id, "
    "is_event, status, attempts, source_service_id, received_at) SELECT message_id, $2::text, "
    "$3::text, $4::text, $5::uuid, $6::boolean, 1, 0, $7::uuid, $8::bigint FROM fresh "
    "ON CONFLICT (message_id) DO NOTHING";

}  // namespace whizbang::postgres::sql
