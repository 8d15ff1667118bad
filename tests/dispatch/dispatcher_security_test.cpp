// Security context in cascade (whizbang/security/security_context.hpp): what a cascaded message
// carries from the handling that returned it, explicit as_system()/run_as(), and a null envelope.
#include <thread>

#include "fixture.hpp"

namespace dispatch_test {

void EscalateToSystemReceptor::handle(const EscalateToSystem& c) {
  journal_.add("EscalateToSystem", c.tag);
  AuditLogged audit;
  audit.action = "escalated:" + c.tag;
  const auto receipt = slot_.dispatcher->as_system().for_tenant("ops").publish(audit);
  journal_.add("EscalateToSystem.publish", receipt.ok() ? "ok" : receipt.status().ToString());
}

namespace {

using DispatcherCascadeSecurityTests = DispatcherTest;
using whizbang::SecurityContext;

TEST_F(DispatcherCascadeSecurityTests, NoContextAtAll_HandlersRunWithoutUserOrTenantAndNoError) {
  ASSERT_TRUE(dispatcher_->send(who("plain")).ok());
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 2u);  // WhoAmI, then the cascaded AuditLogged
  for (const auto& entry : entries) {
    EXPECT_TRUE(entry.user_id.empty());
    EXPECT_TRUE(entry.tenant_id.empty());
  }
  EXPECT_FALSE(store_.rows_of("dispatch_test::AuditLogged")[0].scope.has_value());
}

TEST_F(DispatcherCascadeSecurityTests, RunAsForAllTenants_HandlerAndCascadedHandlerSeeTheUser) {
  ASSERT_TRUE(dispatcher_->run_as("user-123").for_all_tenants().send(who("r")).ok());
  for (const auto& entry : journal_.entries()) {
    EXPECT_EQ(entry.user_id, "user-123") << entry.receptor;
    EXPECT_EQ(entry.tenant_id, "*") << entry.receptor;
  }
  EXPECT_EQ(SecurityContext::current(), nullptr);  // restored afterwards
}

TEST_F(DispatcherCascadeSecurityTests, AsSystemForTenant_HandlerSeesTheTenantAndTheSystemUser) {
  ASSERT_TRUE(dispatcher_->as_system().for_tenant("tenant-456").send(who("s")).ok());
  const auto entries = journal_.entries();
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].tenant_id, "tenant-456");
  EXPECT_EQ(entries[0].user_id, "SYSTEM");
}

TEST_F(DispatcherCascadeSecurityTests, RunAsForTenant_HandlerSeesBoth_AndTheOutboxHopCarriesThem) {
  ASSERT_TRUE(dispatcher_->run_as("user-999").for_tenant("tenant-789").send(who("both")).ok());
  for (const auto& entry : journal_.entries()) {
    EXPECT_EQ(entry.user_id, "user-999");
    EXPECT_EQ(entry.tenant_id, "tenant-789");
  }
  const auto rows = store_.rows_of("dispatch_test::AuditLogged");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].scope.has_value());
  EXPECT_EQ(rows[0].scope->user_id, "user-999");
  EXPECT_EQ(rows[0].scope->tenant_id, "tenant-789");
}

TEST_F(DispatcherCascadeSecurityTests, CascadeFromASourceEnvelope_TakesTheContextFromTheEnvelope) {
  whizbang::Envelope source;
  source.message_id = whizbang::MessageId::mint();
  source.payload = whizbang::AnyMessage::make(who("env"));
  whizbang::MessageHop hop;
  hop.scope = whizbang::SecurityScope{"user@test.com", "tenant-123"};
  source.hops.push_back(hop);
  OrderCreated created;
  created.order_id = "from-envelope";
  ASSERT_TRUE(dispatcher_
                  ->cascade_message(whizbang::AnyMessage::make(created), &source,
                                    whizbang::DispatchModes::Local)
                  .ok());
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].user_id, "user@test.com");
  EXPECT_EQ(entries[0].tenant_id, "tenant-123");
  // Transitive: the stored row's hop carries the same scope.
  ASSERT_TRUE(store_.rows[0].scope.has_value());
  EXPECT_EQ(store_.rows[0].scope->tenant_id, "tenant-123");
}

TEST_F(DispatcherCascadeSecurityTests, NullEnvelopeCascade_RunsWithoutContextAndWithoutError) {
  OrderCreated created;
  created.order_id = "no-envelope";
  ASSERT_TRUE(dispatcher_
                  ->cascade_message(whizbang::AnyMessage::make(created), nullptr,
                                    whizbang::DispatchModes::LocalNoPersist)
                  .ok());
  ASSERT_EQ(journal_.entries().size(), 1u);
  EXPECT_TRUE(journal_.entries()[0].user_id.empty());
}

