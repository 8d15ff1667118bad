// SqlDeadLetterOperations: the dead-letter operations role
// (whizbang/store/dead_letter_operations.hpp) written once for both SQL backends. `Backend` names
// the backend's core and statements and runs one statement with a reader that binds and steps
// (sqlite::Use, postgres::Query):
//
//   struct SqliteDeadLetterBackend {
//     using Core = SqliteCore;
//     static const dead_letter_shapes::Statements& statements();
//     template <class F> static absl::Status with(Core&, const std::string& sql, F&& f);
//   };
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "row_decoding.hpp"
#include "whizbang/internal/status_macros.hpp"
#include "whizbang/store/dead_letter_operations.hpp"

namespace whizbang::store_internal {

// A backend's dead-letter statements (its sql/dead_letter_sql.hpp).
struct DeadLetterStatements {
  const std::string& page;
  const std::string& groups;
  const std::string& keep_discarded;
  // ?1 outbox id: the tombstone of a dead-lettered outbox row about to be discarded, so that a
  // re-emission of its id is a duplicate, as for a published row. Empty where the backend keeps
  // every emitted id anyway (PostgreSQL's wh_outbox_ids).
  const std::string& tombstone_discarded_outbox;
  const std::string& discarded;
  const std::string& invocations;
  const std::string& backlog;
  const std::array<std::string, 5>& envelope;  // by DeadLetterSource
  const std::array<std::string, 5>& requeue;
  const std::array<std::string, 5>& remove;
};

template <class Backend>
class SqlDeadLetterOperations final : public DeadLetterOperations {
 public:
  using Core = typename Backend::Core;
  explicit SqlDeadLetterOperations(Core& core) : core_(core) {}

  absl::StatusOr<DeadLetterPage> list_dead_letters(
      const DeadLetterFilter& filter, std::size_t limit,
      const std::optional<DeadLetterCursor>& after) override {
    return core_.gate.run_read([&] { return page(filter, std::nullopt, limit, after); });
  }

  absl::StatusOr<std::vector<DeadLetterGroup>> dead_letter_groups(
      const DeadLetterFilter& filter) override {
    return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<DeadLetterGroup>> {
      std::vector<DeadLetterGroup> groups;
      std::map<std::string, std::size_t, std::less<>> by_key;
      WB_RETURN_IF_ERROR(Backend::with(core_, statements().groups, [&](auto& reader) {
        FilterTexts texts;
        bind_filter(reader, filter, std::nullopt, texts);
        reader.bind_int(11, static_cast<std::int64_t>(kMaxDeadLetterGroups) * 4);
        return each_row(reader, [&](const auto& row) {
          DeadLetterGroup group;
          group.source = static_cast<DeadLetterSource>(row.int64(0));
          group.target = row.text(1);
          group.message_type = row.text(2);
          group.reason = static_cast<FailureReason>(row.int64(3));
          group.error_first_line = std::string(error_first_line(row.text(4)));
          group.count = row.int64(5);
          group.first_at = from_unix_micros(row.int64(6));
          group.last_at = from_unix_micros(row.int64(7));
          group.key = dead_letter_group_key(group.source, group.target, group.message_type,
                                            group.reason, group.error_first_line);
          const auto [found, added] = by_key.try_emplace(group.key, groups.size());
          if (added) {
            if (groups.size() < kMaxDeadLetterGroups) groups.push_back(std::move(group));
            return;
          }
          if (found->second >= groups.size()) return;
          DeadLetterGroup& merged = groups[found->second];
          merged.count += group.count;
          merged.first_at = std::min(merged.first_at, group.first_at);
          merged.last_at = std::max(merged.last_at, group.last_at);
        });
      }));
      return groups;
    });
  }

  absl::StatusOr<std::optional<DeadLetterDetail>> find_dead_letter(
      const DeadLetterKey& key) override {
    return core_.gate.run_read([&] { return find(key); });
  }

