// The store-independent half of DeadLetterOperations (dead_letter_operations.hpp): names, group
// keys, and selections resolved through a backend's paged listing.
#include <array>
#include <charconv>

#include "fmt/format.h"
#include "whizbang/internal/sha256.hpp"
#include "whizbang/internal/status_macros.hpp"
#include "whizbang/store/dead_letter_operations.hpp"

namespace whizbang {
namespace {

constexpr std::array<std::pair<DeadLetterSource, std::string_view>, 5> kSourceNames{{
    {DeadLetterSource::Outbox, "outbox"},
    {DeadLetterSource::Inbox, "inbox"},
    {DeadLetterSource::PerspectiveEvent, "perspective"},
    {DeadLetterSource::LifecycleCompletion, "lifecycle"},
    {DeadLetterSource::DetachedWork, "detached"},
}};

constexpr std::array<std::pair<FailureReason, std::string_view>, 9> kReasonNames{{
    {FailureReason::None, "None"},
    {FailureReason::TransportNotReady, "TransportNotReady"},
    {FailureReason::TransportException, "TransportException"},
    {FailureReason::SerializationError, "SerializationError"},
    {FailureReason::ValidationError, "ValidationError"},
    {FailureReason::MaxAttemptsExceeded, "MaxAttemptsExceeded"},
    {FailureReason::LeaseExpired, "LeaseExpired"},
    {FailureReason::EventStorageFailure, "EventStorageFailure"},
    {FailureReason::Unknown, "Unknown"},
}};

}  // namespace

std::string_view dead_letter_source_name(DeadLetterSource source) {
  for (const auto& [value, name] : kSourceNames) {
    if (value == source) return name;
  }
  return "unknown";
}

std::optional<DeadLetterSource> parse_dead_letter_source(std::string_view name) {
  for (const auto& [value, known] : kSourceNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

std::string failure_reason_name(FailureReason reason) {
  for (const auto& [value, name] : kReasonNames) {
    if (value == reason) return std::string(name);
  }
  return std::to_string(static_cast<int>(reason));
}

std::optional<FailureReason> parse_failure_reason(std::string_view name) {
  for (const auto& [value, known] : kReasonNames) {
    if (known == name) return value;
  }
  int number = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (error == std::errc() && end == name.data() + name.size() && !name.empty()) {
    return static_cast<FailureReason>(number);
  }
  return std::nullopt;
}

std::string_view error_first_line(std::string_view error) {
  return error.substr(0, error.find('\n'));
}

std::string dead_letter_group_key(DeadLetterSource source, std::string_view target,
                                  std::string_view message_type, FailureReason reason,
                                  std::string_view first_line) {
  // Unit separators between the parts: no two different groups hash the same text.
  const std::string reason_name = failure_reason_name(reason);  // (outlives the list below)
  std::string text;
  text.append(dead_letter_source_name(source));
  for (std::string_view part : {target, message_type, std::string_view(reason_name), first_line}) {
    text.push_back('\x1f');
    text.append(part);
  }
  const internal::Sha256Digest digest = internal::sha256(text);
  std::string key;
  for (std::size_t i = 0; i < 8; ++i) key += fmt::format("{:02x}", digest[i]);
  return key;
}

std::string dead_letter_group_key(const DeadLetter& letter) {
  return dead_letter_group_key(letter.source, letter.target, letter.message_type, letter.reason,
                               error_first_line(letter.error));
}

absl::StatusOr<std::vector<DeadLetterKey>> select_dead_letters(DeadLetterOperations& store,
                                                               const DeadLetterFilter& filter,
                                                               std::size_t max) {
  std::vector<DeadLetterKey> keys;
  std::optional<DeadLetterCursor> after;
  while (keys.size() < max) {
    WB_ASSIGN_OR_RETURN(
        DeadLetterPage page,
        store.list_dead_letters(filter, std::min(kMaxDeadLetterPage, max - keys.size()), after));
    for (const DeadLetter& letter : page.items) keys.push_back({letter.source, letter.id});
    if (!page.next) break;
    after = page.next;
  }
  return keys;
}

absl::StatusOr<std::optional<DeadLetterGroup>> find_dead_letter_group(DeadLetterOperations& store,
                                                                      std::string_view key) {
  WB_ASSIGN_OR_RETURN(std::vector<DeadLetterGroup> groups,
                      store.dead_letter_groups(DeadLetterFilter{}));
  for (DeadLetterGroup& group : groups) {
    if (group.key == key) return std::move(group);
  }
  return std::nullopt;
}

}  // namespace whizbang