TEST_F(DispatcherCascadeSecurityTests, TenantChoices_RejectBadInput) {
  EXPECT_EQ(dispatcher_->as_system().keep_tenant().send(who("k")).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(dispatcher_->as_system().for_tenant("  ").send(who("b")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(dispatcher_->run_as("").for_all_tenants().send(who("e")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      dispatcher_->run_as("u").for_tenant("t").with_tenant(" ").send(who("w")).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(journal_.entries().empty());
}

TEST_F(DispatcherCascadeSecurityTests,
       KeepTenant_KeepsTheCallersTenantAndRecordsTheActualPrincipal) {
  whizbang::SecurityContext caller;
  caller.user_id = "alice";
  caller.tenant_id = "acme";
  whizbang::ScopedSecurityContext scope(caller);
  auto secured = dispatcher_->as_system().keep_tenant();
  ASSERT_TRUE(secured.context().ok());
  EXPECT_EQ(secured.context()->tenant_id, "acme");
  EXPECT_EQ(secured.context()->actual_principal, "alice");
  EXPECT_EQ(secured.context()->effective_principal, "SYSTEM");
  ASSERT_TRUE(secured.send(who("kept")).ok());
  EXPECT_EQ(journal_.entries()[0].tenant_id, "acme");
  EXPECT_EQ(SecurityContext::current()->user_id, "alice");  // restored
}

TEST_F(DispatcherCascadeSecurityTests,
       AsSystemFromInsideAHandler_OverridesTheHandlersUser_AndIsRestoredAfterwards) {
  EscalateToSystem command;
  command.tag = "e1";
  ASSERT_TRUE(dispatcher_->run_as("alice").for_tenant("acme").send(command).ok());
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 3u);  // the handler, the audit receptor it published to, its receipt
  EXPECT_EQ(entries[0].receptor, "EscalateToSystem");
  EXPECT_EQ(entries[0].user_id, "alice");
  EXPECT_EQ(entries[0].tenant_id, "acme");
  EXPECT_EQ(entries[1].receptor, "AuditLogged");
  EXPECT_EQ(entries[1].user_id, "SYSTEM");  // not the handler's user
  EXPECT_EQ(entries[1].tenant_id, "ops");
  EXPECT_EQ(entries[2].receptor, "EscalateToSystem.publish");
  EXPECT_EQ(entries[2].key, "ok");
  EXPECT_EQ(entries[2].user_id, "alice");  // the handler's own context is back after the publish
  EXPECT_EQ(entries[2].tenant_id, "acme");

  // The stored audit row's hop carries the system scope too.
  const auto rows = store_.rows_of("dispatch_test::AuditLogged");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].scope.has_value());
  EXPECT_EQ(rows[0].scope->user_id, "SYSTEM");
  EXPECT_EQ(rows[0].scope->tenant_id, "ops");
  EXPECT_EQ(SecurityContext::current(), nullptr);
}

TEST_F(DispatcherCascadeSecurityTests, AsSystem_EmptyGuidCurrentUser_WarnsButSucceeds) {
  whizbang::SecurityContext caller;
  caller.user_id = "00000000-0000-0000-0000-000000000000";
  caller.tenant_id = "acme";
  whizbang::ScopedSecurityContext scope(caller);
  ASSERT_TRUE(dispatcher_->as_system().keep_tenant().send(who("empty")).ok());
  EXPECT_EQ(journal_.entries()[0].user_id, "SYSTEM");
  const auto warnings = logs_containing("EventId 130 EmptyGuidActualPrincipal");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("as_system()"), std::string::npos);

  // A real user id warns about nothing.
  caller.user_id = "alice";
  whizbang::ScopedSecurityContext alice(caller);
  ASSERT_TRUE(dispatcher_->run_as("bob").keep_tenant().send(who("alice")).ok());
  EXPECT_EQ(logs_containing("EmptyGuidActualPrincipal").size(), 1u);
}

TEST_F(DispatcherCascadeSecurityTests, ConcurrentDispatches_NeverSeeEachOthersContext) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string user = "user-" + std::to_string(t);
      for (int i = 0; i < kPerThread; ++i) {
        auto receipt =
            dispatcher_->run_as(user).for_tenant("tenant-" + std::to_string(t)).send(who(user));
        ASSERT_TRUE(receipt.ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), static_cast<std::size_t>(kThreads * kPerThread * 2));
  for (const auto& entry : entries) {
    if (entry.receptor != "WhoAmI") continue;
    EXPECT_EQ(entry.user_id, entry.key);
    EXPECT_EQ(entry.tenant_id, "tenant-" + entry.key.substr(5));
  }
}

}  // namespace
}  // namespace dispatch_test
