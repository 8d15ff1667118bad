// Envelope: a message plus what travelled with it — its id, hops, receptor invocation records and
// the dispatch context.
//
// Hops and receptor invocation records are parallel lists. Security, scope, source-service and
// trace extraction read hops only; the exactly-once guardrail reads records only. Keeping them
// apart means the guardrail can never leak into security-critical paths.
//
//   auto envelope = whizbang::Envelope::create(whizbang::AnyMessage::make(cmd), self);
//   envelope.correlation_id();             // from the first hop
//   envelope.current_scope();              // the hops' scopes folded in order
//   envelope.emission_sequence().next();   // ordinals for what this handling emits
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"

#include "whizbang/dispatch_modes.hpp"
#include "whizbang/ids/emission_sequence.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/static_or_owned_string.hpp"
#include "whizbang/stage.hpp"

namespace whizbang {

using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

// A time as microseconds since the Unix epoch: how stores keep times and envelopes carry them.
constexpr std::int64_t to_unix_micros(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
}
constexpr TimePoint from_unix_micros(std::int64_t micros) {
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(micros)));
}

// One running instance of a service.
struct ServiceInstance {
  std::string service_name;
  Uuid instance_id;
  std::string host_name;
  std::int64_t process_id = 0;

  friend bool operator==(const ServiceInstance&, const ServiceInstance&) = default;
};

// Who a dispatch acts as (the reference's SecurityContextType; the integers travel on the wire).
enum class SecurityContextType : std::uint8_t {
  User = 0,
  System = 1,        // as_system()
  Impersonated = 2,  // run_as()
  ServiceAccount = 3,
};

// One extension value of a scope (.NET's ScopeExtension, `{"k":…,"v":…}`); a value may be null.
struct ScopeExtension {
  std::string key;
  std::optional<std::string> value;

  friend bool operator==(const ScopeExtension&, const ScopeExtension&) = default;
};

// The security scope that travels with a message (docs/guide/16-security.md): who acts, for
// which tenant, customer and organization, in which roles. Empty strings and lists mean "not
// set". On the wire each hop carries only what changed (a .NET ScopeDelta); in memory a hop holds
// the whole scope in force from it on, and a receiver folds the hops' changes in order.
struct SecurityScope {
  SecurityScope() = default;
  // The common scope: a user acting for a tenant.
  SecurityScope(std::string user, std::string tenant)
      : user_id(std::move(user)), tenant_id(std::move(tenant)) {}

  // .NET's PerspectiveScope (`Sc` on the wire): t, u, c, o, ap, sys, dec, ex.
  std::string user_id;
  std::string tenant_id;
  std::string customer_id;
  std::string organization_id;
  // The principals allowed to see what this scope writes ("user:alice", "group:sales").
  std::vector<std::string> allowed_principals;
  bool is_system = false;
  // The scope was declared unscoped on purpose (not merely left unset).
  bool declared_unscoped = false;
  std::vector<ScopeExtension> extensions;

  SecurityContextType type = SecurityContextType::User;
  // Who really initiated (the caller of as_system()/run_as()), and who the dispatch acts as.
  std::string actual_principal;
  std::string effective_principal;
  std::vector<std::string> roles;
  std::vector<std::string> permissions;
  // The security principals the caller is (`Pr`: "user:alice", "group:sales").
  std::vector<std::string> principals;
  std::map<std::string, std::string> claims;

  // Member by member, with no default scope to build and compare against: every dispatch asks.
  bool empty() const {
    return user_id.empty() && tenant_id.empty() && customer_id.empty() && organization_id.empty() &&
           allowed_principals.empty() && !is_system && !declared_unscoped && extensions.empty() &&
           type == SecurityContextType::User && actual_principal.empty() &&
           effective_principal.empty() && roles.empty() && permissions.empty() &&
           principals.empty() && claims.empty();
  }
  bool has_role(std::string_view role) const;
  bool has_permission(std::string_view permission) const;
  friend bool operator==(const SecurityScope&, const SecurityScope&) = default;
};

enum class HopType : std::uint8_t {
  Current = 0,
  Causation = 1,
};

// One service's handling of the message.
struct MessageHop {
  HopType type = HopType::Current;
  ServiceInstance service_instance;
  TimePoint timestamp{};
  std::optional<MessageId> correlation_id;
  std::optional<MessageId> causation_id;
  std::string causation_type;
  // The transport topic, or "(event-store)" for an event-store-only row.
  std::string topic;
  std::optional<Uuid> stream_id;
  // The whole scope in force from this hop on; nullopt when the hop changed nothing. Written as
  // the change from the scope of the earlier Current hops (a Causation hop's stands alone).
  std::optional<SecurityScope> scope;
  std::map<std::string, std::string> metadata;
  std::optional<std::chrono::microseconds> duration;
  // The W3C traceparent of the span that wrote this hop (`tp` on the wire, as Whizbang .NET
  // writes it; docs/guide/18-tracing.md); empty = none. Kept as read, valid or not: the tracer
  // validates it (observability/trace_propagation.hpp), the message layer only carries it.
  std::string trace_parent;

  friend bool operator==(const MessageHop&, const MessageHop&) = default;
};

