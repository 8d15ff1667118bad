// The whole security scope of a command a Whizbang .NET service sends, as the C++ receptor sees
// it (MessageContext::current()->security): the fold of the hops' ScopeDeltas, customer,
// organization and principals included, through the normal receive path — the transport, the
// inbox's door and store, the hosted dispatcher (docs/guide/16-security.md).
#include <gtest/gtest.h>
#include <whizbang/host/service_host.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/command_inboxes.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include <algorithm>

#include "interop_messages.hpp"
#include "support/log_capture.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace dotnet_scope {  // named: the unity build compiles the interop files together
namespace {

constexpr char kMessageId[] = "0195a8f0-3333-7000-8000-00000000b001";
constexpr char kOrderId[] = "0195a8f0-0000-7000-8000-00000000b002";

std::string hop(const std::string& service, const std::string& extra) {
  std::string text = R"({"si":{"sn":")";
  text.append(service)
      .append(R"(","ii":"019cd3a0-3997-776c-b616-20bbc224dcd9","hn":"web-1","pi":4242},)")
      .append(R"("ts":"2026-03-09T17:30:01.693249+00:00")")
      .append(extra)
      .append("}");
  return text;
}

// ShipOrder as .NET writes it after two services handled it: the gateway set the whole scope,
// a Causation hop records another message's scope, the order service added a role and a
// principal and removed a claim.
std::string dotnet_ship_order(const std::string& second_service) {
  std::string body = R"({"v":1,"dc":{"m":2,"s":0,"d":false},"id":")";
  body.append(kMessageId)
      .append(R"(","p":{"OrderId":")")
      .append(kOrderId)
      .append(R"(","ShipBy":"2026-03-10T09:00:00.0000000+00:00"},"h":[)")
      .append(hop("Shop.Gateway",
                  R"(,"sc":{"v":{"Sc":{"t":"tenant-7","u":"user-3","c":"cust-9","o":"org-4",)"
                  R"("ap":["group:sales"]},"Ac":"user-3","Ef":"user-3"},)"
                  R"("c":{"Ro":{"s":["clerk"]},"Pe":{"s":["orders:ship"]},)"
                  R"("Pr":{"s":["user:user-3","group:sales"]},)"
                  R"("Cl":{"a":{"dept":"sales","site":"lyon"}}}})"))
      .append(",")
      .append(hop("Shop.Billing", R"(,"ty":1,"sc":{"v":{"Sc":{"t":"*","u":"SYSTEM"},"Ty":1}})"))
      .append(",")
      .append(hop(second_service, std::string(R"(,"md":{"AggregateId":")")
                                      .append(kOrderId)
                                      .append(R"("},"sc":{"c":{"Ro":{"a":["shipper"]},)"
                                              R"("Pr":{"a":["group:shipping"]},)"
                                              R"("Cl":{"r":["site"]}}})")))
      .append("]}");
  return body;
}

class DotNetScopeTests : public ::testing::Test {
 protected:
  void start(std::optional<std::vector<std::string>> trusted) {
    services_.add<ShipLog>(log_);
    whizbang::HostOptions options;
    options.service_name = "fulfilment";
    options.store = &store_;
    options.transport = &transport_;
    options.scope_trusted_services = std::move(trusted);
    options.logger = logs_.logger;
    auto host = whizbang::ServiceHost::create(
        whizbang::generated::whizbang_interop_tests::registry(), services_, std::move(options));
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    ASSERT_TRUE(host_->subscribe().ok());
  }

  // Publishes the body where .NET sends a Shop.Contracts command and runs the host until the
  // receptor handled it.
  void deliver(const std::string& body) {
    whizbang::TransportMessage message;
    message.message_id =
        whizbang::MessageId::from_trusted(*whizbang::Uuid::parse(std::string(kMessageId)));
    message.message_type = "Shop.Contracts.ShipOrder, Shop.Contracts";
    message.envelope_json = body;
    ASSERT_TRUE(transport_
                    .publish(whizbang::command_destination("Shop.Contracts.ShipOrder", {}, "inbox"),
                             {&message, 1})
                    .ok());
    for (int round = 0; round < 20 && handled() == 0; ++round) {
      ASSERT_TRUE(host_->run_once().ok());
    }
    ASSERT_EQ(handled(), 1u);
  }

  std::size_t handled() {
    std::lock_guard lock(log_.mutex);
    return log_.handled.size();
  }

  whizbang::SecurityContext seen() {
    std::lock_guard lock(log_.mutex);
    return log_.security.at(0);
  }

  whizbang::MemoryWorkStore store_;
  whizbang::InProcessTransport transport_;
  whizbang_test::LogCapture logs_;
  ShipLog log_;
  whizbang::ServiceRegistry services_;
  std::unique_ptr<whizbang::ServiceHost> host_;
};

std::vector<std::string> sorted(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values;
}

TEST_F(DotNetScopeTests, ReceptorSeesTheFoldedScope_CustomerOrganizationAndPrincipals) {
  start(std::nullopt);
  deliver(dotnet_ship_order("Shop.OrderService"));
  const whizbang::SecurityContext security = seen();
  EXPECT_EQ(security.tenant_id, "tenant-7");
  EXPECT_EQ(security.user_id, "user-3");
  EXPECT_EQ(security.customer_id, "cust-9");
  EXPECT_EQ(security.organization_id, "org-4");
  EXPECT_EQ(security.allowed_principals, std::vector<std::string>{"group:sales"});
  EXPECT_EQ(security.type, whizbang::SecurityContextType::User) << "the Causation hop leaked";
  EXPECT_EQ(security.actual_principal, "user-3");
  EXPECT_EQ(sorted(security.roles), (std::vector<std::string>{"clerk", "shipper"}));
  EXPECT_TRUE(security.has_role("shipper"));
  EXPECT_TRUE(security.has_permission("orders:ship"));
  EXPECT_EQ(sorted(security.principals),
            (std::vector<std::string>{"group:sales", "group:shipping", "user:user-3"}));
  EXPECT_EQ(security.claims, (std::map<std::string, std::string>{{"dept", "sales"}}));
}

// Every hop that changed the scope set part of it: one from a service this receiver does not
// trust to set a scope drops the whole scope.
TEST_F(DotNetScopeTests, AHopFromAnUntrustedServiceChangedTheScope_TheScopeIsDropped) {
  start(std::vector<std::string>{"Shop.Gateway", "Shop.OrderService"});
  deliver(dotnet_ship_order("Shop.Unknown"));
  const whizbang::SecurityContext security = seen();
  EXPECT_TRUE(security.empty());
  EXPECT_FALSE(security.has_role("clerk"));
  EXPECT_EQ(logs_.count("[EventId 161 UntrustedScopeDropped]"), 1);
}

TEST_F(DotNetScopeTests, EveryHopThatChangedTheScopeIsTrusted_TheScopeIsKept) {
  start(std::vector<std::string>{"Shop.Gateway", "Shop.OrderService"});
  deliver(dotnet_ship_order("Shop.OrderService"));
  EXPECT_EQ(seen().customer_id, "cust-9");
  EXPECT_TRUE(seen().has_role("shipper"));
  EXPECT_EQ(logs_.count("[EventId 161 UntrustedScopeDropped]"), 0);
}

}  // namespace
}  // namespace dotnet_scope
}  // namespace interop_test
