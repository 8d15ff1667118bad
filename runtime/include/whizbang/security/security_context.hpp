// SecurityContext: who a dispatch acts as, for which tenant — and how it travels.
//
// C++ has no ambient async-local storage, so the context lives in a thread-local slot that the
// dispatcher sets around every receptor invocation (and restores afterwards). Work that leaves
// the thread (detached stages, executors) copies the context explicitly; nothing is shared, so
// concurrent dispatches never see each other's context.
//
// Inside a receptor:
//   const whizbang::MessageContext* context = whizbang::MessageContext::current();
//   if (context && context->security.has_role("admin")) ...
//
// Around a dispatch (see secured_dispatcher.hpp for as_system()/run_as()):
//   whizbang::SecurityContext context;
//   context.user_id = "u";
//   context.tenant_id = "t";
//   context.roles = {"admin"};
//   whizbang::ScopedSecurityContext scope(context);
#pragma once

#include <optional>
#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

// The calling thread's security: the whole SecurityScope (user, tenant, kind, principals, roles,
// permissions, claims), which is also what rides on the hops this thread's dispatches write.
struct SecurityContext : SecurityScope {
  // The part that rides on hops: all of it.
  const SecurityScope& scope() const { return *this; }
  static SecurityContext from_scope(const SecurityScope& scope) {
    SecurityContext context;
    static_cast<SecurityScope&>(context) = scope;
    return context;
  }

  // The calling thread's context, or nullptr when none is established.
  static const SecurityContext* current();
};

// What a receptor can know about the message it is handling.
struct MessageContext {
  MessageId message_id;
  std::optional<MessageId> correlation_id;
  std::optional<MessageId> causation_id;
  SecurityContext security;

  // The calling thread's message context while a receptor runs, else nullptr.
  static const MessageContext* current();
};

// Sets the thread's security context for its lifetime and restores the previous one after.
// `std::nullopt` clears it (a dispatch with no context). The scope owns the context; the thread
// slot points at it.
class ScopedSecurityContext {
 public:
  explicit ScopedSecurityContext(std::optional<SecurityContext> context);
  ~ScopedSecurityContext();
  ScopedSecurityContext(const ScopedSecurityContext&) = delete;
  ScopedSecurityContext& operator=(const ScopedSecurityContext&) = delete;

 private:
  std::optional<SecurityContext> context_;
  const SecurityContext* previous_;
};

// Sets the thread's message context (and its security context) while a receptor runs. Nothing
// is copied: `context` must outlive the scope (a named local, hence no temporaries).
class ScopedMessageContext {
 public:
  explicit ScopedMessageContext(const MessageContext& context);
  explicit ScopedMessageContext(MessageContext&&) = delete;
  // The same for a context whose security the caller knows is empty: the thread has no security
  // context while it runs, and nothing is checked (the dispatcher's local publish).
  struct EmptySecurity {};
  ScopedMessageContext(const MessageContext& context, EmptySecurity);
  ~ScopedMessageContext();
  ScopedMessageContext(const ScopedMessageContext&) = delete;
  ScopedMessageContext& operator=(const ScopedMessageContext&) = delete;

 private:
  const MessageContext* previous_message_;
  const SecurityContext* previous_security_;
};

}  // namespace whizbang
