// Registry: the tables `whizbang-gen` emits and the runtime consumes.
//
// This header is the contract between generated code and the runtime. Everything the dispatcher
// knows about user types arrives through it: message types (`MessageTypeInfo`, `AnyMessage`),
// receptors (`ReceptorInfo`), perspectives (`PerspectiveInfo`), constructor dependencies
// (`ServiceRegistry`), cascades (`CascadeSink`) and the per-target `Registry` that ties them
// together. No RTTI is used anywhere: a message type is identified by the address of its
// `MessageTypeInfo`, a service type by an `internal::TypeKey`.
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
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/dispatch_modes.hpp"
#include "whizbang/internal/type_key.hpp"
#include "whizbang/stage.hpp"

#define WHIZBANG_REGISTRY_ABI_VERSION 2

namespace whizbang {

class AnyMessage;

enum class MessageKind : std::uint8_t {
  Event = 0,
  Command = 1,
};

constexpr std::string_view to_string(MessageKind kind) {
  return kind == MessageKind::Event ? "event" : "command";
}

// Where a type was declared, relative to the generator's --root (the project source dir).
struct SourceLocation {
  std::string_view file;
  std::uint32_t line = 0;
};

// Everything the runtime knows about one message type. One instance per type per program: its
// address is the type's identity (`AnyMessage::get_if`, `Registry::index_of`).
//
// JSON (RapidJSON): an object with one member per public data member, named as the member.
// Arithmetic as numbers, bool, enums as their underlying integer, std::string, std::optional
// (null or absent when empty), std::vector (array), std::map<std::string, T> (object), nested
// structs (object), Uuid/MessageId (hyphenated lowercase string),
// std::chrono::system_clock::time_point (integer microseconds since the Unix epoch). Decoding
// ignores unknown members, keeps the default for absent ones and returns InvalidArgument (naming
// the JSON path) for a wrong type or an out-of-range number; it never crashes.
struct MessageTypeInfo {
  // Stable name on the wire and in derived ids: the qualified C++ name (`shop::OrderCreated`)
  // unless the type carries [[whizbang::wire_name("...")]].
  std::string_view wire_name;
  // The qualified C++ name.
  std::string_view cpp_name;
  MessageKind kind = MessageKind::Event;
  // [[whizbang::default_routing(...)]] on the type: the highest-priority cascade route.
  std::optional<DispatchModes> default_routing;
  SourceLocation source;

  // Codec entry points (see whizbang/internal/json_codec.hpp for the typed forms).
  // `message` points at an instance of this type.
  std::string (*to_json)(const void* message) = nullptr;
  absl::StatusOr<AnyMessage> (*from_json)(std::string_view json) = nullptr;
  // `rapidjson_value` is a `const rapidjson::Value*` (an already-parsed payload member).
  absl::StatusOr<AnyMessage> (*from_json_value)(const void* rapidjson_value) = nullptr;
  // `rapidjson_writer` is a `rapidjson::Writer<rapidjson::StringBuffer>*`.
  void (*write_json)(const void* message, void* rapidjson_writer) = nullptr;
};

// Specialized by generated code (whizbang_messages.hpp) for every message type:
//   template <> struct MessageTraits<shop::OrderCreated> {
//     static constexpr MessageTypeInfo kInfo{...};
//     static const MessageTypeInfo& info() { return kInfo; }
//   };
template <class T>
struct MessageTraits;

template <class T>
concept GeneratedMessage = requires {
  { MessageTraits<T>::info() } -> std::same_as<const MessageTypeInfo&>;
};

// AnyMessage: an owning, immutable, type-erased message (shared, cheap to copy).
//
//   AnyMessage m = AnyMessage::make(shop::OrderCreated{"o-1", "c-9"});
//   if (const auto* created = m.get_if<shop::OrderCreated>()) use(created->order_id);
//   std::string json = m.to_json();
class AnyMessage {
 public:
  AnyMessage() = default;

  template <GeneratedMessage T>
  static AnyMessage make(T message) {
    return AnyMessage(std::make_shared<const T>(std::move(message)), MessageTraits<T>::info());
  }
  template <GeneratedMessage T>
  static AnyMessage share(std::shared_ptr<const T> message) {
    return AnyMessage(std::move(message), MessageTraits<T>::info());
  }
  // Refers to `message` without owning or copying it (no allocation): valid only while `message`
  // lives. The dispatcher's entry points use it, as a dispatch finishes before it returns.
  template <GeneratedMessage T>
  static AnyMessage borrow(const T& message) {
    // The aliasing constructor with an empty owner: a non-null pointer with no control block.
    return AnyMessage(std::shared_ptr<const void>(std::shared_ptr<const void>(), &message),
                      MessageTraits<T>::info());
  }
  // For generated decoders: `data` must point at an instance of the type `info` describes.
  static AnyMessage from_parts(std::shared_ptr<const void> data, const MessageTypeInfo& info) {
    return AnyMessage(std::move(data), info);
  }

