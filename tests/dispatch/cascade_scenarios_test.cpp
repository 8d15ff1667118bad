// CascadeScenarioTests, part 1: extraction and routing, the reference's cascade scenarios 1-20,
// adapted to C++ (a bare cascaded message routes Local = local receptors + event store, not Both;
// docs/guide/03-routing.md). Extraction is generated per result type, so each scenario is a receptor
// (receptors.hpp) whose result has the scenario's shape; what it extracted is observed through the
// journal (local receptors), the store rows (event store / outbox) and the log lines.
// C++ translation: no null (an empty std::optional stands in), no object[] (a std::tuple or a
// std::vector<Routed<E>>), "callback(type)" is the Debug line EventId 101 CascadeNonMessageIgnored.
// Part 2 (scenarios 21-45) is cascade_scenarios_dispatch_test.cpp.
//
// clang-format off
// Scenarios already covered by an existing test, which a scenario-named test here would only
// repeat:
//   10 bare event -> Local    DispatcherRoutedCascadeTests.CascadeFromResult_BareEvent_DefaultsToLocalWithEventStore
//   18 DispatchModes values   DispatchModeTests.ValuesMatchThePage, .NamedModesAreTheirFlagCompositions
//   20 EventStoreOnly flags   RouteTests.EventStoreOnly_HasFlag_EventStore, DispatchModeTests.HasFlagTruthTable
//   19 (value level)          RouteTests.LocalNoPersistEach_WithCollection_WrapsEveryItemInOrder,
//                             RouteTests.WithArray_WrapsTheWholeArrayWithTheMode (Scenario19 below
//                             adds the dispatch of per-item wrappers)
// clang-format on
#include "cascade_scenarios.hpp"

