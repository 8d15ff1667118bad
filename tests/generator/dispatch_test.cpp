// Compile-and-run: run/dispatch.hpp goes through whizbang_generate(), the generated code is
// compiled with the project's -Werror warnings, and messages are dispatched through the tables
// with a tiny test visitor (not the real dispatcher).
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "dispatch.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace run {

PlaceOrderResult PlaceOrderReceptor::handle(const PlaceOrder& command) {
  journal_.runs.push_back("run::PlaceOrderReceptor");
  return {Receipt{command.id},
          OrderPlaced{{}, command.id},
          whizbang::Route::Outbox(StockReserved{{}, command.id, command.quantity}),
          {AuditLogged{{}, "a1"}, AuditLogged{{}, "a2"}},
          whizbang::Route::None()};
}

void FirstOnPlaced::handle(const OrderPlaced& event) {
  journal_.runs.push_back("run::FirstOnPlaced:" + event.id);
}

std::tuple<std::optional<Shipped>, AuditLogged> SecondOnPlaced::handle(const OrderPlaced& event) {
  journal_->runs.push_back("run::SecondOnPlaced:" + event.id);
  return {Shipped{{}, event.id + "-s2"}, AuditLogged{{}, "second"}};
}

whizbang::Routed<std::vector<whizbang::Routed<Shipped>>> ThirdOnPlaced::handle(
    const OrderPlaced& event) {
  journal_.runs.push_back("run::ThirdOnPlaced:" + event.id);
  return whizbang::Route::LocalNoPersist(std::vector<whizbang::Routed<Shipped>>{
      whizbang::Route::Both(Shipped{{}, event.id + "-t1"}), whizbang::Routed<Shipped>{},
      whizbang::Routed<Shipped>{Shipped{{}, event.id + "-t3"}, whizbang::DispatchModes::Outbox}});
}

}  // namespace run

namespace {

const whizbang::Registry& registry() {
  return whizbang::generated::generator_dispatch_tests::registry();
}

struct Cascaded {
  std::string wire_name;
  whizbang::DispatchModes mode;
  std::string json;
};

// Records everything and queues locally-dispatched cascades, like a minimal dispatcher.
class RecordingVisitor : public whizbang::DispatchVisitor {
 public:
  bool before_invoke(const whizbang::ReceptorInfo& receptor) override {
    invoked.push_back(std::string(receptor.id));
    return skip.empty() || receptor.id != skip;
  }
  void emit(whizbang::AnyMessage message, whizbang::DispatchModes mode) override {
    cascaded.push_back({std::string(message.info()->wire_name), mode, message.to_json()});
    if (whizbang::has_flag(mode, whizbang::DispatchModes::LocalDispatch)) {
      queue.push_back(std::move(message));
    }
  }
  void ignored(std::string_view type_name) override { ignored_types.emplace_back(type_name); }

  std::vector<std::string> invoked;
  std::vector<Cascaded> cascaded;
  std::vector<std::string> ignored_types;
  std::deque<whizbang::AnyMessage> queue;
  std::string skip;
};

class DispatchTests : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.add<run::Journal>(journal_);
    auto receptors = registry().create_receptors(services_);
    ASSERT_TRUE(receptors.ok()) << receptors.status();
    receptors_ = *std::move(receptors);
  }

  // Dispatches `first`, then every locally routed cascade, breadth first.
  void drain(whizbang::AnyMessage first) {
    visitor_.queue.push_back(std::move(first));
    while (!visitor_.queue.empty()) {
      whizbang::AnyMessage next = std::move(visitor_.queue.front());
      visitor_.queue.pop_front();
      ASSERT_TRUE(registry().dispatch(next, receptors_, visitor_).ok());
    }
  }

  run::Journal journal_;
  whizbang::ServiceRegistry services_;
  whizbang::ReceptorSet receptors_;
  RecordingVisitor visitor_;
};

using whizbang::DispatchModes;

