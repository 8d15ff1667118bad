#include "cli/store_columns.hpp"

#include "cli/store_support.hpp"
#include "fmt/format.h"
#include "whizbang/message/payload_version.hpp"

namespace whizbang::cli {
namespace {

// A header-less column is in --json only. Outbox and inbox rows share their state's columns.
constexpr Column<OutboxRow> kOutbox[] = {
    {"MESSAGE ID", "message_id",
     [](const OutboxRow& r) { return Cell::id(r.message.message_id.uuid()); }},
    {"TYPE", "message_type",
     [](const OutboxRow& r) { return Cell::string(r.message.message_type); }},
    {"DESTINATION", "destination",
     [](const OutboxRow& r) { return Cell::optional(r.message.destination); }},
    {"STREAM", "stream_id",
     [](const OutboxRow& r) { return Cell::optional_id(r.message.stream_id); }},
    {"", "is_event", [](const OutboxRow& r) { return Cell::flag(r.message.is_event); }},
    {"STATUS", "status",
     [](const OutboxRow& r) { return Cell::string(status_text(r.state.status)); }},
    {"", "status_bits",
     [](const OutboxRow& r) { return Cell::number(static_cast<std::uint32_t>(r.state.status)); }},
    {"ATTEMPTS", "attempts", [](const OutboxRow& r) { return Cell::number(r.state.attempts); }},
    {"CREATED AT", "created_at", [](const OutboxRow& r) { return Cell::time(r.state.created_at); }},
    {"ERROR", "error", [](const OutboxRow& r) { return Cell::error(r.state.error); }},
    {"", "instance_id", [](const OutboxRow& r) { return Cell::optional_id(r.state.instance_id); }},
};

constexpr Column<InboxRow> kInbox[] = {
    {"MESSAGE ID", "message_id",
     [](const InboxRow& r) { return Cell::id(r.message.message_id.uuid()); }},
    {"TYPE", "message_type",
     [](const InboxRow& r) { return Cell::string(r.message.message_type); }},
    {"HANDLER", "handler_name",
     [](const InboxRow& r) { return Cell::string(r.message.handler_name); }},
    {"STREAM", "stream_id",
     [](const InboxRow& r) { return Cell::optional_id(r.message.stream_id); }},
    {"", "is_event", [](const InboxRow& r) { return Cell::flag(r.message.is_event); }},
    {"STATUS", "status",
     [](const InboxRow& r) { return Cell::string(status_text(r.state.status)); }},
    {"", "status_bits",
     [](const InboxRow& r) { return Cell::number(static_cast<std::uint32_t>(r.state.status)); }},
    {"ATTEMPTS", "attempts", [](const InboxRow& r) { return Cell::number(r.state.attempts); }},
    {"RECEIVED AT", "received_at",
     [](const InboxRow& r) { return Cell::time(r.state.created_at); }},
    {"ERROR", "error", [](const InboxRow& r) { return Cell::error(r.state.error); }},
    {"", "instance_id", [](const InboxRow& r) { return Cell::optional_id(r.state.instance_id); }},
};

constexpr Column<StoredEvent> kEventStore[] = {
    {"EVENT ID", "event_id", [](const StoredEvent& e) { return Cell::id(e.event_id.uuid()); }},
    {"STREAM", "stream_id", [](const StoredEvent& e) { return Cell::id(e.stream_id); }},
    {"VERSION", "version", [](const StoredEvent& e) { return Cell::number(e.version); }},
    {"TYPE", "event_type", [](const StoredEvent& e) { return Cell::string(e.event_type); }},
    {"CREATED AT", "created_at", [](const StoredEvent& e) { return Cell::time(e.created_at); }},
};

constexpr Column<StoredEvent> kStreamEvents[] = {
    {"VERSION", "version", [](const StoredEvent& e) { return Cell::number(e.version); }},
    {"EVENT ID", "event_id", [](const StoredEvent& e) { return Cell::id(e.event_id.uuid()); }},
    {"TYPE", "event_type", [](const StoredEvent& e) { return Cell::string(e.event_type); }},
    {"CREATED AT", "created_at", [](const StoredEvent& e) { return Cell::time(e.created_at); }},
    // The version of the payload's shape as stored ([[whizbang::version]], hop metadata).
    {"SHAPE", "payload_version",
     [](const StoredEvent& e) {
       const absl::StatusOr<std::uint32_t> version = stored_payload_version(e.metadata);
       if (!version.ok()) return Cell{"?", nullptr};
       std::string text = "v";
       text += std::to_string(*version);
       return Cell{std::move(text), std::int64_t{*version}};
     }},
    {"PAYLOAD", "payload", [](const StoredEvent& e) { return Cell::payload(e.event_data); }},
    {"", "metadata", [](const StoredEvent& e) { return Cell::payload(e.metadata); }},
};

constexpr Column<PerspectiveEventRow> kPerspectiveEvents[] = {
    {"EVENT WORK ID", "event_work_id",
     [](const PerspectiveEventRow& r) { return Cell::id(r.event_work_id.uuid()); }},
    {"STREAM", "stream_id", [](const PerspectiveEventRow& r) { return Cell::id(r.stream_id); }},
    {"PERSPECTIVE", "perspective",
     [](const PerspectiveEventRow& r) { return Cell::string(r.perspective_name); }},
    {"EVENT ID", "event_id",
     [](const PerspectiveEventRow& r) { return Cell::id(r.event_id.uuid()); }},
    {"STATUS", "status", [](const PerspectiveEventRow& r) { return Cell::number(r.status); }},
    {"", "instance_id",
     [](const PerspectiveEventRow& r) { return Cell::optional_id(r.instance_id); }},
};

// The duration reads "120 us" in the table and 120 under duration_us.
Cell duration(const StoredReceptorInvocation& r) {
  const std::int64_t micros = r.record.duration.count();
  return {fmt::format("{} us", micros), micros};
}

constexpr Column<StoredReceptorInvocation> kReceptorInvocations[] = {
    {"MESSAGE ID", "message_id",
     [](const StoredReceptorInvocation& r) { return Cell::id(r.message_id.uuid()); }},
    {"RECEPTOR", "receptor_id",
     [](const StoredReceptorInvocation& r) { return Cell::string(r.record.receptor_id.str()); }},
    {"SERVICE", "service_name",
     [](const StoredReceptorInvocation& r) { return Cell::dashed(r.record.service_name); }},
    {"PERSPECTIVE", "perspective",
     [](const StoredReceptorInvocation& r) { return Cell::dashed(r.record.perspective); }},
    {"STAGE", "stage",
     [](const StoredReceptorInvocation& r) {
       return Cell::string(std::string(to_string(r.record.stage)));
     }},
    {"COMPLETED AT", "completed_at",
     [](const StoredReceptorInvocation& r) { return Cell::time(r.record.completed_at); }},
    {"DURATION", "duration_us", duration},
};

constexpr Column<DeadLetter> kDeadLetters[] = {
    {"SOURCE", "source",
     [](const DeadLetter& l) { return Cell::string(std::string(to_string(l.source))); }},
    {"ID", "id", [](const DeadLetter& l) { return Cell::id(l.id.uuid()); }},
    {"TYPE", "message_type", [](const DeadLetter& l) { return Cell::dashed(l.message_type); }},
    {"TARGET", "target", [](const DeadLetter& l) { return Cell::dashed(l.target); }},
    {"STREAM", "stream_id", [](const DeadLetter& l) { return Cell::optional_id(l.stream_id); }},
    {"ATTEMPTS", "attempts", [](const DeadLetter& l) { return Cell::number(l.attempts); }},
    {"REASON", "reason",
     [](const DeadLetter& l) { return Cell::string(failure_reason_text(l.reason)); }},
    {"", "reason_code",
     [](const DeadLetter& l) { return Cell::number(static_cast<int>(l.reason)); }},
    {"DEAD-LETTERED AT", "dead_lettered_at",
     [](const DeadLetter& l) { return Cell::time(l.dead_lettered_at); }},
    {"ERROR", "error", [](const DeadLetter& l) { return Cell::error(l.error); }},
};

}  // namespace

std::span<const Column<OutboxRow>> outbox_columns() { return kOutbox; }
std::span<const Column<InboxRow>> inbox_columns() { return kInbox; }
std::span<const Column<StoredEvent>> event_store_columns() { return kEventStore; }
std::span<const Column<PerspectiveEventRow>> perspective_event_columns() {
  return kPerspectiveEvents;
}
std::span<const Column<StoredReceptorInvocation>> receptor_invocation_columns() {
  return kReceptorInvocations;
}
std::span<const Column<StoredEvent>> stream_event_columns() { return kStreamEvents; }
std::span<const Column<DeadLetter>> dead_letter_columns() { return kDeadLetters; }

}  // namespace whizbang::cli
