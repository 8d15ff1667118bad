// process_work_batch on PostgreSQL: heartbeat (when due), completions, failures, storage, claims
// and lease renewals sent as one pipeline (one round trip), then the event-store appends of the
// claimed event rows — one transaction.
#include <algorithm>
#include <set>

#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"
#include "whizbang/observability/row_quarantine.hpp"

namespace whizbang {

using postgres::Pipeline;
using postgres::Query;

absl::StatusOr<std::vector<WorkItem>> PostgresCore::process(const WorkBatchRequest& request) {
  const std::int64_t now = now_micros();
  const std::int64_t lease_expiry = now + lease_micros();
  Pipeline pipeline(*connection);
  pipeline.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
  const bool heartbeat_due = store_internal::heartbeat_due(last_heartbeat, now);
  if (heartbeat_due) {
    Query& heartbeat = pipeline.add(postgres::sql::kHeartbeat);
    heartbeat.bind_uuid(1, options.instance.instance_id);
    heartbeat.bind_text(2, options.instance.service_name);
    heartbeat.bind_text(3, options.instance.host_name);
    heartbeat.bind_int(4, options.instance.process_id);
    heartbeat.bind_int(5, now);
  }
  const Queries failing =
      add_completions(pipeline, request.completions, request.failures, request.debug_mode);
  const Queries outbox_inserts = add_outbox(pipeline, request.new_outbox);
  const Queries inbox_inserts =
      add_inbox(pipeline, request.new_inbox, request.receiving_service_id);
  Query* outbox_claim = request.claim_outbox
                            ? &add_claim(pipeline, WorkSource::Outbox, request, lease_expiry)
                            : nullptr;
  Query* inbox_claim = request.claim_inbox
                           ? &add_claim(pipeline, WorkSource::Inbox, request, lease_expiry)
                           : nullptr;
  // A lost lease shows when the row's completion no longer applies: renewals' answers unread.
  (void)add_renewals(pipeline, request.renewals);
  WB_RETURN_IF_ERROR(pipeline.run());
  if (heartbeat_due) last_heartbeat = now;

  report_failures(request.failures, failing);
  const std::vector<StoredOutboxRow> outbox_rows = read_outbox(request.new_outbox, outbox_inserts);
  store_internal::report_deduplicated(options, request.new_outbox, outbox_rows);
  std::set<MessageId> newly_stored;
  for (const StoredOutboxRow& row : outbox_rows) {
    if (row.was_newly_created) newly_stored.insert(row.message_id);
  }
  for (const MessageId& id : read_inbox(request.new_inbox, inbox_inserts)) newly_stored.insert(id);

  std::vector<WorkItem> items;
  if (outbox_claim != nullptr) {
    items = read_claim(WorkSource::Outbox, *outbox_claim, newly_stored, lease_expiry);
  }
  if (inbox_claim != nullptr) {
    std::vector<WorkItem> inbox =
        read_claim(WorkSource::Inbox, *inbox_claim, newly_stored, lease_expiry);
    std::move(inbox.begin(), inbox.end(), std::back_inserter(items));
  }
  WB_RETURN_IF_ERROR(append_events(items));
  return items;
}

PostgresCore::Queries PostgresCore::add_renewals(Pipeline& pipeline,
                                                 std::span<const WorkLease> leases) {
  const std::int64_t lease_expiry = now_micros() + lease_micros();
  Queries renewals;
  for (const WorkLease& lease : leases) {
    Query& renew = pipeline.add(postgres::sql::renew_row(lease.source));
    renew.bind_uuid(1, lease.message_id.uuid());
    renew.bind_uuid(2, options.instance.instance_id);
    renew.bind_int(3, lease_expiry);
    renewals.push_back(&renew);
  }
  return renewals;
}

std::vector<MessageId> PostgresCore::read_renewals(std::span<const WorkLease> leases,
                                                   const Queries& renewals) {
  std::vector<MessageId> renewed;
  for (std::size_t i = 0; i < leases.size(); ++i) {
    if (renewals[i]->changes() == 1) renewed.push_back(leases[i].message_id);
  }
  return renewed;
}

Query& PostgresCore::add_claim(Pipeline& pipeline, WorkSource source,
                               const WorkBatchRequest& request, std::int64_t lease_expiry) {
  Query& turn = pipeline.add(postgres::sql::kClaimLock);
  turn.bind_int(1, static_cast<std::int64_t>(postgres::sql::claim_lock(source)));
  Query& claim = pipeline.add(postgres::sql::claim(source));
  claim.bind_int(1, now_micros());
  claim.bind_uuid(2, options.instance.instance_id);
  claim.bind_int(3, static_cast<std::int64_t>(request.max_items));
  if (source == WorkSource::Outbox) claim.bind_bool(4, request.event_store_outbox_only);
  claim.bind_int(5, lease_expiry);
  return claim;
}

std::vector<WorkItem> PostgresCore::read_claim(WorkSource source, Query& claim,
                                               const std::set<MessageId>& newly_stored,
                                               std::int64_t lease_expiry) {
  const std::int64_t now = now_micros();
  std::vector<WorkItem> items;
  while (true) {
    absl::StatusOr<bool> row = claim.step();
    if (!row.ok() || !*row) break;
    WorkItem item = store_internal::decode_claimed_item(claim, source, now, lease_expiry);
    item.is_newly_stored = newly_stored.contains(item.message_id);
    items.push_back(std::move(item));
  }
  // Message-id (= time) order, as the claim chose them.
  std::sort(items.begin(), items.end(),
            [](const WorkItem& a, const WorkItem& b) { return a.message_id < b.message_id; });
  return items;
}

absl::Status PostgresCore::append_events(std::vector<WorkItem>& items) {
  const std::int64_t now = now_micros();
  // Event rows go to the event store in claim order (outbox, then inbox; each in event-id
  // order), so a stream's versions follow the order its events were caused in.
  Pipeline appends(*connection);
  appends.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
  struct Appended {
    WorkItem* item;
    Query* append;
    Query* perspectives;  // the perspectives of its type
  };
  std::vector<Appended> appended;
  std::vector<MessageId> unreadable;
  for (WorkItem& item : items) {
    if (!item.is_event || !item.stream_id || has_status(item.status, MessageStatus::EventStored)) {
      continue;
    }
    absl::StatusOr<store_internal::EventParts> parts =
        store_internal::event_parts(item.envelope_json);
    if (!parts.ok()) {
      const std::string reason(parts.status().message());
      log_quarantined_row(options.logger, postgres::sql::table(item.source), item.message_id,
                          reason);
      Query& quarantine = appends.add(postgres::sql::quarantine_row(item.source));
      quarantine.bind_uuid(1, item.message_id.uuid());
      quarantine.bind_text(2, reason);
      quarantine.bind_int(3, now);
      unreadable.push_back(item.message_id);
      continue;
    }
    Query& append = appends.add(postgres::sql::kAppendEvent);
    append.bind_uuid(1, item.message_id.uuid());
    append.bind_uuid(2, *item.stream_id);
    append.bind_text(3, item.message_type);
    append.bind_text(4, parts->event_data);
    append.bind_text(5, parts->metadata);
    append.bind_int(6, now);
    Query& perspectives = appends.add(postgres::sql::kPerspectivesOf);
    perspectives.bind_text(1, item.message_type);
    Query& mark = appends.add(postgres::sql::mark_event_stored(item.source));
    mark.bind_uuid(1, item.message_id.uuid());
    appended.push_back({&item, &append, &perspectives});
    item.status = item.status | MessageStatus::EventStored;
  }
  if (appends.empty()) return absl::OkStatus();
  WB_RETURN_IF_ERROR(appends.run());

  // A newly appended event gets one perspective event per perspective of its type.
  Pipeline perspective_events(*connection);
  perspective_events.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
  for (const auto& [item, append, perspectives] : appended) {
    if (append->changes() != 1) continue;  // appended before: its perspective events exist
    while (true) {
      WB_ASSIGN_OR_RETURN(bool row, perspectives->step());
      if (!row) break;
      Query& insert = perspective_events.add(postgres::sql::kInsertPerspectiveEvent);
      insert.bind_uuid(1, MessageId::mint().uuid());
      insert.bind_uuid(2, *item->stream_id);
      insert.bind_text(3, perspectives->text(0));
      insert.bind_uuid(4, item->message_id.uuid());
      insert.bind_uuid(5, options.instance.instance_id);
      insert.bind_int(6, now + lease_micros());
      insert.bind_int(7, now);
    }
  }
  WB_RETURN_IF_ERROR(perspective_events.run());
  std::erase_if(items, [&](const WorkItem& item) {
    return std::find(unreadable.begin(), unreadable.end(), item.message_id) != unreadable.end();
  });
  return absl::OkStatus();
}

}  // namespace whizbang