namespace dispatch_test {
namespace {

using whizbang::OutboxMessage;

constexpr std::string_view kNonMessage = "[EventId 101 CascadeNonMessageIgnored]";
constexpr std::string_view kNothingExtracted = "[EventId 102 CascadeNothingExtracted]";

// The ordinal a derived emission id carries (bits 80..91): its place within the handling.
int ordinal(const OutboxMessage& row) { return row.message_id.uuid().bytes()[11] >> 4; }

// Whether the row's envelope JSON holds the string value `text` (quoted, so no id matches).
bool json_has(const OutboxMessage& row, std::string_view text) {
  return row.envelope_json.find("\"" + std::string(text) + "\"") != std::string::npos;
}

TEST_F(CascadeScenarioTests, Scenario01_EmptyOptional_ExtractsNothingAndReportsNoNonMessage) {
  ASSERT_TRUE(dispatcher_->local_invoke(MaybeEmit{}).ok());  // C++ "null": an empty optional
  EXPECT_TRUE(journal_.entries().empty());
  EXPECT_TRUE(store_.rows.empty());
  EXPECT_TRUE(logs_containing(kNonMessage).empty());  // no callback
  EXPECT_EQ(logs_containing(kNothingExtracted).size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario02_SingleEvent_ExtractsExactlyThatEvent) {
  auto result = dispatcher_->local_invoke<OrderShipped>(SingleEvent{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->order_id, "single");
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderShipped:single"}));
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(store_.rows[0].message_type, "dispatch_test::OrderShipped");
  EXPECT_TRUE(logs_containing(kNonMessage).empty());
}

TEST_F(CascadeScenarioTests, Scenario03_IntOrString_NothingExtractedAndOneNonMessageLineEach) {
  auto number = dispatcher_->local_invoke<int>(AnswerInt{});
  ASSERT_TRUE(number.ok()) << number.status();
  EXPECT_EQ(*number, 42);
  const auto int_lines = logs_containing(kNonMessage);
  ASSERT_EQ(int_lines.size(), 1u);
  EXPECT_NE(int_lines[0].find("int in a receptor result"), std::string::npos) << int_lines[0];
  EXPECT_NE(int_lines[0].find("[debug]"), std::string::npos);

  auto text = dispatcher_->local_invoke<std::string>(AnswerText{});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "hello");
  const auto lines = logs_containing(kNonMessage);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("string"), std::string::npos) << lines[1];
  EXPECT_TRUE(journal_.entries().empty());
  EXPECT_TRUE(store_.rows.empty());
}

TEST_F(CascadeScenarioTests, Scenario04_EventIntEvent_TwoEventsInOrder) {
  ASSERT_TRUE(dispatcher_->local_invoke(EventIntEvent{}).ok());
  EXPECT_EQ(journal_.order(),
            (std::vector<std::string>{"OrderCreated:first", "OrderCreated:second"}));
  const auto rows = store_.rows_of("dispatch_test::OrderCreated");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(json_has(rows[0], "first"));
  EXPECT_TRUE(json_has(rows[1], "second"));
  EXPECT_EQ(logs_containing(kNonMessage).size(), 1u);  // the 42
}

TEST_F(CascadeScenarioTests, Scenario05_NestedTuples_YieldInnerEventsInOrder) {
  // (Result, (E1, E2)); the journal order is DispatcherCascadeTests.LocalInvoke_NestedTuple_*.
  ComplexCommand command;
  command.id = "nested";
  ASSERT_TRUE(dispatcher_->local_invoke(command).ok());
  ASSERT_EQ(store_.rows.size(), 2u);
  EXPECT_EQ(store_.rows[0].message_type, "dispatch_test::OrderCreated");
  EXPECT_EQ(store_.rows[1].message_type, "dispatch_test::OrderShipped");
  EXPECT_EQ(ordinal(store_.rows[0]), 0);  // emission order within the handling
  EXPECT_EQ(ordinal(store_.rows[1]), 1);
  for (const auto& row : store_.rows) EXPECT_FALSE(row.destination.has_value());  // Local
}

TEST_F(CascadeScenarioTests, Scenario06_VectorOfVectors_FlattensA1A2B1) {
  // List<IEvent[]> is std::vector<std::vector<E>>; journal order: NestedVectors_FlattenInOrder.
  ASSERT_TRUE(dispatcher_->local_invoke(Batches{}).ok());
  const auto rows = store_.rows_of("dispatch_test::OrderCreated");
  ASSERT_EQ(rows.size(), 3u);
  const char* keys[] = {"A1", "A2", "B1"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(json_has(rows[static_cast<std::size_t>(i)], keys[i])) << i;
    EXPECT_EQ(ordinal(rows[static_cast<std::size_t>(i)]), i);
  }
}

TEST_F(CascadeScenarioTests, Scenario07_VectorWithEmptyOptionals_SkipsThemAndKeepsOrder) {
  ASSERT_TRUE(dispatcher_->local_invoke(SparseBatch{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:E1", "OrderCreated:E2"}));
  EXPECT_EQ(store_.rows.size(), 2u);
  EXPECT_TRUE(logs_containing(kNonMessage).empty());
}

TEST_F(CascadeScenarioTests, Scenario08_EventCommandEvent_AllThreeDispatchedInOrder) {
  ASSERT_TRUE(dispatcher_->local_invoke(EventCommandEvent{}).ok());
  EXPECT_EQ(journal_.order(),
            (std::vector<std::string>{"OrderCreated:ece", "SendInvoice:ece", "OrderShipped:ece"}));
  // Local persists events only: the command has no event-store row.
  ASSERT_EQ(store_.rows.size(), 2u);
  EXPECT_EQ(store_.rows[0].message_type, "dispatch_test::OrderCreated");
  EXPECT_EQ(store_.rows[1].message_type, "dispatch_test::OrderShipped");
  EXPECT_TRUE(store_.rows_of("dispatch_test::SendInvoice").empty());
}

TEST_F(CascadeScenarioTests, Scenario09_EventAndInt_OneEventAndExactlyOneNonMessageLine) {
  // C++ has one extractor; it behaves like the reference's routing variant (callback once).
  ASSERT_TRUE(dispatcher_->local_invoke(EventAndInt{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderShipped:with-int"}));
  EXPECT_EQ(logs_containing(kNonMessage).size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario11_RouteLocalAroundAVector_EveryItemRoutesLocal) {
  ASSERT_TRUE(dispatcher_->local_invoke(LocalBatch{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:L1", "OrderCreated:L2"}));
  ASSERT_EQ(store_.rows.size(), 2u);
  for (const auto& row : store_.rows) {
    EXPECT_FALSE(row.destination.has_value());  // event store, no transport
    EXPECT_TRUE(row.is_event);
  }
}

TEST_F(CascadeScenarioTests, Scenario12_LocalAroundTupleWithOutboxItem_IndividualBeatsCollection) {
  // Route.Local(object[]{A, Route.Outbox(B)}) as Route::Local(std::tuple{A, Route::Outbox(B)}).
  ASSERT_TRUE(dispatcher_->local_invoke(LocalAroundOutbox{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:A"}));
  ASSERT_EQ(store_.rows.size(), 2u);
  EXPECT_EQ(store_.rows[0].message_type, "dispatch_test::OrderCreated");  // A: Local
  EXPECT_FALSE(store_.rows[0].destination.has_value());
  EXPECT_EQ(store_.rows[1].message_type, "dispatch_test::ExternalNoticed");  // B: Outbox
  EXPECT_EQ(store_.rows[1].destination, "externalnoticed");
}

TEST_F(CascadeScenarioTests, Scenario13_RouteOutboxWithReceptorDefaultLocal_RoutesLocal) {
  ASSERT_TRUE(dispatcher_->local_invoke(LocalDefault{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:receptor-local"}));
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_FALSE(store_.rows[0].destination.has_value());
}

TEST_F(CascadeScenarioTests, Scenario14_TypeAttributeBeatsReceptorDefaultBothAndOutboxWrapper) {
  // The reference uses a [DefaultRouting(Local)] type; CacheWarmed declares LocalNoPersist, which
  // tells every candidate apart: Both or Outbox would write an outbox row, Local a store row.
  ASSERT_TRUE(dispatcher_->local_invoke(BothDefaultCache{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"CacheWarmed:type-wins"}));
  EXPECT_TRUE(store_.rows.empty());
}

TEST_F(CascadeScenarioTests, Scenario15_RouteNoneAlone_YieldsNothingAndNoNonMessageLine) {
  // (None, evt, None) -> evt: DispatcherRoutedCascadeTests.CascadeFromResult_RouteNone_*.
  ASSERT_TRUE(dispatcher_->local_invoke(NothingToDo{}).ok());
  EXPECT_TRUE(journal_.entries().empty());
  EXPECT_TRUE(store_.rows.empty());
  EXPECT_TRUE(logs_containing(kNonMessage).empty());
  EXPECT_EQ(logs_containing(kNothingExtracted).size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario16_DefaultRoutedAndExplicitModeNone_ExtractNothing) {
  auto result = dispatcher_->local_invoke<
      std::tuple<whizbang::Routed<OrderCreated>, whizbang::Routed<OrderShipped>>>(NoneModes{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::get<1>(*result).value.order_id, "explicit-none");  // returned as given
  EXPECT_TRUE(journal_.entries().empty());
  EXPECT_TRUE(store_.rows.empty());
  EXPECT_TRUE(logs_containing(kNonMessage).empty());
}

TEST_F(CascadeScenarioTests, Scenario17_VectorWithNoneItems_YieldsTheOthersInOrder) {
  ASSERT_TRUE(dispatcher_->local_invoke(RoutedList{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:e1", "OrderCreated:e2"}));
  ASSERT_EQ(store_.rows.size(), 2u);
  EXPECT_TRUE(json_has(store_.rows[0], "e1"));
  EXPECT_TRUE(json_has(store_.rows[1], "e2"));
}

TEST_F(CascadeScenarioTests, Scenario19_PerItemLocalNoPersistWrappers_EachRunsLocallyUnstored) {
  ASSERT_TRUE(dispatcher_->local_invoke(EachNoPersist{}).ok());
  EXPECT_EQ(journal_.order(),
            (std::vector<std::string>{"OrderShipped:0", "OrderShipped:1", "OrderShipped:2"}));
  EXPECT_TRUE(store_.rows.empty());
}

}  // namespace
}  // namespace dispatch_test
