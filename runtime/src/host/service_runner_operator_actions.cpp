// The operator API's POSTs (service_runner_operator_api.hpp): requeue (and its dry run) and
// discard, each by exactly one selector, each behind the token and written to the audit log.
#include <set>
#include <variant>

#include "absl/strings/match.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "service_runner_operator_api.hpp"
#include "service_runner_operator_json.hpp"
#include "whizbang/internal/absl_view.hpp"
#include "whizbang/internal/sha256.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang::operator_api {
namespace {

constexpr std::size_t kMaxDryRunItems = kMaxDeadLetterPage;

// Equal without a timing that depends on where they differ: both are hashed first, so the
// comparison always covers 32 bytes whatever the lengths.
bool same_token(std::string_view given, std::string_view expected) {
  const internal::Sha256Digest a = internal::sha256(given);
  const internal::Sha256Digest b = internal::sha256(expected);
  unsigned difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned>(a[i] ^ b[i]);
  return difference == 0;
}

// A POST's body: exactly one selector, and the keys the action allows beside it.
struct Selection {
  std::vector<DeadLetterKey> keys;
  std::string selector;  // for the audit line: "ids (3)", "filter", "group <key>"
  bool dry_run = false;
  std::string reason;
};

absl::Status bad(std::string text) { return absl::InvalidArgumentError(std::move(text)); }

absl::StatusOr<std::vector<DeadLetterKey>> parse_ids(const rapidjson::Value& ids) {
  if (!ids.IsArray()) return bad("ids: expected an array of {\"source\", \"id\"}");
  if (ids.Size() > kMaxDeadLettersSelected) {
    return bad(fmt::format("ids: at most {} per request", kMaxDeadLettersSelected));
  }
  std::vector<DeadLetterKey> keys;
  for (const auto& item : ids.GetArray()) {
    if (!item.IsObject() || !item.HasMember("source") || !item["source"].IsString() ||
        !item.HasMember("id") || !item["id"].IsString() || item.MemberCount() != 2) {
      return bad("ids: each item is {\"source\": \"...\", \"id\": \"<uuid>\"}");
    }
    const std::string_view source_name(item["source"].GetString(),
                                       item["source"].GetStringLength());
    std::optional<DeadLetterSource> source = parse_dead_letter_source(source_name);
    if (!source) return bad(fmt::format("ids: unknown source '{}'", source_name));
    absl::StatusOr<Uuid> id =
        Uuid::parse(std::string_view(item["id"].GetString(), item["id"].GetStringLength()));
    if (!id.ok()) return bad(fmt::format("ids: {}", id.status().message()));
    keys.push_back({*source, MessageId::from_trusted(*id)});
  }
  return keys;
}

}  // namespace

std::optional<http::HttpResponse> OperatorApi::refuse_unauthorized(const http::HttpRequest& request,
                                                                   std::string_view action) {
  const std::string client = printable_client(request.client);
  const auto refuse = [&](int status, std::string_view why) {
    log(context_.logger, spdlog::level::warn, log_events::kOperatorRequestRefused,
        "operator request refused: {} from {}: {}", action, client, why);
    http::HttpResponse response = error_response(status, why);
    if (status == 401) response.headers.emplace_back("WWW-Authenticate", "Bearer");
    return response;
  };
  if (context_.admin_token.empty()) {
    return refuse(403, "read-only: no admin token configured (WHIZBANG_ADMIN_TOKEN)");
  }
  const std::string* authorization = request.header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization == nullptr || authorization->size() <= kBearer.size() ||
      !absl::StartsWithIgnoreCase(internal::absl_view(*authorization),
                                  internal::absl_view(kBearer))) {
    return refuse(401, "missing bearer token");
  }
  if (!same_token(std::string_view(*authorization).substr(kBearer.size()), context_.admin_token)) {
    return refuse(401, "wrong token");
  }
  return std::nullopt;
}