  absl::StatusOr<std::size_t> requeue_dead_letter_keys(
      std::span<const DeadLetterKey> keys) override {
    return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
      std::size_t requeued = 0;
      for (const DeadLetterKey& key : keys) {
        WB_RETURN_IF_ERROR(Backend::with(core_, statements().requeue[index(key.source)],
                                         [&](auto& reader) -> absl::Status {
                                           reader.bind_uuid(1, key.id.uuid());
                                           absl::Status ran = reader.run();
                                           if (!ran.ok()) return ran;
                                           requeued += static_cast<std::size_t>(reader.changes());
                                           return absl::OkStatus();
                                         }));
      }
      // Requeued rows are due now: wake the workers as a new row would.
      if (requeued > 0) core_.gate.note({.outbox_written = true, .inbox_written = true});
      return requeued;
    });
  }

  absl::StatusOr<std::size_t> discard_dead_letters(std::span<const DeadLetterKey> keys,
                                                   std::string_view reason) override {
    return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
      std::size_t discarded = 0;
      const std::int64_t now = to_unix_micros(core_.options.now());
      const std::string reason_text(reason);
      for (const DeadLetterKey& key : keys) {
        WB_ASSIGN_OR_RETURN(std::optional<DeadLetterDetail> detail, find(key));
        if (!detail) continue;
        // Before the row goes (the tombstone keeps its stored time); in the same transaction, and
        // only while it is a dead letter, like the removal below.
        if (key.source == DeadLetterSource::Outbox &&
            !statements().tombstone_discarded_outbox.empty()) {
          WB_RETURN_IF_ERROR(Backend::with(core_, statements().tombstone_discarded_outbox,
                                           [&](auto& reader) -> absl::Status {
                                             reader.bind_uuid(1, key.id.uuid());
                                             return reader.run();
                                           }));
        }
        // Removed first, and kept only if this call removed it: a requeue or discard that got
        // there first wins.
        int removed = 0;
        WB_RETURN_IF_ERROR(Backend::with(core_, statements().remove[index(key.source)],
                                         [&](auto& reader) -> absl::Status {
                                           reader.bind_uuid(1, key.id.uuid());
                                           absl::Status ran = reader.run();
                                           if (!ran.ok()) return ran;
                                           removed = reader.changes();
                                           return absl::OkStatus();
                                         }));
        if (removed == 0) continue;
        const DeadLetter& letter = detail->letter;
        const std::string& envelope =
            detail->envelope_json.empty() ? detail->event_data : detail->envelope_json;
        WB_RETURN_IF_ERROR(
            Backend::with(core_, statements().keep_discarded, [&](auto& reader) -> absl::Status {
              reader.bind_int(1, static_cast<std::int64_t>(letter.source));
              reader.bind_uuid(2, letter.id.uuid());
              reader.bind_text(3, std::string_view(letter.message_type));
              reader.bind_text(4, std::string_view(letter.target));
              reader.bind_uuid(5, letter.stream_id);
              reader.bind_int(6, static_cast<std::int64_t>(letter.attempts));
              reader.bind_text(7, std::string_view(letter.error));
              reader.bind_int(8, static_cast<std::int64_t>(letter.reason));
              reader.bind_int(9, to_unix_micros(letter.dead_lettered_at));
              reader.bind_int(10, now);
              reader.bind_text(11, std::string_view(reason_text));
              reader.bind_text(12, std::string_view(envelope));
              return reader.run();
            }));
        ++discarded;
      }
      return discarded;
    });
  }

  absl::StatusOr<std::vector<DiscardedDeadLetter>> discarded_dead_letters(
      std::size_t limit) override {
    return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<DiscardedDeadLetter>> {
      std::vector<DiscardedDeadLetter> out;
      WB_RETURN_IF_ERROR(Backend::with(core_, statements().discarded, [&](auto& reader) {
        reader.bind_int(1, static_cast<std::int64_t>(limit));
        return each_row(reader, [&](const auto& row) {
          out.push_back({decode_dead_letter(row), from_unix_micros(row.int64(9)), row.text(10)});
        });
      }));
      return out;
    });
  }

  absl::StatusOr<WorkBacklog> work_backlog() override {
    return core_.gate.run_read([&]() -> absl::StatusOr<WorkBacklog> {
      WorkBacklog backlog;
      WB_RETURN_IF_ERROR(Backend::with(core_, statements().backlog, [&](auto& reader) {
        return each_row(reader, [&](const auto& row) {
          backlog = {row.int64(0), row.int64(1), row.int64(2), row.int64(3)};
        });
      }));
      return backlog;
    });
  }

 private:
  static const DeadLetterStatements& statements() { return Backend::statements(); }
  static std::size_t index(DeadLetterSource source) {
    return std::min<std::size_t>(static_cast<std::size_t>(source), 4);
  }

  // The texts a filter binds: kept alive while the statement runs (SQLite binds them in place).
  struct FilterTexts {
    std::optional<std::string> first_line_prefix;
    std::optional<Uuid> id;
  };
  template <class Reader>
  static void bind_filter(Reader& reader, const DeadLetterFilter& filter,
                          const std::optional<MessageId>& id, FilterTexts& texts) {
    const auto number = [](auto value) -> std::optional<std::int64_t> {
      return static_cast<std::int64_t>(value);
    };
    const auto micros = [](const std::optional<TimePoint>& time) -> std::optional<std::int64_t> {
      if (!time) return std::nullopt;
      return to_unix_micros(*time);
    };
    if (filter.error_first_line) {
      texts.first_line_prefix = *filter.error_first_line;
      texts.first_line_prefix->push_back('\n');
    }
    reader.bind_int(1, filter.source ? number(*filter.source) : std::nullopt);
    reader.bind_text(2, filter.target);
    reader.bind_text(3, filter.message_type);
    reader.bind_int(4, filter.reason ? number(*filter.reason) : std::nullopt);
    reader.bind_text(5, filter.error_contains);
    reader.bind_int(6, micros(filter.since));
    reader.bind_int(7, micros(filter.until));
    reader.bind_text(8, filter.error_first_line);
    reader.bind_text(9, texts.first_line_prefix);
    if (id) texts.id = id->uuid();
    reader.bind_uuid(10, texts.id);
  }

  template <class Reader, class Each>
  static absl::Status each_row(Reader& reader, Each each) {
    while (true) {
      absl::StatusOr<bool> row = reader.step();
      if (!row.ok()) return row.status();
      if (!*row) return absl::OkStatus();
      each(reader);
    }
  }

  absl::StatusOr<DeadLetterPage> page(const DeadLetterFilter& filter,
                                      const std::optional<MessageId>& id, std::size_t limit,
                                      const std::optional<DeadLetterCursor>& after) {
    DeadLetterPage result;
    limit = std::clamp<std::size_t>(limit, 1, kMaxDeadLetterPage);
    WB_RETURN_IF_ERROR(Backend::with(core_, statements().page, [&](auto& reader) {
      FilterTexts texts;
      bind_filter(reader, filter, id, texts);
      std::optional<std::int64_t> at;
      std::optional<Uuid> after_id;
      std::optional<std::int64_t> after_source;
      if (after) {
        at = to_unix_micros(after->dead_lettered_at);
        after_id = after->id.uuid();
        after_source = static_cast<std::int64_t>(after->source);
      }
      reader.bind_int(11, at);
      reader.bind_uuid(12, after_id);
      reader.bind_int(13, after_source);
      reader.bind_int(14, static_cast<std::int64_t>(limit + 1));  // one more: is there a next?
      return each_row(reader,
                      [&](const auto& row) { result.items.push_back(decode_dead_letter(row)); });
    }));
    if (result.items.size() > limit) {
      result.items.resize(limit);
      const DeadLetter& last = result.items.back();
      result.next = DeadLetterCursor{last.dead_lettered_at, last.id, last.source};
    }
    return result;
  }

  absl::StatusOr<std::optional<DeadLetterDetail>> find(const DeadLetterKey& key) {
    DeadLetterFilter filter;
    filter.source = key.source;
    WB_ASSIGN_OR_RETURN(DeadLetterPage found, page(filter, key.id, 1, std::nullopt));
    if (found.items.empty()) return std::nullopt;
    DeadLetterDetail detail;
    detail.letter = std::move(found.items.front());
    detail.message_id = key.id;
    WB_RETURN_IF_ERROR(
        Backend::with(core_, statements().envelope[index(key.source)], [&](auto& reader) {
          reader.bind_uuid(1, key.id.uuid());
          return each_row(reader, [&](const auto& row) {
            detail.message_id = MessageId::from_trusted(row.uuid(0));
            detail.envelope_json = row.text(1);
            detail.event_data = row.text(2);
            detail.metadata = row.text(3);
          });
        }));
    WB_RETURN_IF_ERROR(Backend::with(core_, statements().invocations, [&](auto& reader) {
      reader.bind_uuid(1, detail.message_id.uuid());
      return each_row(reader, [&](const auto& row) {
        detail.invocations.push_back(decode_invocation_record(row));
      });
    }));
    return detail;
  }

  Core& core_;
};

}  // namespace whizbang::store_internal
