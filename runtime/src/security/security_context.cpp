#include "whizbang/security/security_context.hpp"

namespace whizbang {
namespace {

// The thread's ambient slots (the C++ stand-in for the reference's async-local slots). They
// point at contexts owned by the scopes that set them.
thread_local const SecurityContext* t_security = nullptr;
thread_local const MessageContext* t_message = nullptr;

}  // namespace

const SecurityContext* SecurityContext::current() { return t_security; }

const MessageContext* MessageContext::current() { return t_message; }

ScopedSecurityContext::ScopedSecurityContext(std::optional<SecurityContext> context)
    : context_(std::move(context)), previous_(t_security) {
  t_security = context_ ? &*context_ : nullptr;
}

ScopedSecurityContext::~ScopedSecurityContext() { t_security = previous_; }

ScopedMessageContext::ScopedMessageContext(const MessageContext& context)
    : previous_message_(t_message), previous_security_(t_security) {
  t_message = &context;
  t_security = context.security.empty() ? nullptr : &context.security;
}

ScopedMessageContext::ScopedMessageContext(const MessageContext& context, EmptySecurity)
    : previous_message_(t_message), previous_security_(t_security) {
  t_message = &context;
  t_security = nullptr;
}

ScopedMessageContext::~ScopedMessageContext() {
  t_message = previous_message_;
  t_security = previous_security_;
}

}  // namespace whizbang
