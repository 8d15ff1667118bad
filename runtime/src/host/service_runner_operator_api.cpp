// The operator API's read side and its routes (service_runner_operator_api.hpp); the POSTs are in
// service_runner_operator_actions.cpp.
#include "service_runner_operator_api.hpp"

#include <arpa/inet.h>

#include "fmt/format.h"
#include "http/http_query.hpp"
#include "service_runner_operator_json.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang::operator_api {
namespace {

constexpr std::string_view kDeadLettersPrefix = "/api/v1/dead-letters/";

http::HttpResponse store_error(const absl::Status& status) {
  return error_response(500, fmt::format("store: {}", status.message()));
}

// `text` as JSON when it parses, else as a string.
void write_embedded_json(JsonWriter& json, const std::string& text) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag>(text.c_str(), text.size());
  if (document.HasParseError()) {
    write_string(json, text);
  } else {
    document.Accept(json);
  }
}

// The member `name` of `text` parsed as a JSON object, written; `fallback` when absent.
void write_member_of(JsonWriter& json, const std::string& text, const char* name,
                     void (*fallback)(JsonWriter&)) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag>(text.c_str(), text.size());
  if (!document.HasParseError() && document.IsObject()) {
    const auto member = document.FindMember(name);
    if (member != document.MemberEnd() && !member->value.IsNull()) {
      member->value.Accept(json);
      return;
    }
  }
  fallback(json);
}

}  // namespace

std::string printable_client(const std::string& client) {
  char text[INET6_ADDRSTRLEN] = {};
  if (client.size() == 4 && inet_ntop(AF_INET, client.data(), text, sizeof text) != nullptr) {
    return text;
  }
  if (client.size() == 16 && inet_ntop(AF_INET6, client.data(), text, sizeof text) != nullptr) {
    return text;
  }
  return "unknown";
}

http::HttpResponse OperatorApi::overview(const http::HttpRequest&) {
  absl::StatusOr<WorkBacklog> backlog = context_.store->work_backlog();
  if (!backlog.ok()) return store_error(backlog.status());
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  json.Key("service");
  write_string(json, context_.service_name);
  json.Key("read_only");
  json.Bool(context_.admin_token.empty());
  json.Key("backlog");
  json.StartObject();
  json.Key("outbox");
  json.Int64(backlog->outbox);
  json.Key("inbox");
  json.Int64(backlog->inbox);
  json.Key("perspectives");
  json.Int64(backlog->perspectives);
  json.EndObject();
  json.Key("dead_letters");
  json.Int64(backlog->dead_letters);
  // Monotonic totals since the runner started, every message type summed: the console's rate
  // chart differentiates them (docs/guide/19-operating-services.md).
  const auto total = [&](std::string_view name) -> std::int64_t {
    return context_.metrics ? context_.metrics->counter(metric_names::kWorkCoordinatorMeter, name)
                            : 0;
  };
  json.Key("handled_total");
  json.Int64(total(metric_names::kInboxHandled));
  json.Key("published_total");
  json.Int64(total(metric_names::kOutboxPublished));
  json.Key("breakers");
  json.StartArray();
  if (context_.breakers) {
    for (const OperatorBreakerState& breaker : context_.breakers()) {
      json.StartObject();
      json.Key("kind");
      write_string(json, breaker.kind);
      json.Key("name");
      write_string(json, breaker.name);
      json.Key("state");
      write_string(json, breaker.state);
      json.Key("failures");
      json.Int64(breaker.failures);
      json.Key("open_until");
      if (breaker.open_until) {
        write_string(json, format_time(*breaker.open_until));
      } else {
        json.Null();
      }
      json.EndObject();
    }
  }
  json.EndArray();
  json.EndObject();
  return json_response(200, buffer.GetString());
}

http::HttpResponse OperatorApi::list(const http::HttpRequest& request) {
  absl::StatusOr<http::QueryParameters> query = http::parse_query(request.query);
  if (!query.ok()) return error_response(400, query.status());
  absl::StatusOr<ListQuery> parsed = parse_list_query(*query, true);
  if (!parsed.ok()) return error_response(400, parsed.status());
  absl::StatusOr<DeadLetterPage> page =
      context_.store->list_dead_letters(parsed->filter, parsed->limit, parsed->cursor);
  if (!page.ok()) return store_error(page.status());
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  json.Key("items");
  json.StartArray();
  for (const DeadLetter& letter : page->items) {
    json.StartObject();
    write_dead_letter_members(json, letter);
    json.EndObject();
  }
  json.EndArray();
  json.Key("next_cursor");
  if (page->next) {
    write_string(json, encode_cursor(*page->next));
  } else {
    json.Null();
  }
  json.EndObject();
  return json_response(200, buffer.GetString());
}

