#include "whizbang/store/postgres/postgres_work_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "fmt/format.h"
#include "postgres/binary_array.hpp"
#include "postgres/migrations.hpp"
#include "postgres/postgres_store_impl.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

// ---- Impl: storage and completion ----------------------------------------------------------

PostgresWorkStore::Impl::Queries PostgresWorkStore::Impl::add_outbox(
    postgres::Pipeline& pipeline, std::span<const OutboxMessage> messages) {
  // In id order (a stable sort: of rows sharing an id, the first stays first), so two batches
  // sharing ids lock them in one order across the statements too.
  std::vector<const OutboxMessage*> ordered;
  ordered.reserve(messages.size());
  for (const OutboxMessage& message : messages) ordered.push_back(&message);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const OutboxMessage* a, const OutboxMessage* b) { return a->message_id < b->message_id; });
  const std::int64_t now = now_micros();
  Queries inserts;
  for (std::size_t first = 0; first < ordered.size(); first += kOutboxRowsPerStatement) {
    const std::size_t end = std::min(ordered.size(), first + kOutboxRowsPerStatement);
    using postgres::BinaryArray;
    using postgres::ElementType;
    BinaryArray ids(ElementType::Uuid), destinations(ElementType::Text), types(ElementType::Text),
        envelopes(ElementType::Text), scopes(ElementType::Text), streams(ElementType::Uuid),
        events(ElementType::Bool), scheduled(ElementType::Int8);
    for (std::size_t i = first; i < end; ++i) {
      const OutboxMessage& message = *ordered[i];
      ids.add(message.message_id.uuid());
      destinations.add(message.destination);
      types.add(std::string_view(message.message_type));
      envelopes.add(std::string_view(message.envelope_json));
      if (message.scope) {
        scopes.add(std::string_view(store_internal::scope_json(*message.scope)));
      } else {
        scopes.add_null();
      }
      streams.add(message.stream_id);
      events.add(message.is_event);
      scheduled.add(message.scheduled_for ? std::optional<std::int64_t>(
                                                store_internal::to_micros(*message.scheduled_for))
                                          : std::nullopt);
    }
    Query& insert = pipeline.add(postgres::sql::kInsertOutbox);
    insert.bind_array(1, std::move(ids));
    insert.bind_array(2, std::move(destinations));
    insert.bind_array(3, std::move(types));
    insert.bind_array(4, std::move(envelopes));
    insert.bind_array(5, std::move(scopes));
    insert.bind_array(6, std::move(streams));
    insert.bind_array(7, std::move(events));
    insert.bind_array(8, std::move(scheduled));
    insert.bind_int(9, now);
    insert.bind_uuid(10, options.instance.instance_id);
    insert.bind_int(11, now + lease_micros());
    inserts.push_back(&insert);
  }
  return inserts;
}

std::vector<StoredOutboxRow> PostgresWorkStore::Impl::read_outbox(
    std::span<const OutboxMessage> messages, const Queries& inserts) {
  std::vector<StoredOutboxRow> rows;
  if (inserts.empty()) return rows;
  std::set<MessageId> inserted;
  for (Query* insert : inserts) {
    while (true) {
      absl::StatusOr<bool> row = insert->step();
      if (!row.ok() || !*row) break;
      inserted.insert(MessageId::from_trusted(insert->uuid(0)));
    }
  }
  rows.reserve(messages.size());
  for (const OutboxMessage& message : messages) {
    // The first row of an id inserted is new; a later one with the same id is its duplicate.
    const bool created = inserted.erase(message.message_id) == 1;
    rows.push_back({message.message_id, message.stream_id, created});
  }
  gate.note({.outbox_written = true});
  return rows;
}

