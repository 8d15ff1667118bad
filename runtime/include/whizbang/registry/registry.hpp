// Registry: the tables `whizbang-gen` emits and the runtime consumes.
//
// This header is the contract between generated code and the runtime. Everything the dispatcher
// knows about user types arrives through it: message types (`MessageTypeInfo`, `AnyMessage`, in
// whizbang/message/), receptors and perspectives (`ReceptorInfo`, `PerspectiveInfo`),
// constructor dependencies (`ServiceRegistry`), cascades (`CascadeSink`, `DispatchVisitor`) and
// the constructed instances (`ReceptorSet`), each in whizbang/registry/, and the per-target
// `Registry` below that ties them together. No RTTI is used anywhere: a message type is identified
// by the address of its `MessageTypeInfo`, a service type by an `internal::TypeKey`.
//
// Every target passed to `whizbang_generate(<target> ...)` gets its own registry in namespace
// `whizbang::generated::<target>` (target name with non-identifier characters replaced by `_`),
// declared in the generated header `whizbang_registry.hpp`:
//
//   #include "whizbang_registry.hpp"           // generated, on the target's include path
//
//   const whizbang::Registry& registry = whizbang::generated::orders::registry();
//
//   whizbang::ServiceRegistry services;
//   services.add<shop::Mailer>(mailer);        // constructor dependencies of receptors
//   absl::StatusOr<whizbang::ReceptorSet> receptors = registry.create_receptors(services);
//   if (!receptors.ok()) return receptors.status();   // names the receptor and missing type
//
//   whizbang::AnyMessage message = whizbang::AnyMessage::make(shop::CreateOrder{"o-1", "c-9", 12});
//   MyVisitor visitor;                          // a DispatchVisitor: filters and collects cascades
//   absl::Status status = registry.dispatch(message, *receptors, visitor);
//
// Message types are generated into `whizbang_messages.hpp` as `MessageTraits<T>` specializations.
// Those are inline and depend only on the message type, so two targets that both see a message
// type emit token-identical definitions and can link into one program. Registries are
// target-scoped and never clash.
//
// ABI: generated code starts with
//   static_assert(WHIZBANG_REGISTRY_ABI_VERSION == N, "...regenerate...");
// so a runtime/generator mismatch fails the build instead of misbehaving. Bump the version on any
// change to the layout or meaning of the structs below.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/dispatch_modes.hpp"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/message_type.hpp"
#include "whizbang/registry/cascade_sink.hpp"
#include "whizbang/registry/receptor_info.hpp"
#include "whizbang/registry/receptor_set.hpp"
#include "whizbang/registry/service_registry.hpp"

#define WHIZBANG_REGISTRY_ABI_VERSION 4

namespace whizbang {

// A message type as seen by one registry: its dense index is its position in
// Registry::messages() (sorted by wire name), its receptors a contiguous run of
// Registry::receptors().
struct MessageEntry {
  const MessageTypeInfo* info = nullptr;
  std::uint32_t first_receptor = 0;
  std::uint32_t receptor_count = 0;
  // default_routing of the first receptor (declaration order) of this type that carries one.
  std::optional<DispatchModes> receptor_default_routing;
  // The perspectives with an apply overload for this type, in name order.
  std::span<const PerspectiveInfo* const> perspectives;
};

// Registry: one generated target's message types and receptors.
class Registry {
 public:
  // Generated: a `switch (message_index)` calling each receptor's `handle` directly.
  using DispatchFn = absl::Status (*)(std::uint32_t message_index, const AnyMessage& message,
                                      const ReceptorSet& receptors, DispatchVisitor& visitor);

  constexpr Registry(std::string_view name, std::span<const MessageEntry> messages,
                     std::span<const ReceptorInfo> receptors, DispatchFn dispatch_fn,
                     std::span<const PerspectiveInfo> perspectives = {})
      : name_(name),
        messages_(messages),
        receptors_(receptors),
        perspectives_(perspectives),
        dispatch_(dispatch_fn) {}

  // The target name given to whizbang_generate().
  std::string_view name() const { return name_; }
  // Every message type the target sees, sorted by wire name.
  std::span<const MessageEntry> messages() const { return messages_; }
  // Every receptor, grouped by message type (in messages() order), then declaration order.
  std::span<const ReceptorInfo> receptors() const { return receptors_; }