  bool has_value() const { return data_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  // nullptr for an empty AnyMessage.
  const MessageTypeInfo* info() const { return info_; }
  const void* data() const { return data_.get(); }
  const std::shared_ptr<const void>& shared_data() const { return data_; }

  // The message as a T, or nullptr when it holds another type (pointer comparison, no RTTI).
  template <GeneratedMessage T>
  const T* get_if() const {
    return info_ == &MessageTraits<T>::info() ? static_cast<const T*>(data_.get()) : nullptr;
  }
  template <GeneratedMessage T>
  bool is() const {
    return info_ == &MessageTraits<T>::info();
  }

  // Empty string for an empty AnyMessage.
  std::string to_json() const { return info_ ? info_->to_json(data_.get()) : std::string(); }

 private:
  AnyMessage(std::shared_ptr<const void> data, const MessageTypeInfo& info)
      : data_(std::move(data)), info_(&info) {}

  std::shared_ptr<const void> data_;
  const MessageTypeInfo* info_ = nullptr;
};

// ServiceRegistry: the host's typed services, used to construct receptors.
//
// Non-owning: the host keeps each service alive for as long as receptors built from the
// registry live. Keyed by `internal::type_key<T>()`; a receptor constructor parameter `Mailer&`,
// `const Mailer&`, `Mailer*` or `Mailer` (copied) is resolved with `find<Mailer>()`.
//
//   whizbang::ServiceRegistry services;
//   services.add<shop::Mailer>(mailer).add<shop::Clock>(clock);
class ServiceRegistry {
 public:
  template <class T>
  ServiceRegistry& add(T& service) {
    entries_[internal::type_key<T>()] =
        const_cast<void*>(static_cast<const void*>(std::addressof(service)));
    return *this;
  }
  // nullptr when no service of type T was added.
  template <class T>
  T* find() const {
    auto it = entries_.find(internal::type_key<T>());
    return it == entries_.end() ? nullptr : static_cast<T*>(it->second);
  }
  bool contains(internal::TypeKey key) const { return entries_.contains(key); }

 private:
  std::unordered_map<internal::TypeKey, void*> entries_;
};

// CascadeSink: receives the messages a receptor's result cascades, in depth-first,
// left-to-right order, each with its resolved route. Route priority (highest first): the
// message type's default_routing, the receptor's default_routing, the innermost Routed around
// the message itself, the innermost Routed around a collection containing it, then Local.
// Routed values with mode None and RoutedNone produce nothing.
class CascadeSink {
 public:
  virtual ~CascadeSink() = default;
  virtual void emit(AnyMessage message, DispatchModes mode) = 0;
  // A value in the result that is not a message (for Debug logging). `type_name` is the C++
  // type as the generator spelled it.
  virtual void ignored(std::string_view type_name) { (void)type_name; }
};

// ReceptorInfo: one receptor class. Rows are generated; the thunks call the class directly.
struct ReceptorInfo {
  // Stable qualified class name, e.g. "shop::CreateOrderReceptor". Static storage (a string
  // literal in generated code): invocation records borrow it instead of copying.
  std::string_view id;
  const MessageTypeInfo* message = nullptr;
  // [[whizbang::fire_at(...)]] in declaration order, or kDefaultStages when absent.
  std::span<const Stage> stages;
  bool default_stages = true;
  bool idempotent = false;            // [[whizbang::idempotent]]: opts out of the guardrail
  bool always_fire = false;           // idempotent(OnReplay::AlwaysFire): fires on replay/rebuild
  bool once_across_services = false;  // [[whizbang::once_across_services]]
  std::optional<DispatchModes> default_routing;  // [[whizbang::default_routing(...)]]
  // The `handle` result type, fully qualified; empty for void.
  std::string_view response_type;
  // internal::type_key<Result>(); nullptr for void.
  internal::TypeKey response_key = nullptr;
  SourceLocation source;
  // Position in Registry::receptors() and ReceptorSet.
  std::uint32_t index = 0;