PostgresWorkStore::Impl::Queries PostgresWorkStore::Impl::add_inbox(
    postgres::Pipeline& pipeline, std::span<const InboxMessage> messages,
    const Uuid& receiving_service_id) {
  Queries inserts;
  const std::int64_t now = now_micros();
  for (const InboxMessage& message : messages) {
    Query& insert = pipeline.add(postgres::sql::kInsertInbox);
    insert.bind_uuid(1, message.message_id.uuid());
    insert.bind_text(2, message.handler_name);
    insert.bind_text(3, message.message_type);
    insert.bind_text(4, message.envelope_json);
    insert.bind_uuid(5, message.stream_id);
    insert.bind_bool(6, message.is_event);
    insert.bind_uuid(
        7, message.source_service_id.is_nil() ? receiving_service_id : message.source_service_id);
    insert.bind_int(8, now);
    inserts.push_back(&insert);
  }
  return inserts;
}

std::vector<MessageId> PostgresWorkStore::Impl::read_inbox(std::span<const InboxMessage> messages,
                                                           const Queries& inserts) {
  std::vector<MessageId> stored;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    // No row: seen before (permanently deduplicated).
    if (inserts[i]->changes() == 1) stored.push_back(messages[i].message_id);
  }
  if (!stored.empty()) gate.note({.inbox_written = true});
  return stored;
}

PostgresWorkStore::Impl::Queries PostgresWorkStore::Impl::add_completions(
    postgres::Pipeline& pipeline, std::span<const WorkCompletion> completions,
    std::span<const WorkFailure> failures, bool debug_mode) {
  const std::int64_t now = now_micros();
  const Uuid& self = options.instance.instance_id;
  // Rows done for good are deleted by one statement per table: {id,id,…} of each.
  std::string deleted[2];
  for (const WorkCompletion& completion : completions) {
    const bool deletes =
        !debug_mode && has_status(completion.status, completion.source == WorkSource::Outbox
                                                         ? MessageStatus::Published
                                                         : MessageStatus::EventStored);
    if (deletes) {
      std::string& ids = deleted[static_cast<int>(completion.source)];
      ids += ids.empty() ? "{" : ",";
      ids += completion.message_id.uuid().to_string();
      continue;
    }
    Query& complete = pipeline.add(postgres::sql::complete_row(completion.source));
    complete.bind_uuid(1, completion.message_id.uuid());
    complete.bind_uuid(2, self);
    complete.bind_int(3, static_cast<std::int64_t>(completion.status));
    complete.bind_int(4, now);
  }
  for (const WorkSource source : {WorkSource::Outbox, WorkSource::Inbox}) {
    if (deleted[static_cast<int>(source)].empty()) continue;
    Query& erase = pipeline.add(postgres::sql::delete_rows(source));
    erase.bind_text(1, deleted[static_cast<int>(source)] + "}");
    erase.bind_uuid(2, self);
  }
  Queries failing;
  for (const WorkFailure& failure : failures) {
    Query& fail = pipeline.add(postgres::sql::fail_row(failure.source));
    fail.bind_uuid(1, failure.message_id.uuid());
    fail.bind_uuid(2, self);
    fail.bind_int(3, static_cast<std::int64_t>(failure.status));
    fail.bind_text(4, failure.error);
    bind_failure_rule(fail, now, failure.dead_letter, failure.reason);
    failing.push_back(&fail);
  }
  return failing;
}

void PostgresWorkStore::Impl::report_failures(std::span<const WorkFailure> failures,
                                              const Queries& statements) {
  for (std::size_t i = 0; i < failures.size(); ++i) {
    Query& fail = *statements[i];
    absl::StatusOr<bool> row = fail.step();
    if (!row.ok() || !*row) continue;  // gone, or claimed by another instance: not ours to fail
    const WorkFailure& failure = failures[i];
    store_internal::report_failure(
        options,
        {postgres::sql::table(failure.source), failure.message_id, fail.text(0),
         static_cast<int>(fail.int64(1)), !fail.is_null(2), fail.optional_uuid(3), failure.error});
  }
}

void PostgresWorkStore::Impl::bind_failure_rule(Query& query, std::int64_t now, bool dead_letter,
                                                FailureReason reason) const {
  query.bind_int(5, now);
  query.bind_bool(6, dead_letter);
  query.bind_int(7, options.max_attempts);
  query.bind_int(8, static_cast<std::int64_t>(reason));
}