namespace {

// Reads the body and resolves its selector to keys. `status` tells 400 from 404.
struct SelectionError {
  int status;
  std::string text;
};
std::variant<Selection, SelectionError> select_from_body(WorkStore& store, const std::string& body,
                                                         bool discard) {
  rapidjson::Document document;
  // Iterative: a body of nested brackets cannot exhaust the stack.
  document.Parse<rapidjson::kParseIterativeFlag>(body.c_str(), body.size());
  if (document.HasParseError() || !document.IsObject()) {
    return SelectionError{400, "malformed JSON: expected an object"};
  }
  Selection selection;
  int selectors = 0;
  std::optional<DeadLetterFilter> filter;
  for (const auto& member : document.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& value = member.value;
    if (name == "ids") {
      ++selectors;
      absl::StatusOr<std::vector<DeadLetterKey>> keys = parse_ids(value);
      if (!keys.ok()) return SelectionError{400, std::string(keys.status().message())};
      selection.keys = *std::move(keys);
      selection.selector = fmt::format("ids ({})", selection.keys.size());
      std::vector<std::string> unknown;
      for (const DeadLetterKey& key : selection.keys) {
        absl::StatusOr<std::optional<DeadLetterDetail>> found = store.find_dead_letter(key);
        if (!found.ok()) return SelectionError{500, std::string(found.status().message())};
        if (!found->has_value()) {
          unknown.push_back(
              fmt::format("{}/{}", dead_letter_source_name(key.source), key.id.uuid().to_string()));
        }
      }
      if (!unknown.empty()) {
        return SelectionError{404, fmt::format("no such dead letter: {}",
                                               fmt::join(unknown.begin(), unknown.end(), ", "))};
      }
    } else if (name == "filter") {
      ++selectors;
      absl::StatusOr<DeadLetterFilter> parsed = parse_filter_object(value);
      if (!parsed.ok()) return SelectionError{400, std::string(parsed.status().message())};
      filter = *parsed;
      selection.selector = "filter";
    } else if (name == "group") {
      ++selectors;
      if (!value.IsString()) return SelectionError{400, "group: expected a string"};
      const std::string key(value.GetString(), value.GetStringLength());
      absl::StatusOr<std::optional<DeadLetterGroup>> group = find_dead_letter_group(store, key);
      if (!group.ok()) return SelectionError{500, std::string(group.status().message())};
      if (!group->has_value()) return SelectionError{404, fmt::format("no group '{}'", key)};
      DeadLetterFilter of_group;
      of_group.source = (*group)->source;
      of_group.target = (*group)->target;
      of_group.message_type = (*group)->message_type;
      of_group.reason = (*group)->reason;
      of_group.error_first_line = (*group)->error_first_line;
      filter = of_group;
      selection.selector = fmt::format("group {}", key);
    } else if (name == "dry_run" && !discard) {
      if (!value.IsBool()) return SelectionError{400, "dry_run: expected true or false"};
      selection.dry_run = value.GetBool();
    } else if (name == "reason" && discard) {
      if (!value.IsString() || value.GetStringLength() == 0 ||
          value.GetStringLength() > kMaxDiscardReasonBytes) {
        return SelectionError{
            400, fmt::format("reason: a text of 1 to {} bytes", kMaxDiscardReasonBytes)};
      }
      selection.reason.assign(value.GetString(), value.GetStringLength());
    } else {
      return SelectionError{400, fmt::format("unknown key '{}'", name)};
    }
  }
  if (selectors != 1) {
    return SelectionError{400, "exactly one selector: \"ids\", \"filter\" or \"group\""};
  }
  if (discard && selection.reason.empty()) {
    return SelectionError{400, "reason: required to discard"};
  }
  if (filter) {
    absl::StatusOr<std::vector<DeadLetterKey>> keys =
        select_dead_letters(store, *filter, kMaxDeadLettersSelected);
    if (!keys.ok()) return SelectionError{500, std::string(keys.status().message())};
    selection.keys = *std::move(keys);
  }
  return selection;
}

}  // namespace

http::HttpResponse OperatorApi::requeue(const http::HttpRequest& request) {
  if (auto refused = refuse_unauthorized(request, "requeue")) return *refused;
  std::variant<Selection, SelectionError> selected =
      select_from_body(*context_.store, request.body, false);
  if (auto* error = std::get_if<SelectionError>(&selected)) {
    return error_response(error->status, error->text);
  }
  const Selection& selection = std::get<Selection>(selected);
  if (selection.dry_run) return dry_run(selection.keys);
  absl::StatusOr<std::size_t> requeued = context_.store->requeue_dead_letter_keys(selection.keys);
  if (!requeued.ok()) return error_response(500, requeued.status());
  log(context_.logger, spdlog::level::info, log_events::kDeadLettersRequeued,
      "operator requeued {} dead letter(s) selected by {} from {}", *requeued, selection.selector,
      printable_client(request.client));
  return json_response(200, fmt::format("{{\"requeued\":{}}}", *requeued));
}

