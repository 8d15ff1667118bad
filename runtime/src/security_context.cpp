#include "whizbang/security_context.hpp"

namespace whizbang {
namespace {

// The thread's ambient slots (the C++ stand-in for the reference's async-local slots).
thread_local std::optional<SecurityContext> t_security;
thread_local std::optional<MessageContext> t_message;

}  // namespace

const SecurityContext* SecurityContext::current() { return t_security ? &*t_security : nullptr; }

const MessageContext* MessageContext::current() { return t_message ? &*t_message : nullptr; }

ScopedSecurityContext::ScopedSecurityContext(std::optional<SecurityContext> context)
    : previous_(std::move(t_security)) {
  t_security = std::move(context);
}

ScopedSecurityContext::~ScopedSecurityContext() { t_security = std::move(previous_); }

ScopedMessageContext::ScopedMessageContext(MessageContext context)
    : previous_message_(std::move(t_message)),
      security_(context.security.empty() ? std::nullopt
                                         : std::optional<SecurityContext>(context.security)) {
  t_message = std::move(context);
}

ScopedMessageContext::~ScopedMessageContext() { t_message = std::move(previous_message_); }

}  // namespace whizbang