http::HttpResponse OperatorApi::groups(const http::HttpRequest& request) {
  absl::StatusOr<http::QueryParameters> query = http::parse_query(request.query);
  if (!query.ok()) return error_response(400, query.status());
  absl::StatusOr<ListQuery> parsed = parse_list_query(*query, false);
  if (!parsed.ok()) return error_response(400, parsed.status());
  absl::StatusOr<std::vector<DeadLetterGroup>> groups =
      context_.store->dead_letter_groups(parsed->filter);
  if (!groups.ok()) return store_error(groups.status());
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  json.Key("groups");
  json.StartArray();
  for (const DeadLetterGroup& group : *groups) {
    json.StartObject();
    json.Key("group");
    write_string(json, group.key);
    json.Key("source");
    write_string(json, dead_letter_source_name(group.source));
    json.Key("target");
    write_string(json, group.target);
    json.Key("message_type");
    write_string(json, group.message_type);
    json.Key("reason");
    write_string(json, failure_reason_name(group.reason));
    json.Key("error");
    write_string(json, group.error_first_line);
    json.Key("count");
    json.Int64(group.count);
    json.Key("first_at");
    write_string(json, format_time(group.first_at));
    json.Key("last_at");
    write_string(json, format_time(group.last_at));
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json_response(200, buffer.GetString());
}

http::HttpResponse OperatorApi::show(const http::HttpRequest& request) {
  const std::string_view rest = std::string_view(request.path).substr(kDeadLettersPrefix.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || rest.find('/', slash + 1) != std::string_view::npos) {
    return error_response(404, "not found: expected /api/v1/dead-letters/{source}/{id}");
  }
  const std::optional<DeadLetterSource> source = parse_dead_letter_source(rest.substr(0, slash));
  if (!source) return error_response(404, fmt::format("no source '{}'", rest.substr(0, slash)));
  absl::StatusOr<Uuid> id = Uuid::parse(rest.substr(slash + 1));
  if (!id.ok()) return error_response(400, fmt::format("id: {}", id.status().message()));
  absl::StatusOr<std::optional<DeadLetterDetail>> found =
      context_.store->find_dead_letter({*source, MessageId::from_trusted(*id)});
  if (!found.ok()) return store_error(found.status());
  if (!found->has_value()) return error_response(404, "no such dead letter");
  const DeadLetterDetail& detail = **found;
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  write_dead_letter_members(json, detail.letter);
  json.Key("message_id");
  write_string(json, detail.message_id.uuid().to_string());
  const bool from_event_store = detail.envelope_json.empty();
  json.Key("envelope");
  if (from_event_store) {
    json.StartObject();
    json.Key("event_data");
    write_embedded_json(json, detail.event_data);
    json.Key("metadata");
    write_embedded_json(json, detail.metadata);
    json.EndObject();
  } else {
    write_embedded_json(json, detail.envelope_json);
  }
  const auto empty_array = [](JsonWriter& writer) {
    writer.StartArray();
    writer.EndArray();
  };
  json.Key("hops");
  if (from_event_store) {
    write_member_of(json, detail.metadata, "Hops", empty_array);
  } else {
    write_member_of(json, detail.envelope_json, "h", empty_array);
  }
  json.Key("scope");
  write_member_of(json, detail.envelope_json, "ss", [](JsonWriter& writer) { writer.Null(); });
  json.Key("invocations");
  json.StartArray();
  for (const ReceptorInvocationRecord& record : detail.invocations) {
    json.StartObject();
    json.Key("receptor");
    write_string(json, record.receptor_id);
    json.Key("fired_at");
    write_string(json, format_time(record.completed_at));
    json.Key("stage");
    write_string(json, to_string(record.stage));
    json.Key("service");
    write_string(json, record.service_name);
    json.Key("perspective");
    write_string(json, record.perspective);
    json.Key("duration_us");
    json.Int64(record.duration.count());
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json_response(200, buffer.GetString());
}

void add_routes(http::HttpRoutes& routes, const std::shared_ptr<OperatorApi>& api) {
  const auto bind = [api](http::HttpResponse (OperatorApi::*method)(const http::HttpRequest&)) {
    return [api, method](const http::HttpRequest& request) { return ((*api).*method)(request); };
  };
  routes.add_deferred("GET", "/api/v1/overview", bind(&OperatorApi::overview));
  routes.add_deferred("GET", "/api/v1/dead-letters", bind(&OperatorApi::list));
  routes.add_deferred("GET", "/api/v1/dead-letters/groups", bind(&OperatorApi::groups));
  routes.add_prefix_deferred("GET", std::string(kDeadLettersPrefix), bind(&OperatorApi::show));
  routes.add_deferred("POST", "/api/v1/dead-letters/requeue", bind(&OperatorApi::requeue),
                      kMaxBodyBytes);
  routes.add_deferred("POST", "/api/v1/dead-letters/discard", bind(&OperatorApi::discard),
                      kMaxBodyBytes);
}

}  // namespace whizbang::operator_api
