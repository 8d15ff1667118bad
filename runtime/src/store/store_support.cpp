#include "store_support.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <iterator>
#include <optional>

#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/internal/json_member_text.hpp"
#include "whizbang/message/envelope_parse_memo.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/observability/metrics.hpp"

namespace whizbang {

std::string_view to_string(DeadLetterSource source) {
  switch (source) {
    case DeadLetterSource::Outbox:
      return "outbox";
    case DeadLetterSource::Inbox:
      return "inbox";
    case DeadLetterSource::PerspectiveEvent:
      return "perspective event";
    case DeadLetterSource::LifecycleCompletion:
      return "lifecycle completion";
    case DeadLetterSource::DetachedWork:
      return "detached work";
  }
  return "unknown";
}

}  // namespace whizbang

namespace whizbang::store_internal {

StoreOptions normalize(StoreOptions options) {
  if (!options.now) options.now = [] { return Clock::now(); };
  if (options.instance.instance_id.is_nil()) {
    options.instance.instance_id = MessageId::mint().uuid();
  }
  return options;
}

void report_deduplicated(const StoreOptions& options, std::span<const OutboxMessage> messages,
                         std::span<const StoredOutboxRow> rows) {
  for (std::size_t i = 0; i < rows.size() && i < messages.size(); ++i) {
    if (rows[i].was_newly_created) continue;
    const OutboxMessage& message = messages[i];
    if (options.metrics) {
      const MetricTag tags[] = {{metric_names::kMessageTypeTag, message.message_type}};
      options.metrics->add(metric_names::kWorkCoordinatorMeter,
                           metric_names::kOutboxEmissionDeduplicated, 1, tags);
    }
    log(options.logger, spdlog::level::debug, log_events::kOutboxEmissionDeduplicated,
        "outbox row {} ({}) already stored; emission deduplicated, nothing republished",
        message.message_id, message.message_type);
  }
}

void report_failure(const StoreOptions& options, const RecordedFailure& failure) {
  if (options.metrics) {
    const MetricTag tags[] = {{metric_names::kMessageTypeTag, failure.message_type}};
    options.metrics->add(metric_names::kWorkCoordinatorMeter, metric_names::kWorkFailed, 1, tags);
    if (failure.dead_lettered) {
      options.metrics->add(metric_names::kWorkCoordinatorMeter, metric_names::kWorkDeadLettered, 1,
                           tags);
    }
  }
  if (!failure.dead_lettered) return;
  const std::string stream =
      failure.stream_id
          ? fmt::format("; later rows of stream {} proceed without it", *failure.stream_id)
          : std::string();
  log(options.logger, spdlog::level::warn, log_events::kMessageDeadLettered,
      "{} row {} ({}) dead-lettered after {} attempt{}: {}{}", failure.table, failure.id,
      failure.message_type, failure.attempts, failure.attempts == 1 ? "" : "s", failure.error,
      stream);
}

void report_purged(const StoreOptions& options, const PurgeCounts& counts) {
  if (counts.inbox_deduplication + counts.outbox_tombstones + counts.receptor_invocations +
          counts.service_instances + counts.refused_deliveries + counts.dispatch_keys ==
      0) {
    return;
  }
  log(options.logger, spdlog::level::info, log_events::kRetentionPurged,
      "purged {} inbox dedup ids, {} outbox tombstones, {} receptor invocations, {} service "
      "instances, {} refused deliveries, {} dispatch keys past their retention",
      counts.inbox_deduplication, counts.outbox_tombstones, counts.receptor_invocations,
      counts.service_instances, counts.refused_deliveries, counts.dispatch_keys);
}

absl::StatusOr<EventParts> event_parts(std::string_view envelope_json) {
  // Bounded: an unbounded recursive parse (and the Accept() calls below, and the perspective
  // worker's on what is stored here) let a corrupt row of 100000 nested '[' overflow the stack.
  // The claim's cycle reads the same envelope again to handle it: parsed once for both
  // (message/envelope_parse_memo.hpp).
  rapidjson::Document scratch;
  internal::BoundedParseResult parsed;
  const rapidjson::Document* read = parsed_envelope(envelope_json, scratch, parsed);
  if (read == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("envelope JSON is malformed ({})", internal::describe_parse_error(parsed)));
  }
  const rapidjson::Document& document = *read;
  if (!document.IsObject()) {
    return absl::InvalidArgumentError("envelope JSON is malformed (not an object)");
  }
  auto id = document.FindMember("id");
  auto payload = document.FindMember("p");
  if (id == document.MemberEnd() || !id->value.IsString() || payload == document.MemberEnd()) {
    return absl::InvalidArgumentError("envelope JSON lacks its id or payload");
  }
  EventParts parts;
  // The payload and the hops as the sender wrote them (a .NET sender's escapes, an integer past
  // 64 bits: all kept); written out again from the document only when a key has escapes.
  static constexpr std::string_view kKeys[] = {"id", "p", "h"};
  std::optional<std::string_view> texts[std::size(kKeys)];
  if (internal::top_level_member_texts(envelope_json, kKeys, texts) && texts[0] && texts[1]) {
    constexpr std::string_view kIdKey = R"({"MessageId":)";
    constexpr std::string_view kHopsKey = R"(,"Hops":)";
    const std::string_view hops = texts[2] ? *texts[2] : std::string_view("[]");
    parts.event_data.assign(*texts[1]);
    parts.metadata.reserve(kIdKey.size() + texts[0]->size() + kHopsKey.size() + hops.size() + 1);
    parts.metadata.append(kIdKey).append(*texts[0]).append(kHopsKey).append(hops).append("}");
    return parts;
  }
  {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    payload->value.Accept(writer);
    parts.event_data.assign(buffer.GetString(), buffer.GetSize());
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("MessageId");
  writer.String(id->value.GetString(), id->value.GetStringLength());
  writer.Key("Hops");
  auto hops = document.FindMember("h");
  if (hops != document.MemberEnd()) {
    hops->value.Accept(writer);
  } else {
    writer.StartArray();
    writer.EndArray();
  }
  writer.EndObject();
  parts.metadata.assign(buffer.GetString(), buffer.GetSize());
  return parts;
}

std::string scope_json(const SecurityScope& scope) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("u");
  writer.String(scope.user_id.data(), static_cast<rapidjson::SizeType>(scope.user_id.size()));
  writer.Key("t");
  writer.String(scope.tenant_id.data(), static_cast<rapidjson::SizeType>(scope.tenant_id.size()));
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::optional<SecurityScope> parse_scope_json(std::string_view json) {
  rapidjson::Document document;
  // Bounded: the scope column is stored text, as untrusted as an envelope.
  if (internal::parse_bounded(json, document).IsError() || !document.IsObject()) {
    return std::nullopt;
  }
  SecurityScope scope;
  if (auto u = document.FindMember("u"); u != document.MemberEnd() && u->value.IsString()) {
    scope.user_id.assign(u->value.GetString(), u->value.GetStringLength());
  }
  if (auto t = document.FindMember("t"); t != document.MemberEnd() && t->value.IsString()) {
    scope.tenant_id.assign(t->value.GetString(), t->value.GetStringLength());
  }
  return scope;
}

}  // namespace whizbang::store_internal
