// Explicit security for one dispatch: act as the system, or as another user, for a tenant.
//
//   dispatcher.as_system().for_tenant("tenant-456").send(cmd);
//   dispatcher.run_as("user-123").for_all_tenants().publish(evt);      // tenant "*"
//   dispatcher.run_as("auditor").keep_tenant().local_invoke(query);    // the caller's tenant
//
// A tenant choice is mandatory: as_system()/run_as() return a TenantChoice, which has no
// dispatch methods. The context holds for the dispatch and everything it cascades, and the
// previous context is restored afterwards. Invalid choices (blank tenant or identity, keep_tenant()
// without an ambient tenant) surface as the dispatch's error status.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "whizbang/security/security_context.hpp"

namespace whizbang {

class Dispatcher;

// A dispatcher bound to an explicit security context.
class SecuredDispatch {
 public:
  SecuredDispatch(Dispatcher& dispatcher, absl::StatusOr<SecurityContext> context)
      : dispatcher_(dispatcher), context_(std::move(context)) {}

  // Replaces the tenant (blank is an error).
  SecuredDispatch with_tenant(std::string tenant_id) const;
  const absl::StatusOr<SecurityContext>& context() const { return context_; }

  template <class Result, class Message>
  absl::StatusOr<Result> local_invoke(Message&& message) {
    return run(
        [&](auto& d) { return d.template local_invoke<Result>(std::forward<Message>(message)); });
  }
  template <class Message>
  absl::Status local_invoke(Message&& message) {
    return run([&](auto& d) { return d.local_invoke(std::forward<Message>(message)); });
  }
  template <class Message>
  auto send(Message&& message) {
    return run([&](auto& d) { return d.send(std::forward<Message>(message)); });
  }
  template <class Message>
  auto publish(Message&& message) {
    return run([&](auto& d) { return d.publish(std::forward<Message>(message)); });
  }

 private:
  template <class Call>
  auto run(Call&& call) {
    using Returned = decltype(call(dispatcher_));
    if (!context_.ok()) return Returned(context_.status());
    ScopedSecurityContext scope(*context_);
    return call(dispatcher_);
  }

  Dispatcher& dispatcher_;
  absl::StatusOr<SecurityContext> context_;
};

// The mandatory tenant step after as_system()/run_as().
class TenantChoice {
 public:
  TenantChoice(Dispatcher& dispatcher, absl::StatusOr<SecurityContext> context)
      : dispatcher_(dispatcher), context_(std::move(context)) {}

  // A specific tenant; blank is an error.
  SecuredDispatch for_tenant(std::string tenant_id) const;
  // Every tenant: tenant id "*".
  SecuredDispatch for_all_tenants() const;
  // The caller's ambient tenant; none is an error.
  SecuredDispatch keep_tenant() const;

 private:
  Dispatcher& dispatcher_;
  absl::StatusOr<SecurityContext> context_;
};

// Starts an explicit-context dispatch (also available as Dispatcher::as_system()/run_as()).
TenantChoice as_system(Dispatcher& dispatcher);
TenantChoice run_as(Dispatcher& dispatcher, std::string identity);

}  // namespace whizbang