TEST_F(DispatchTests, RunsReceptorsInOrderAndCascadesWithResolvedModes) {
  drain(whizbang::AnyMessage::make(run::PlaceOrder{{}, "o-1", 3}));

  EXPECT_EQ(journal_.runs,
            (std::vector<std::string>{"run::PlaceOrderReceptor", "run::FirstOnPlaced:o-1",
                                      "run::SecondOnPlaced:o-1", "run::ThirdOnPlaced:o-1",
                                      "run::OnShipped:o-1-t1"}));

  const std::vector<std::pair<std::string, DispatchModes>> expected = {
      // PlaceOrderReceptor: bare message -> Local; Routed Outbox -> Outbox; audit attribute
      // EventStoreOnly beats everything; RoutedNone -> nothing.
      {"run::OrderPlaced", DispatchModes::Local},
      {"run::StockReserved", DispatchModes::Outbox},
      {"run::AuditLogged", DispatchModes::EventStoreOnly},
      {"run::AuditLogged", DispatchModes::EventStoreOnly},
      // SecondOnPlaced: receptor default Outbox; message attribute still wins for the audit.
      {"run.Shipped", DispatchModes::Outbox},
      {"run::AuditLogged", DispatchModes::EventStoreOnly},
      // ThirdOnPlaced: individual Both beats collection LocalNoPersist; Routed{} (None) skipped;
      // individual Outbox.
      {"run.Shipped", DispatchModes::Both},
      {"run.Shipped", DispatchModes::Outbox},
  };
  ASSERT_EQ(visitor_.cascaded.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(visitor_.cascaded[i].wire_name, expected[i].first) << i;
    EXPECT_EQ(visitor_.cascaded[i].mode, expected[i].second) << i;
  }
  EXPECT_EQ(visitor_.cascaded[1].json, R"({"id":"o-1","quantity":3})");
  EXPECT_EQ(visitor_.ignored_types, std::vector<std::string>{"run::Receipt"});
}

TEST_F(DispatchTests, VisitorCanSkipAReceptor) {
  visitor_.skip = "run::SecondOnPlaced";
  drain(whizbang::AnyMessage::make(run::OrderPlaced{{}, "o-2"}));
  EXPECT_EQ(journal_.runs,
            (std::vector<std::string>{"run::FirstOnPlaced:o-2", "run::ThirdOnPlaced:o-2",
                                      "run::OnShipped:o-2-t1"}));
}

TEST_F(DispatchTests, InvokeThunkReturnsTypedResponse) {
  const whizbang::ReceptorInfo* receptor = registry().find_receptor("run::PlaceOrderReceptor");
  ASSERT_NE(receptor, nullptr);
  EXPECT_EQ(receptor->response_key, whizbang::internal::type_key<run::PlaceOrderResult>());
  std::shared_ptr<void> response;
  RecordingVisitor sink;
  ASSERT_TRUE(registry()
                  .invoke(*receptor, receptors_,
                          whizbang::AnyMessage::make(run::PlaceOrder{{}, "o-3", 1}), sink,
                          &response)
                  .ok());
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(std::get<0>(*std::static_pointer_cast<run::PlaceOrderResult>(response)).id, "o-3");
  EXPECT_EQ(sink.cascaded.size(), 4u);

  // RPC extraction: the Receipt inside the tuple, without running the receptor again.
  const void* receipt =
      receptor->find_response(response.get(), whizbang::internal::type_key<run::Receipt>());
  ASSERT_NE(receipt, nullptr);
  EXPECT_EQ(static_cast<const run::Receipt*>(receipt)->id, "o-3");
  const void* stock =
      receptor->find_response(response.get(), whizbang::internal::type_key<run::StockReserved>());
  ASSERT_NE(stock, nullptr);
  EXPECT_EQ(static_cast<const run::StockReserved*>(stock)->quantity, 1);
  EXPECT_EQ(receptor->find_response(response.get(), whizbang::internal::type_key<run::Shipped>()),
            nullptr);

  const auto wrong = registry().invoke(*receptor, receptors_,
                                       whizbang::AnyMessage::make(run::Shipped{{}, "x"}), sink);
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
}