// ---- open and transactions ------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<PostgresWorkStore>> PostgresWorkStore::open(std::string conninfo,
                                                                           StoreOptions options) {
  if (conninfo.empty()) {
    if (const char* from_environment = std::getenv(kConninfoVariable)) conninfo = from_environment;
  }
  if (conninfo.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("PostgreSQL store: no conninfo given and {} is not set", kConninfoVariable));
  }
  WB_ASSIGN_OR_RETURN(std::unique_ptr<postgres::Connection> connection,
                      postgres::Connection::open(conninfo));
  // Short statements only: compiling one with JIT costs more than running it (tens of ms).
  WB_RETURN_IF_ERROR(connection->configure_session("SET jit = off"));
  WB_ASSIGN_OR_RETURN(int version, postgres::migrate(*connection));
  if (options.durability == Durability::Normal) {
    WB_RETURN_IF_ERROR(connection->configure_session("SET synchronous_commit = off"));
  }
  // One channel per schema: the instances of one store, and no other store, hear each other.
  std::string schema;
  {
    Query query(*connection, "SELECT current_schema()");
    WB_ASSIGN_OR_RETURN(bool row, query.step());
    if (row) schema = query.text(0);
  }
  auto impl = std::make_unique<Impl>(std::move(connection), std::move(options));
  impl->schema_version = version;
  impl->conninfo = std::move(conninfo);
  impl->channel = "wh_work_" + schema.substr(0, 50);
  return std::unique_ptr<PostgresWorkStore>(new PostgresWorkStore(std::move(impl)));
}

int PostgresWorkStore::latest_schema_version() { return postgres::latest_schema_version(); }

PostgresWorkStore::PostgresWorkStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresWorkStore::~PostgresWorkStore() = default;

int PostgresWorkStore::schema_version() const { return impl_->schema_version; }
const StoreOptions& PostgresWorkStore::options() const { return impl_->options; }
absl::Status PostgresWorkStore::begin() { return impl_->gate.begin(); }
absl::StatusOr<SqlSession*> PostgresWorkStore::sql() {
  if (absl::Status open = impl_->gate.require_explicit_transaction("WorkStore::sql"); !open.ok()) {
    return open;
  }
  return &impl_->sql_session;
}
absl::Status PostgresWorkStore::commit() { return impl_->gate.commit(); }
absl::Status PostgresWorkStore::rollback() { return impl_->gate.rollback(); }
bool PostgresWorkStore::in_transaction() const { return impl_->gate.in_transaction(); }
absl::Status PostgresWorkStore::savepoint() { return impl_->gate.savepoint(); }
absl::Status PostgresWorkStore::release_savepoint() {
  return impl_->gate.end_savepoint(/*keep=*/true);
}
absl::Status PostgresWorkStore::rollback_to_savepoint() {
  return impl_->gate.end_savepoint(/*keep=*/false);
}

void PostgresWorkStore::Impl::listen_for_other_processes() {
  std::lock_guard lock(listener_mutex);
  if (listener != nullptr) return;
  listener = std::make_unique<postgres::NotificationListener>(
      conninfo, channel, options.instance.instance_id,
      [this](const CommitInfo& written) { gate.notify_listeners(written); });
}

int PostgresWorkStore::add_commit_listener(CommitListener listener) {
  impl_->listen_for_other_processes();
  return impl_->gate.add_listener(std::move(listener));
}
void PostgresWorkStore::remove_commit_listener(int id) { impl_->gate.remove_listener(id); }

// ---- operations -----------------------------------------------------------------------------