http::HttpResponse OperatorApi::discard(const http::HttpRequest& request) {
  if (auto refused = refuse_unauthorized(request, "discard")) return *refused;
  std::variant<Selection, SelectionError> selected =
      select_from_body(*context_.store, request.body, true);
  if (auto* error = std::get_if<SelectionError>(&selected)) {
    return error_response(error->status, error->text);
  }
  const Selection& selection = std::get<Selection>(selected);
  absl::StatusOr<std::size_t> discarded =
      context_.store->discard_dead_letters(selection.keys, selection.reason);
  if (!discarded.ok()) return error_response(500, discarded.status());
  log(context_.logger, spdlog::level::info, log_events::kDeadLettersDiscarded,
      "operator discarded {} dead letter(s) selected by {} from {} (reason: {})", *discarded,
      selection.selector, printable_client(request.client), selection.reason);
  return json_response(200, fmt::format("{{\"discarded\":{}}}", *discarded));
}

http::HttpResponse OperatorApi::dry_run(std::span<const DeadLetterKey> keys) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  json.Key("dry_run");
  json.Bool(true);
  json.Key("would_requeue");
  json.StartArray();
  for (const DeadLetterKey& key : keys.first(std::min(keys.size(), kMaxDryRunItems))) {
    absl::StatusOr<std::optional<DeadLetterDetail>> found = context_.store->find_dead_letter(key);
    if (!found.ok()) return error_response(500, found.status());
    if (!found->has_value()) continue;
    const DeadLetterDetail& detail = **found;
    const DeadLetter& letter = detail.letter;
    // Fired for this service: a record of it, of no service (stops it anywhere), or of any
    // service for a receptor that fires once across services (docs/guide/04-exactly-once.md).
    const auto fired_here = [&](const ReceptorInvocationRecord& record, bool across_services) {
      return across_services || record.service_name.empty() ||
             absl::EqualsIgnoreCase(internal::absl_view(record.service_name),
                                    internal::absl_view(context_.service_name));
    };
    std::set<std::string, std::less<>> already_fired;
    std::vector<std::string> would_fire;
    const MessageTypeInfo* type = context_.registry == nullptr
                                      ? nullptr
                                      : context_.registry->find_message(letter.message_type);
    if (letter.source == DeadLetterSource::PerspectiveEvent) {
      would_fire.push_back(letter.target);  // a perspective applies it; no receptor records
    } else if (context_.registry != nullptr) {
      for (const ReceptorInfo& receptor : context_.registry->receptors()) {
        if (type == nullptr || receptor.message != type) continue;
        if (letter.source == DeadLetterSource::DetachedWork && receptor.id != letter.target) {
          continue;
        }
        bool fired = false;
        for (const ReceptorInvocationRecord& record : detail.invocations) {
          fired = fired || (std::string_view(record.receptor_id) == receptor.id &&
                            fired_here(record, receptor.once_across_services));
        }
        if (fired) {
          already_fired.emplace(receptor.id);
        } else {
          would_fire.emplace_back(receptor.id);
        }
      }
    }
    for (const ReceptorInvocationRecord& record : detail.invocations) {
      if (fired_here(record, false)) already_fired.emplace(std::string_view(record.receptor_id));
    }
    json.StartObject();
    write_dead_letter_key_members(json, letter);
    json.Key("would_fire");
    json.StartArray();
    for (const std::string& receptor : would_fire) write_string(json, receptor);
    json.EndArray();
    json.Key("already_fired");
    json.StartArray();
    for (const std::string& receptor : already_fired) write_string(json, receptor);
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
  json.Key("truncated");
  json.Bool(keys.size() > kMaxDryRunItems);
  json.EndObject();
  return json_response(200, buffer.GetString());
}

}  // namespace whizbang::operator_api