// Proof that a receptor fired for the message, written after every successful invocation.
struct ReceptorInvocationRecord {
  // Borrowed from the registry when recorded here, owned when decoded.
  StaticOrOwnedString receptor_id;
  Stage stage = Stage::LocalImmediateInline;
  TimePoint completed_at{};
  std::chrono::microseconds duration{0};
  // The service that wrote the record; empty = "no service known" (stops the receptor anywhere).
  std::string service_name;
  // For perspective-scoped stages: the perspective the invocation ran under.
  std::string perspective;
  // A record read from a .NET envelope's "rin" that this runtime would not write back the same
  // (100 ns ticks, another offset, members it does not know): that item's JSON as it came,
  // written back verbatim. Empty otherwise. Not part of equality: it is the record's wire form.
  std::string received_json = {};  // (a default: brace-initialized records may omit it)

  friend bool operator==(const ReceptorInvocationRecord& a, const ReceptorInvocationRecord& b) {
    return a.receptor_id == b.receptor_id && a.stage == b.stage &&
           a.completed_at == b.completed_at && a.duration == b.duration &&
           a.service_name == b.service_name && a.perspective == b.perspective;
  }
};

enum class MessageSource : std::uint8_t {
  Local = 0,
  Outbox = 1,
  Inbox = 2,
};

struct DispatchContext {
  DispatchModes mode = DispatchModes::Local;
  MessageSource source = MessageSource::Local;
  // True for envelopes handed to default-stage receptors by a cascade or publish.
  bool is_default_dispatch = false;
  // The handler (inbox row within the service) handling this envelope. Carried in process only:
  // never serialized, so stored and transported envelopes are byte-identical with or without it.
  std::string handler_name;

  // Equality of what is serialized (handler_name excluded).
  bool same_wire_fields(const DispatchContext& other) const {
    return mode == other.mode && source == other.source &&
           is_default_dispatch == other.is_default_dispatch;
  }
};

// The envelope members Whizbang .NET writes that this runtime carries without acting on them
// (docs/guide/15-dotnet-services.md, "What each side ignores"): read from a received envelope
// and written back as they came, so an envelope stored or forwarded here keeps them. An envelope
// created here has none, as .NET omits its defaults. Empty = absent (a null reads as absent).
struct DotNetEnvelopeMembers {
  // "sid", "sseq": the service whose event store the event came from, and its commit sequence
  // there. A non-nil "sid" also names the sending service where "ss" does not (source_service_id).
  std::optional<Uuid> source_service_id;
  std::optional<std::int64_t> source_commit_sequence;
  // "cbid", "cbseq": the service and commit sequence of the event this one reacted to.
  std::optional<Uuid> caused_by_service_id;
  std::optional<std::int64_t> caused_by_commit_sequence;
  // "tgt": the one service a directed message is for (absent: broadcast).
  std::optional<std::string> target;
  // "sto": state only (build read models, fire no trigger receptors).
  std::optional<bool> state_only;
  // "pri": the message priority, lower is more urgent (interactive 50, standard 150,
  // background 250); absent or 0 = not declared.
  std::optional<std::int64_t> priority;

  bool empty() const {
    return !source_service_id && !source_commit_sequence && !caused_by_service_id &&
           !caused_by_commit_sequence && !target && !state_only && !priority;
  }
  friend bool operator==(const DotNetEnvelopeMembers&, const DotNetEnvelopeMembers&) = default;
};

class Envelope {
 public:
  Envelope() = default;

  // A new envelope with a freshly minted id and one Current hop for `self`.
  static Envelope create(AnyMessage payload, const ServiceInstance& self);

  int version = 1;
  MessageId message_id;
  AnyMessage payload;
  std::vector<MessageHop> hops;
  // Inline room for the usual one or two records: recording a fire allocates nothing.
  absl::InlinedVector<ReceptorInvocationRecord, 2> receptor_invocations;
  DispatchContext dispatch_context;
  // The publishing service's id, stamped when the dispatcher writes the envelope to the outbox
  // (DispatcherOptions::source_service_id), else by the outbox drain worker. Nil = unknown.
  Uuid source_service_id;
  // What a .NET sender wrote that this runtime only carries (kept on stores and forwards).
  DotNetEnvelopeMembers dotnet;

  // In process only (never serialized):
  // What nested emissions derive from instead of message_id (see
  // docs/guide/05-emission-identity.md).
  std::optional<MessageId> emission_anchor;

  // Ordinals for the messages this handling emits: 0, 1, 2, ... per envelope instance.
  EmissionSequence& emission_sequence() const { return emission_sequence_; }

  // From the first hop.
  std::optional<MessageId> correlation_id() const;
  std::optional<MessageId> causation_id() const;
  std::optional<TimePoint> timestamp() const;
  // From the last Current hop that has one.
  std::optional<Uuid> stream_id() const;
  std::string_view topic() const;
  // The security scope: the Current hops' scopes folded in order (each hop holds the whole scope
  // in force from it on, so the latest that carries one); nullopt when none does.
  std::optional<SecurityScope> current_scope() const;
  // The latest Current hop that changed the scope, or nullptr.
  const MessageHop* current_scope_hop() const;
  // The service name of the last hop (the service the message came from); empty when no hops.
  std::string_view source_service_name() const;

 private:
  mutable EmissionSequence emission_sequence_;
};

}  // namespace whizbang