  // Builds the receptor, resolving its constructor parameters from `services`. A missing
  // dependency is FailedPrecondition naming the receptor and the type.
  absl::StatusOr<std::shared_ptr<void>> (*create)(const ServiceRegistry& services) = nullptr;
  // Calls `handle` on `receptor` (an instance built by `create`) and cascades the result into
  // `sink`. When `response` is non-null and the receptor returns a value, the value is moved
  // into `*response` (a shared_ptr to the Result type identified by `response_key`).
  // InvalidArgument when `message` is not of `this->message`'s type.
  absl::Status (*invoke)(void* receptor, const AnyMessage& message, CascadeSink& sink,
                         std::shared_ptr<void>* response) = nullptr;
  // RPC extraction: the first value (depth-first, left to right, through tuples, Routed and
  // optional) of the type `wanted` inside `response` (a Result as produced by `invoke`), or
  // nullptr. Lets local_invoke<X>() answer from a receptor that returns (X, Event) without
  // running it twice. Null when the generator emitted no extractor.
  const void* (*find_response)(const void* response, internal::TypeKey wanted) = nullptr;
};

// PerspectiveInfo: one perspective class (a read-model projection deriving from
// whizbang::Perspective<Model>). Rows are generated; the thunks call the class directly.
//
// The model is type-erased: `new_model` makes a default-constructed one (the state of a stream
// no event has touched), `model_to_json`/`model_from_json` are its JSON codec (same encoding as
// message fields), and `apply` runs the `apply(Model&, const E&)` overload for the event's type.
//
//   const whizbang::PerspectiveInfo& p = *registry.perspectives_for(OrderCreatedInfo)[0];
//   std::shared_ptr<void> model = p.new_model();
//   absl::Status s = p.apply(instance.get(), model.get(), event);   // instance from create()
//   std::string json = p.model_to_json(model.get());
struct PerspectiveInfo {
  // Stable qualified class name, e.g. "shop::OrderSummaryPerspective". Also the perspective
  // name in the store (wh_perspective_events, wh_perspective_models) and in invocation records.
  std::string_view name;
  // The qualified model type.
  std::string_view model_type;
  // The event types it has an apply overload for, in wire-name order.
  std::span<const MessageTypeInfo* const> events;
  SourceLocation source;
  // Position in Registry::perspectives() and in the set create_perspectives() builds.
  std::uint32_t index = 0;

  // Builds the perspective, resolving its constructor parameters from `services`.
  absl::StatusOr<std::shared_ptr<void>> (*create)(const ServiceRegistry& services) = nullptr;
  std::shared_ptr<void> (*new_model)() = nullptr;
  std::string (*model_to_json)(const void* model) = nullptr;
  // Decodes into `model` (made by new_model); InvalidArgument naming the JSON path.
  absl::Status (*model_from_json)(std::string_view json, void* model) = nullptr;
  // InvalidArgument when `event` is not one of `events`; otherwise what apply returned (OK for a
  // void apply).
  absl::Status (*apply)(void* perspective, void* model, const AnyMessage& event) = nullptr;

  bool handles(const MessageTypeInfo& type) const {
    return std::find(events.begin(), events.end(), &type) != events.end();
  }
};

namespace internal {
// Generated apply thunks: a void apply is OK, an absl::Status apply is passed on.
template <class F>
absl::Status call_apply(F&& apply) {
  if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
    std::forward<F>(apply)();
    return absl::OkStatus();
  } else {
    return std::forward<F>(apply)();
  }
}
}  // namespace internal

// DispatchVisitor: drives Registry::dispatch. It is the cascade sink for every receptor it lets
// run, and decides per receptor whether it runs (stage filter, exactly-once guardrail).
class DispatchVisitor : public CascadeSink {
 public:
  // Return false to skip `receptor`. Receptors of a message run in declaration order.
  virtual bool before_invoke(const ReceptorInfo& receptor) {
    (void)receptor;
    return true;
  }
  // After `handle` returned and its result was cascaded into this visitor. `response` points at
  // the returned value (type identified by receptor.response_key), nullptr for void receptors.
  virtual void after_invoke(const ReceptorInfo& receptor, const void* response) {
    (void)receptor;
    (void)response;
  }
};

// ReceptorSet: one constructed instance per receptor of a registry, indexed like
// Registry::receptors(). Built at start-up by Registry::create_receptors. The same class holds
// the perspectives built by Registry::create_perspectives (indexed like perspectives()).
class ReceptorSet {
 public:
  ReceptorSet() = default;
  explicit ReceptorSet(std::vector<std::shared_ptr<void>> instances)
      : instances_(std::move(instances)) {}
  void* get(std::uint32_t index) const {
    return index < instances_.size() ? instances_[index].get() : nullptr;
  }
  std::size_t size() const { return instances_.size(); }

 private:
  std::vector<std::shared_ptr<void>> instances_;
};

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

