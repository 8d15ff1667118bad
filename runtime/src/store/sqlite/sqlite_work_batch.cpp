// process_work_batch on SQLite: heartbeat, completions, failures, storage, claiming, event-store
// append, perspective events, lease renewals — one transaction.
#include <algorithm>
#include <set>

#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"
#include "whizbang/observability/row_quarantine.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<bool> SqliteCore::any_claimable(const std::string& sql,
                                               std::optional<std::int64_t> fourth) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sql));
  Use use(*connection, stmt);
  use.bind_int(1, now_micros());
  use.bind_uuid(2, options.instance.instance_id);
  use.bind_int(3, 1);
  if (fourth) use.bind_int(4, *fourth);
  return use.step();
}

absl::StatusOr<bool> SqliteCore::nothing_claimable(const std::string& sql) {
  if (gate.in_transaction()) return false;
  absl::StatusOr<bool> any = gate.run_read([&] { return any_claimable(sql, std::nullopt); });
  if (!any.ok()) return any.status();
  return !*any;
}

absl::StatusOr<bool> SqliteCore::idle_poll(const WorkBatchRequest& request) {
  if (!request.completions.empty() || !request.failures.empty() || !request.new_outbox.empty() ||
      !request.new_inbox.empty() || !request.renewals.empty() ||
      store_internal::heartbeat_due(last_heartbeat, now_micros())) {
    return false;
  }
  if (request.claim_outbox) {
    WB_ASSIGN_OR_RETURN(bool any, any_claimable(sqlite::sql::claimable(WorkSource::Outbox),
                                                request.event_store_outbox_only ? 1 : 0));
    if (any) return false;
  }
  if (request.claim_inbox) {
    WB_ASSIGN_OR_RETURN(bool any,
                        any_claimable(sqlite::sql::claimable(WorkSource::Inbox), std::nullopt));
    if (any) return false;
  }
  return true;
}

absl::StatusOr<std::vector<WorkItem>> SqliteCore::process(const WorkBatchRequest& request) {
  const std::int64_t now = now_micros();
  if (store_internal::heartbeat_due(last_heartbeat, now)) {
    last_heartbeat = now;
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kHeartbeat));
    Use use(*connection, stmt);
    use.bind_uuid(1, options.instance.instance_id);
    use.bind_text(2, std::string_view(options.instance.service_name));
    use.bind_text(3, std::string_view(options.instance.host_name));
    use.bind_int(4, options.instance.process_id);
    use.bind_int(5, now);
    WB_RETURN_IF_ERROR(use.run());
  }
  WB_RETURN_IF_ERROR(complete(request.completions, request.failures, request.debug_mode));

  std::set<MessageId> newly_stored;
  WB_ASSIGN_OR_RETURN(std::vector<StoredOutboxRow> outbox_rows, store_outbox(request.new_outbox));
  store_internal::report_deduplicated(options, request.new_outbox, outbox_rows);
  for (const StoredOutboxRow& row : outbox_rows) {
    if (row.was_newly_created) newly_stored.insert(row.message_id);
  }
  WB_ASSIGN_OR_RETURN(std::vector<MessageId> inbox_ids,
                      store_inbox(request.new_inbox, request.receiving_service_id));
  newly_stored.insert(inbox_ids.begin(), inbox_ids.end());

  std::vector<WorkItem> items;
  if (request.claim_outbox) {
    WB_RETURN_IF_ERROR(claim(WorkSource::Outbox, request, newly_stored, items));
  }
  if (request.claim_inbox) {
    WB_RETURN_IF_ERROR(claim(WorkSource::Inbox, request, newly_stored, items));
  }

  if (!request.renewals.empty()) {
    WB_ASSIGN_OR_RETURN(std::vector<MessageId> renewed, renew(request.renewals));
    (void)renewed;  // a lost lease shows when the row's completion no longer applies
  }
  return items;
}

absl::StatusOr<std::vector<MessageId>> SqliteCore::renew(std::span<const WorkLease> leases) {
  const std::int64_t lease_expiry = now_micros() + lease_micros();
  std::vector<MessageId> renewed;
  for (const WorkLease& lease : leases) {
    // A lease taken just now is kept, as a claim keeps it: renewing it would rewrite the row for
    // a lease a moment longer. Whether the row is still this instance's is read either way,
    // inside the caller's transaction.
    {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                          connection->prepare(sqlite::sql::lease_held_until(lease.source)));
      Use use(*connection, stmt);
      use.bind_uuid(1, lease.message_id.uuid());
      use.bind_uuid(2, options.instance.instance_id);
      WB_ASSIGN_OR_RETURN(bool held, use.step());
      if (!held) continue;  // another instance's, or gone
      if (lease_taken_just_now(use.optional_int64(0), lease_expiry)) {
        renewed.push_back(lease.message_id);
        continue;
      }
    }
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        connection->prepare(sqlite::sql::renew_row(lease.source)));
    Use use(*connection, stmt);
    use.bind_uuid(1, lease.message_id.uuid());
    use.bind_uuid(2, options.instance.instance_id);
    use.bind_int(3, lease_expiry);
    WB_RETURN_IF_ERROR(use.run());
    if (use.changes() == 1) renewed.push_back(lease.message_id);
  }
  return renewed;
}