  // Lookup for decoding inbound envelopes: by wire name, or by the .NET assembly-qualified name
  // of a type shared with .NET ("Ns.Type, Assembly", with or without Version, Culture and
  // PublicKeyToken, as Whizbang .NET sends it). nullptr when unknown.
  const MessageTypeInfo* find_message(std::string_view name) const;
  // The dense index of `info` in messages(), or nullopt when this registry does not know it.
  std::optional<std::uint32_t> index_of(const MessageTypeInfo& info) const;
  template <GeneratedMessage T>
  std::optional<std::uint32_t> index_of() const {
    return index_of(MessageTraits<T>::info());
  }
  // The receptors of a message type, in declaration order (empty when none or unknown).
  std::span<const ReceptorInfo> receptors_for(const MessageTypeInfo& info) const;
  // Every perspective, sorted by name.
  std::span<const PerspectiveInfo> perspectives() const { return perspectives_; }
  // The perspectives that apply events of `info`'s type (empty when none or unknown).
  std::span<const PerspectiveInfo* const> perspectives_for(const MessageTypeInfo& info) const;
  const PerspectiveInfo* find_perspective(std::string_view name) const;
  const ReceptorInfo* find_receptor(std::string_view id) const;
  // The receptor-level default route for cascades caused by `info`.
  std::optional<DispatchModes> receptor_default_routing(const MessageTypeInfo& info) const;

  // Builds every receptor. The first missing dependency fails the whole set.
  absl::StatusOr<ReceptorSet> create_receptors(const ServiceRegistry& services) const;
  // Builds every perspective (indexed like perspectives()). The first missing dependency fails.
  absl::StatusOr<ReceptorSet> create_perspectives(const ServiceRegistry& services) const;

  // Runs every receptor of `message`'s type that `visitor` admits, in declaration order,
  // cascading each result into `visitor`. NotFound when this registry does not know the type;
  // FailedPrecondition when `receptors` was not built by this registry.
  absl::Status dispatch(const AnyMessage& message, const ReceptorSet& receptors,
                        DispatchVisitor& visitor) const;

  // Runs one receptor (the per-stage path of the dispatcher).
  absl::Status invoke(const ReceptorInfo& receptor, const ReceptorSet& receptors,
                      const AnyMessage& message, CascadeSink& sink,
                      std::shared_ptr<void>* response = nullptr) const;

 private:
  const MessageEntry* find_entry(std::string_view wire_name) const;

  std::string_view name_;
  std::span<const MessageEntry> messages_;
  std::span<const ReceptorInfo> receptors_;
  std::span<const PerspectiveInfo> perspectives_;
  DispatchFn dispatch_;
};

// The per-dispatch path stays inline: every publish and send looks its message type up.
inline std::optional<std::uint32_t> Registry::index_of(const MessageTypeInfo& info) const {
  const MessageEntry* entry = find_entry(info.wire_name);
  if (entry == nullptr || entry->info != &info) return std::nullopt;
  return static_cast<std::uint32_t>(entry - messages_.data());
}

inline const MessageEntry* Registry::find_entry(std::string_view wire_name) const {
  auto it = std::lower_bound(messages_.begin(), messages_.end(), wire_name,
                             [](const MessageEntry& entry, std::string_view name) {
                               return entry.info->wire_name < name;
                             });
  if (it == messages_.end() || it->info->wire_name != wire_name) return nullptr;
  return &*it;
}

inline absl::Status Registry::dispatch(const AnyMessage& message, const ReceptorSet& receptors,
                                       DispatchVisitor& visitor) const {
  if (message.info() == nullptr) return absl::InvalidArgumentError("empty AnyMessage");
  const std::optional<std::uint32_t> index = index_of(*message.info());
  if (!index) {
    return absl::NotFoundError(std::string("registry '") + std::string(name_) +
                               "' does not know message type " +
                               std::string(message.info()->wire_name));
  }
  if (receptors.size() != receptors_.size()) {
    return absl::FailedPreconditionError("ReceptorSet was built by another registry");
  }
  return dispatch_(*index, message, receptors, visitor);
}

inline absl::Status Registry::invoke(const ReceptorInfo& receptor, const ReceptorSet& receptors,
                                     const AnyMessage& message, CascadeSink& sink,
                                     std::shared_ptr<void>* response) const {
  void* instance = receptors.get(receptor.index);
  if (instance == nullptr) return absl::FailedPreconditionError("receptor not constructed");
  return receptor.invoke(instance, message, sink, response);
}

}  // namespace whizbang