absl::StatusOr<std::vector<StoredOutboxRow>> PostgresWorkStore::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  absl::StatusOr<std::vector<StoredOutboxRow>> rows =
      impl_->gate.run([&]() -> absl::StatusOr<std::vector<StoredOutboxRow>> {
        postgres::Pipeline pipeline(*impl_->connection);
        const Impl::Queries inserts = impl_->add_outbox(pipeline, messages);
        WB_RETURN_IF_ERROR(pipeline.run());
        return impl_->read_outbox(messages, inserts);
      });
  // Counted after the call so a failed (rolled back) batch counts nothing.
  if (rows.ok()) store_internal::report_deduplicated(impl_->options, messages, *rows);
  return rows;
}

absl::StatusOr<bool> PostgresWorkStore::remember_dispatch(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    postgres::Query insert(*impl_->connection, postgres::sql::kRememberDispatch);
    insert.bind_uuid(1, id.uuid());
    insert.bind_int(2, store_internal::to_micros(impl_->options.now()));
    if (absl::Status status = insert.run(); !status.ok()) return status;
    return insert.changes() == 1;
  });
}

absl::StatusOr<std::vector<MessageId>> PostgresWorkStore::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<MessageId>> {
    postgres::Pipeline pipeline(*impl_->connection);
    const Impl::Queries inserts = impl_->add_inbox(pipeline, messages, receiving_service_id);
    WB_RETURN_IF_ERROR(pipeline.run());
    return impl_->read_inbox(messages, inserts);
  });
}

absl::StatusOr<std::vector<WorkItem>> PostgresWorkStore::process_work_batch(
    const WorkBatchRequest& request) {
  // A cycle that only claims and renews needs no WAL flush: undone by a server crash, its rows
  // are claimable again, as when a lease lapses (TransactionBackend::backend_begin_unsynced).
  if (store_internal::claims_only(request)) {
    return impl_->gate.run_unsynced([&] { return impl_->process(request); });
  }
  return impl_->gate.run([&] { return impl_->process(request); });
}

absl::Status PostgresWorkStore::complete_work(std::span<const WorkCompletion> completions,
                                              std::span<const WorkFailure> failures) {
  return impl_->gate.run([&]() -> absl::Status {
    postgres::Pipeline pipeline(*impl_->connection);
    const Impl::Queries failing = impl_->add_completions(pipeline, completions, failures, false);
    WB_RETURN_IF_ERROR(pipeline.run());
    impl_->report_failures(failures, failing);
    return absl::OkStatus();
  });
}

absl::Status PostgresWorkStore::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return impl_->gate.run([&]() -> absl::Status {
    postgres::Pipeline pipeline(*impl_->connection);
    for (const ReceptorInvocationRecord& record : records) {
      Query& insert = pipeline.add(postgres::sql::kInsertInvocation);
      insert.bind_uuid(1, message_id.uuid());
      insert.bind_text(2, record.receptor_id.view());
      insert.bind_text(3, record.service_name);
      insert.bind_text(4, record.perspective);
      insert.bind_int(5, static_cast<std::int64_t>(record.stage));
      insert.bind_int(6, store_internal::to_micros(record.completed_at));
      insert.bind_int(7, record.duration.count());
    }
    return pipeline.run();
  });
}

absl::StatusOr<std::vector<ReceptorInvocationRecord>> PostgresWorkStore::find_receptor_invocations(
    const MessageId& message_id, std::string_view receptor_id) {
  return impl_->gate.run_read([&]() -> absl::StatusOr<std::vector<ReceptorInvocationRecord>> {
    Query query(*impl_->connection, postgres::sql::kFindInvocations);
    query.bind_uuid(1, message_id.uuid());
    query.bind_text(2, receptor_id);
    return store_internal::collect_rows<ReceptorInvocationRecord>(
        query, store_internal::decode_invocation_record<postgres::Query>);
  });
}

absl::Status PostgresWorkStore::add_perspective_association(std::string_view message_type,
                                                            std::string_view perspective) {
  return impl_->gate.run([&]() -> absl::Status {
    Query query(*impl_->connection, postgres::sql::kInsertAssociation);
    query.bind_text(1, message_type);
    query.bind_text(2, perspective);
    return query.run();
  });
}

}  // namespace whizbang
