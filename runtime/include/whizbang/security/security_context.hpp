// SecurityContext: who a dispatch acts as, for which tenant — and how it travels.
//
// C++ has no ambient async-local storage, so the context lives in a thread-local slot that the
// dispatcher sets around every receptor invocation (and restores afterwards). Work that leaves
// the thread (detached stages, executors) copies the context explicitly; nothing is shared, so
// concurrent dispatches never see each other's context.
//
// Inside a receptor:
//   const whizbang::MessageContext* context = whizbang::MessageContext::current();
//   if (context && context->security.user_id == "alice") ...
//
// Around a dispatch (see secured_dispatcher.hpp for as_system()/run_as()):
//   whizbang::SecurityContext context{.user_id = "u", .tenant_id = "t"};
//   whizbang::ScopedSecurityContext scope(context);
#pragma once

#include <optional>
#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

enum class SecurityContextType : std::uint8_t {
  User = 0,
  System = 1,
  Impersonated = 2,
  ServiceAccount = 3,
};

struct SecurityContext {
  std::string user_id;
  std::string tenant_id;
  SecurityContextType type = SecurityContextType::User;
  // Who really initiated (the ambient user when as_system()/run_as() was called).
  std::string actual_principal;
  // Who the dispatch acts as ("SYSTEM" for as_system(), the identity for run_as()).
  std::string effective_principal;

  bool empty() const { return user_id.empty() && tenant_id.empty(); }
  // The part that rides on hops.
  SecurityScope scope() const { return SecurityScope{user_id, tenant_id}; }
  static SecurityContext from_scope(const SecurityScope& scope) {
    SecurityContext context;
    context.user_id = scope.user_id;
    context.tenant_id = scope.tenant_id;
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
  ~ScopedMessageContext();
  ScopedMessageContext(const ScopedMessageContext&) = delete;
  ScopedMessageContext& operator=(const ScopedMessageContext&) = delete;

 private:
  const MessageContext* previous_message_;
  const SecurityContext* previous_security_;
};

}  // namespace whizbang