TEST(DispatchRegistryTests, MissingDependencyIsAStartupError) {
  whizbang::ServiceRegistry empty;
  const auto receptors = registry().create_receptors(empty);
  ASSERT_FALSE(receptors.ok());
  EXPECT_EQ(receptors.status().code(), absl::StatusCode::kFailedPrecondition);
  // The first receptor in table order (run.Shipped sorts first) that lacks the Journal.
  EXPECT_NE(receptors.status().message().find("receptor run::OnShipped"), std::string::npos)
      << receptors.status();
  EXPECT_NE(receptors.status().message().find("run::Journal"), std::string::npos);
}

TEST(DispatchRegistryTests, MessagesSortedByWireName_ReceptorsInDeclarationOrder_LookupsByWireName) {
  const whizbang::Registry& r = registry();
  EXPECT_EQ(r.name(), "generator_dispatch_tests");
  ASSERT_EQ(r.messages().size(), 5u);
  for (std::size_t i = 1; i < r.messages().size(); ++i) {
    EXPECT_LT(r.messages()[i - 1].info->wire_name, r.messages()[i].info->wire_name);
  }
  const whizbang::MessageTypeInfo* shipped = r.find_message("run.Shipped");
  ASSERT_NE(shipped, nullptr);
  EXPECT_EQ(shipped, &whizbang::MessageTraits<run::Shipped>::info());
  EXPECT_EQ(shipped->cpp_name, "run::Shipped");
  EXPECT_EQ(r.find_message("run::Shipped"), nullptr);
  EXPECT_EQ(whizbang::MessageTraits<run::PlaceOrder>::info().kind, whizbang::MessageKind::Command);

  const auto placed = r.receptors_for(whizbang::MessageTraits<run::OrderPlaced>::info());
  ASSERT_EQ(placed.size(), 3u);
  EXPECT_EQ(placed[0].id, "run::FirstOnPlaced");
  EXPECT_EQ(placed[1].id, "run::SecondOnPlaced");
  EXPECT_EQ(placed[2].id, "run::ThirdOnPlaced");
  EXPECT_EQ(r.receptor_default_routing(whizbang::MessageTraits<run::OrderPlaced>::info()),
            DispatchModes::Outbox);
  EXPECT_EQ(placed[0].stages.size(), 1u);
  EXPECT_EQ(placed[0].stages[0], whizbang::Stage::PostInboxInline);

  const whizbang::AnyMessage any = whizbang::AnyMessage::make(run::Shipped{{}, "s"});
  EXPECT_NE(any.get_if<run::Shipped>(), nullptr);
  EXPECT_EQ(any.get_if<run::OrderPlaced>(), nullptr);
}

TEST(DispatchCodecTests, RoundTripsAndRejectsBadJson) {
  const auto& info = whizbang::MessageTraits<run::StockReserved>::info();
  auto decoded = info.from_json(R"({"id":"o-9","quantity":7,"unknown":true})");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_NE(decoded->get_if<run::StockReserved>(), nullptr);
  EXPECT_EQ(decoded->get_if<run::StockReserved>()->quantity, 7);
  EXPECT_EQ(decoded->to_json(), R"({"id":"o-9","quantity":7})");

  for (const char* bad : {"", "{", "[]", R"({"id":5})", R"({"quantity":"x"})",
                          R"({"quantity":99999999999})", "nul"}) {
    const auto result = info.from_json(bad);
    EXPECT_FALSE(result.ok()) << bad;
  }
  const auto path = info.from_json(R"({"quantity":1.5})");
  ASSERT_FALSE(path.ok());
  EXPECT_NE(path.status().message().find("$.quantity"), std::string::npos);
}

}  // namespace
