#include "whizbang/dispatch/secured_dispatcher.hpp"

#include <algorithm>
#include <cctype>

#include "whizbang/dispatch/dispatcher.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {
namespace {

constexpr std::string_view kSystemPrincipal = "SYSTEM";
constexpr std::string_view kAllTenants = "*";

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); });
}

// An all-zero GUID user id is almost always an unauthenticated caller mapped to a default value.
bool is_empty_guid(std::string_view user_id) {
  const absl::StatusOr<Uuid> id = Uuid::parse(user_id);
  return id.ok() && id->is_nil();
}

SecurityContext explicit_context(const Dispatcher& dispatcher, SecurityContextType type,
                                 std::string effective) {
  SecurityContext context;
  context.type = type;
  context.user_id = effective;
  context.effective_principal = std::move(effective);
  if (const SecurityContext* ambient = SecurityContext::current()) {
    context.actual_principal = ambient->user_id;
    context.tenant_id = ambient->tenant_id;  // kept only by keep_tenant()
  }
  if (is_empty_guid(context.actual_principal)) {
    // Audit trails record the actual principal: an empty one hides who escalated.
    log(dispatcher.options().logger, spdlog::level::warn, log_events::kEmptyGuidActualPrincipal,
        "{} called by user {} (the empty GUID): the actual principal is not identifiable",
        type == SecurityContextType::System ? "as_system()" : "run_as()", context.actual_principal);
  }
  return context;
}

}  // namespace

TenantChoice as_system(Dispatcher& dispatcher) {
  return TenantChoice(dispatcher, explicit_context(dispatcher, SecurityContextType::System,
                                                   std::string(kSystemPrincipal)));
}

TenantChoice run_as(Dispatcher& dispatcher, std::string identity) {
  if (blank(identity)) {
    return TenantChoice(dispatcher,
                        absl::InvalidArgumentError("run_as needs a non-blank identity"));
  }
  return TenantChoice(dispatcher, explicit_context(dispatcher, SecurityContextType::Impersonated,
                                                   std::move(identity)));
}

SecuredDispatch TenantChoice::for_tenant(std::string tenant_id) const {
  if (!context_.ok()) return SecuredDispatch(dispatcher_, context_.status());
  if (blank(tenant_id)) {
    return SecuredDispatch(dispatcher_,
                           absl::InvalidArgumentError("for_tenant needs a non-blank tenant id"));
  }
  SecurityContext context = *context_;
  context.tenant_id = std::move(tenant_id);
  return SecuredDispatch(dispatcher_, std::move(context));
}

SecuredDispatch TenantChoice::for_all_tenants() const {
  if (!context_.ok()) return SecuredDispatch(dispatcher_, context_.status());
  SecurityContext context = *context_;
  context.tenant_id = std::string(kAllTenants);
  return SecuredDispatch(dispatcher_, std::move(context));
}

SecuredDispatch TenantChoice::keep_tenant() const {
  if (!context_.ok()) return SecuredDispatch(dispatcher_, context_.status());
  if (context_->tenant_id.empty()) {
    return SecuredDispatch(dispatcher_, absl::FailedPreconditionError(
                                            "keep_tenant: the caller has no ambient tenant"));
  }
  return SecuredDispatch(dispatcher_, context_);
}

SecuredDispatch SecuredDispatch::with_tenant(std::string tenant_id) const {
  if (!context_.ok()) return *this;
  if (blank(tenant_id)) {
    return SecuredDispatch(dispatcher_,
                           absl::InvalidArgumentError("with_tenant needs a non-blank tenant id"));
  }
  SecurityContext context = *context_;
  context.tenant_id = std::move(tenant_id);
  return SecuredDispatch(dispatcher_, std::move(context));
}

TenantChoice Dispatcher::as_system() { return whizbang::as_system(*this); }
TenantChoice Dispatcher::run_as(std::string identity) {
  return whizbang::run_as(*this, std::move(identity));
}

}  // namespace whizbang
