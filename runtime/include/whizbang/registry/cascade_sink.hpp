// CascadeSink and DispatchVisitor: where generated dispatch code delivers what receptors return.
// Part of the registry contract (whizbang/registry/registry.hpp).
#pragma once

#include <string_view>

#include "whizbang/dispatch_modes.hpp"
#include "whizbang/message/any_message.hpp"

namespace whizbang {

struct ReceptorInfo;

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

}  // namespace whizbang
