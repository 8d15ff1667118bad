// ReceptorInfo and PerspectiveInfo: the rows `whizbang-gen` emits for each receptor and
// perspective class, with thunks that call the class directly.
// Part of the registry contract (whizbang/registry/registry.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/dispatch_modes.hpp"
#include "whizbang/internal/type_key.hpp"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/message_type.hpp"
#include "whizbang/registry/cascade_sink.hpp"
#include "whizbang/registry/service_registry.hpp"
#include "whizbang/stage.hpp"

namespace whizbang {

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
  // [[whizbang::version(N)]] on the perspective class (1 when absent): the version of its
  // projection code. A host refuses to start, or rebuilds, when the stored models were built by
  // another version (docs/guide/07-perspectives.md).
  std::uint32_t version = 1;

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

}  // namespace whizbang