absl::Status SqliteCore::claim(WorkSource source, const WorkBatchRequest& request,
                               const std::set<MessageId>& newly_stored,
                               std::vector<WorkItem>& items) {
  const std::int64_t now = now_micros();
  const std::int64_t lease_expiry = now + lease_micros();
  const std::size_t first = items.size();
  // Rows this instance leased just now (an outbox row is stored leased to its writer) keep that
  // lease: rewriting it would rewrite the row, envelope and all, for a lease a moment longer
  // (docs/guide/06-stores-and-workers.md, "What a claim writes").
  std::vector<bool> lease_kept;  // by position in the claim
  {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::claimable(source)));
    Use use(*connection, stmt);
    use.bind_int(1, now);
    use.bind_uuid(2, options.instance.instance_id);
    use.bind_int(3, static_cast<std::int64_t>(request.max_items));
    if (source == WorkSource::Outbox) use.bind_int(4, request.event_store_outbox_only ? 1 : 0);
    while (true) {
      WB_ASSIGN_OR_RETURN(bool row, use.step());
      if (!row) break;
      WorkItem item = store_internal::decode_claimed_item(use, source, now, lease_expiry);
      item.is_newly_stored = newly_stored.contains(item.message_id);
      const std::optional<std::int64_t> held_until = use.optional_int64(10);
      const bool keep = lease_taken_just_now(held_until, lease_expiry) &&
                        use.optional_uuid(9) == options.instance.instance_id;
      if (keep) item.lease_expiry = from_unix_micros(*held_until);
      lease_kept.push_back(keep);
      items.push_back(std::move(item));
    }
  }
  // Event rows go to the event store in event-id order (the claim order), so a stream's
  // versions follow the order its events were caused in. The appended event is the row's
  // "stored" mark (sql::status_read): the row itself is written only for a lease of its own.
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * lease, connection->prepare(sqlite::sql::lease_row(source)));
  std::vector<WorkItem> kept;
  PerspectiveTargets targets;
  for (std::size_t i = first; i < items.size(); ++i) {
    WorkItem& item = items[i];
    WB_ASSIGN_OR_RETURN(bool stored, append_unless_stored(item, targets));
    if (!stored) continue;  // quarantined (and so not leased)
    if (!lease_kept[i - first]) {
      Use use(*connection, lease);
      use.bind_uuid(1, item.message_id.uuid());
      use.bind_uuid(2, options.instance.instance_id);
      use.bind_int(3, lease_expiry);
      WB_RETURN_IF_ERROR(use.run());
    }
    kept.push_back(std::move(item));
  }
  items.resize(first);
  std::move(kept.begin(), kept.end(), std::back_inserter(items));
  return absl::OkStatus();
}

absl::StatusOr<bool> SqliteCore::append_unless_stored(WorkItem& item, PerspectiveTargets& targets) {
  if (!item.is_event || !item.stream_id || has_status(item.status, MessageStatus::EventStored)) {
    return true;
  }
  WB_ASSIGN_OR_RETURN(bool stored, append_event(item, targets));
  if (stored) item.status = item.status | MessageStatus::EventStored;
  return stored;
}

absl::StatusOr<bool> SqliteCore::append_event(WorkItem& item, PerspectiveTargets& targets) {
  absl::StatusOr<store_internal::EventParts> parts =
      store_internal::event_parts(item.envelope_json);
  if (!parts.ok()) {
    const std::string reason(parts.status().message());
    log_quarantined_row(options.logger, sqlite::sql::table(item.source), item.message_id, reason);
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        connection->prepare(sqlite::sql::quarantine_row(item.source)));
    Use use(*connection, stmt);
    use.bind_uuid(1, item.message_id.uuid());
    use.bind_text(2, std::string_view(reason));
    use.bind_int(3, now_micros());
    WB_RETURN_IF_ERROR(use.run());
    return false;
  }
  WB_RETURN_IF_ERROR(append_event_parts(item, *parts, targets));
  return true;
}

absl::Status SqliteCore::append_event_parts(const WorkItem& item,
                                            const store_internal::EventParts& parts,
                                            PerspectiveTargets& targets) {
  const std::int64_t now = now_micros();
  std::int64_t version = 0;
  {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kStreamMaxVersion));
    Use use(*connection, stmt);
    use.bind_uuid(1, *item.stream_id);
    WB_ASSIGN_OR_RETURN(bool row, use.step());
    version = (row ? use.int64(0) : 0) + 1;
  }
  bool appended = false;
  {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kAppendEvent));
    Use use(*connection, stmt);
    use.bind_uuid(1, item.message_id.uuid());
    use.bind_uuid(2, *item.stream_id);
    use.bind_text(3, std::string_view(item.message_type));
    use.bind_text(4, std::string_view(parts.event_data));
    use.bind_text(5, std::string_view(parts.metadata));
    use.bind_int(6, version);
    use.bind_int(7, now);
    WB_RETURN_IF_ERROR(use.run());
    appended = use.changes() == 1;
  }
  if (appended) {
    auto known = targets.find(item.message_type);
    if (known == targets.end()) {
      std::vector<std::string> perspectives;
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kPerspectivesOf));
      Use use(*connection, stmt);
      use.bind_text(1, std::string_view(item.message_type));
      while (true) {
        WB_ASSIGN_OR_RETURN(bool row, use.step());
        if (!row) break;
        perspectives.push_back(use.text(0));
      }
      known = targets.emplace(item.message_type, std::move(perspectives)).first;
    }
    const std::vector<std::string>& perspectives = known->second;
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * insert,
                        connection->prepare(sqlite::sql::kInsertPerspectiveEvent));
    for (const std::string& perspective : perspectives) {
      const MessageId work_id = MessageId::mint();
      Use use(*connection, insert);
      use.bind_uuid(1, work_id.uuid());
      use.bind_uuid(2, *item.stream_id);
      use.bind_text(3, std::string_view(perspective));
      use.bind_uuid(4, item.message_id.uuid());
      use.bind_uuid(5, options.instance.instance_id);
      use.bind_int(6, now + lease_micros());
      use.bind_int(7, now);
      use.bind_int(8, version);
      WB_RETURN_IF_ERROR(use.run());
    }
  }
  return absl::OkStatus();
}

}  // namespace whizbang