  // Lookup by wire name, for decoding inbound envelopes. nullptr when unknown.
  const MessageTypeInfo* find_message(std::string_view wire_name) const {
    const MessageEntry* entry = find_entry(wire_name);
    return entry ? entry->info : nullptr;
  }
  // The dense index of `info` in messages(), or nullopt when this registry does not know it.
  std::optional<std::uint32_t> index_of(const MessageTypeInfo& info) const {
    const MessageEntry* entry = find_entry(info.wire_name);
    if (entry == nullptr || entry->info != &info) return std::nullopt;
    return static_cast<std::uint32_t>(entry - messages_.data());
  }
  template <GeneratedMessage T>
  std::optional<std::uint32_t> index_of() const {
    return index_of(MessageTraits<T>::info());
  }
  // The receptors of a message type, in declaration order (empty when none or unknown).
  std::span<const ReceptorInfo> receptors_for(const MessageTypeInfo& info) const {
    const std::optional<std::uint32_t> index = index_of(info);
    if (!index) return {};
    const MessageEntry& entry = messages_[*index];
    return receptors_.subspan(entry.first_receptor, entry.receptor_count);
  }
  // Every perspective, sorted by name.
  std::span<const PerspectiveInfo> perspectives() const { return perspectives_; }
  // The perspectives that apply events of `info`'s type (empty when none or unknown).
  std::span<const PerspectiveInfo* const> perspectives_for(const MessageTypeInfo& info) const {
    const std::optional<std::uint32_t> index = index_of(info);
    return index ? messages_[*index].perspectives : std::span<const PerspectiveInfo* const>();
  }
  const PerspectiveInfo* find_perspective(std::string_view name) const {
    for (const PerspectiveInfo& perspective : perspectives_) {
      if (perspective.name == name) return &perspective;
    }
    return nullptr;
  }
  const ReceptorInfo* find_receptor(std::string_view id) const {
    for (const ReceptorInfo& receptor : receptors_) {
      if (receptor.id == id) return &receptor;
    }
    return nullptr;
  }
  // The receptor-level default route for cascades caused by `info`.
  std::optional<DispatchModes> receptor_default_routing(const MessageTypeInfo& info) const {
    const std::optional<std::uint32_t> index = index_of(info);
    return index ? messages_[*index].receptor_default_routing : std::nullopt;
  }

  // Builds every receptor. The first missing dependency fails the whole set.
  absl::StatusOr<ReceptorSet> create_receptors(const ServiceRegistry& services) const {
    std::vector<std::shared_ptr<void>> instances;
    instances.reserve(receptors_.size());
    for (const ReceptorInfo& receptor : receptors_) {
      absl::StatusOr<std::shared_ptr<void>> instance = receptor.create(services);
      if (!instance.ok()) return instance.status();
      instances.push_back(*std::move(instance));
    }
    return ReceptorSet(std::move(instances));
  }
  // Builds every perspective (indexed like perspectives()). The first missing dependency fails.
  absl::StatusOr<ReceptorSet> create_perspectives(const ServiceRegistry& services) const {
    std::vector<std::shared_ptr<void>> instances;
    instances.reserve(perspectives_.size());
    for (const PerspectiveInfo& perspective : perspectives_) {
      absl::StatusOr<std::shared_ptr<void>> instance = perspective.create(services);
      if (!instance.ok()) return instance.status();
      instances.push_back(*std::move(instance));
    }
    return ReceptorSet(std::move(instances));
  }

  // Runs every receptor of `message`'s type that `visitor` admits, in declaration order,
  // cascading each result into `visitor`. NotFound when this registry does not know the type;
  // FailedPrecondition when `receptors` was not built by this registry.
  absl::Status dispatch(const AnyMessage& message, const ReceptorSet& receptors,
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

  // Runs one receptor (the per-stage path of the dispatcher).
  absl::Status invoke(const ReceptorInfo& receptor, const ReceptorSet& receptors,
                      const AnyMessage& message, CascadeSink& sink,
                      std::shared_ptr<void>* response = nullptr) const {
    void* instance = receptors.get(receptor.index);
    if (instance == nullptr) return absl::FailedPreconditionError("receptor not constructed");
    return receptor.invoke(instance, message, sink, response);
  }

 private:
  const MessageEntry* find_entry(std::string_view wire_name) const {
    auto it = std::lower_bound(messages_.begin(), messages_.end(), wire_name,
                               [](const MessageEntry& entry, std::string_view name) {
                                 return entry.info->wire_name < name;
                               });
    if (it == messages_.end() || it->info->wire_name != wire_name) return nullptr;
    return &*it;
  }

  std::string_view name_;
  std::span<const MessageEntry> messages_;
  std::span<const ReceptorInfo> receptors_;
  std::span<const PerspectiveInfo> perspectives_;
  DispatchFn dispatch_;
};

}  // namespace whizbang
