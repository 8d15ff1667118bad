// Registry: lookups, construction and the dispatch entry point over hand-built rows shaped like
// the ones whizbang-gen emits (tests/generator checks the generated rows themselves).
#include "whizbang/registry/registry.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace registry_test {

struct OrderCreated {
  std::string order_id;
};
struct ShipOrder {
  std::string order_id;
};
// Shaped like OrderCreated but never registered.
struct OrderCancelled {};

// What whizbang-gen writes into a MessageTraits specialization.
constexpr whizbang::MessageTypeInfo message_type(std::string_view wire_name,
                                                 std::string_view cpp_name,
                                                 whizbang::MessageKind kind,
                                                 std::string_view dotnet_type = {}) {
  whizbang::MessageTypeInfo info;
  info.wire_name = wire_name;
  info.cpp_name = cpp_name;
  info.kind = kind;
  info.dotnet_type = dotnet_type;
  return info;
}

// A constructor dependency of Mailer.
struct MailService {
  int sent = 0;
};

}  // namespace registry_test

namespace whizbang {

template <>
struct MessageTraits<registry_test::OrderCreated> {
  static constexpr MessageTypeInfo kInfo = registry_test::message_type(
      "Shop.Contracts.OrderCreated", "registry_test::OrderCreated", MessageKind::Event,
      "Shop.Contracts.OrderCreated, Shop.Contracts");
  static const MessageTypeInfo& info() { return kInfo; }
};
template <>
struct MessageTraits<registry_test::ShipOrder> {
  static constexpr MessageTypeInfo kInfo = registry_test::message_type(
      "shop::ShipOrder", "registry_test::ShipOrder", MessageKind::Command);
  static const MessageTypeInfo& info() { return kInfo; }
};
template <>
struct MessageTraits<registry_test::OrderCancelled> {
  static constexpr MessageTypeInfo kInfo = registry_test::message_type(
      "shop::OrderCancelled", "registry_test::OrderCancelled", MessageKind::Event);
  static const MessageTypeInfo& info() { return kInfo; }
};

}  // namespace whizbang

namespace registry_test {
namespace {

using whizbang::AnyMessage;
using whizbang::DispatchModes;
using whizbang::MessageEntry;
using whizbang::MessageTraits;
using whizbang::MessageTypeInfo;
using whizbang::PerspectiveInfo;
using whizbang::ReceptorInfo;
using whizbang::ReceptorSet;
using whizbang::Registry;
using whizbang::ServiceRegistry;

const MessageTypeInfo& kCreated = MessageTraits<OrderCreated>::info();
const MessageTypeInfo& kShip = MessageTraits<ShipOrder>::info();

struct Mailer {
  MailService* mail = nullptr;
};
struct Shipper {
  int shipped = 0;
};

absl::StatusOr<std::shared_ptr<void>> create_mailer(const ServiceRegistry& services) {
  MailService* mail = services.find<MailService>();
  if (mail == nullptr) {
    return absl::FailedPreconditionError("registry_test::Mailer needs registry_test::MailService");
  }
  return std::shared_ptr<void>(std::make_shared<Mailer>(Mailer{mail}));
}
absl::StatusOr<std::shared_ptr<void>> create_shipper(const ServiceRegistry&) {
  return std::shared_ptr<void>(std::make_shared<Shipper>());
}
absl::Status invoke_mailer(void* receptor, const AnyMessage& message, whizbang::CascadeSink&,
                           std::shared_ptr<void>*) {
  if (message.get_if<OrderCreated>() == nullptr) return absl::InvalidArgumentError("not mine");
  ++static_cast<Mailer*>(receptor)->mail->sent;
  return absl::OkStatus();
}
absl::Status invoke_shipper(void* receptor, const AnyMessage& message, whizbang::CascadeSink&,
                            std::shared_ptr<void>*) {
  if (message.get_if<ShipOrder>() == nullptr) return absl::InvalidArgumentError("not mine");
  ++static_cast<Shipper*>(receptor)->shipped;
  return absl::OkStatus();
}

ReceptorInfo receptor_row(std::string_view id, const MessageTypeInfo& message, std::uint32_t index,
                          decltype(ReceptorInfo::create) create,
                          decltype(ReceptorInfo::invoke) invoke) {
  ReceptorInfo row;
  row.id = id;
  row.message = &message;
  row.index = index;
  row.create = create;
  row.invoke = invoke;
  return row;
}

// Rows grouped by message type in wire-name order ("Shop.Contracts..." sorts before "shop::").
const std::array<ReceptorInfo, 3> kReceptors = [] {
  std::array<ReceptorInfo, 3> rows = {
      receptor_row("registry_test::Mailer", kCreated, 0, &create_mailer, &invoke_mailer),
      receptor_row("registry_test::Shipper", kCreated, 1, &create_shipper, &invoke_shipper),
      receptor_row("registry_test::Dispatcher", kShip, 2, &create_shipper, &invoke_shipper)};
  rows[2].default_routing = DispatchModes::Outbox;
  return rows;
}();

absl::StatusOr<std::shared_ptr<void>> create_summary(const ServiceRegistry&) {
  return std::shared_ptr<void>(std::make_shared<int>(0));
}
const std::array<PerspectiveInfo, 1> kPerspectives = [] {
  std::array<PerspectiveInfo, 1> rows;
  rows[0].name = "registry_test::OrderSummary";
  rows[0].create = &create_summary;
  return rows;
}();
const std::array<const PerspectiveInfo*, 1> kCreatedPerspectives = {&kPerspectives[0]};

const std::array<MessageEntry, 2> kMessages = [] {
  std::array<MessageEntry, 2> entries;
  entries[0].info = &kCreated;
  entries[0].first_receptor = 0;
  entries[0].receptor_count = 2;
  entries[0].perspectives = kCreatedPerspectives;
  entries[1].info = &kShip;
  entries[1].first_receptor = 2;
  entries[1].receptor_count = 1;
  entries[1].receptor_default_routing = DispatchModes::Outbox;
  return entries;
}();

// A visitor that admits every receptor and drops cascades.
class AdmitAll final : public whizbang::DispatchVisitor {
 public:
  void emit(AnyMessage, DispatchModes) override {}
};

// The dense index the registry handed its dispatch function last.
std::optional<std::uint32_t> g_dispatched_index;
absl::Status record_dispatch(std::uint32_t message_index, const AnyMessage&, const ReceptorSet&,
                             whizbang::DispatchVisitor&) {
  g_dispatched_index = message_index;
  return absl::OkStatus();
}

const Registry kRegistry("registry_test", kMessages, kReceptors, &record_dispatch, kPerspectives);

class RegistryTests : public ::testing::Test {
 protected:
  void SetUp() override { g_dispatched_index.reset(); }
  MailService mail_;
  AdmitAll visitor_;
};

TEST_F(RegistryTests, FindMessage_ByExactWireName) {
  EXPECT_EQ(kRegistry.find_message("shop::ShipOrder"), &kShip);
  EXPECT_EQ(kRegistry.find_message("Shop.Contracts.OrderCreated"), &kCreated);
}

TEST_F(RegistryTests, FindMessage_UnknownOrDifferentlyCasedName_IsNullptr) {
  EXPECT_EQ(kRegistry.find_message("shop::OrderCancelled"), nullptr);
  EXPECT_EQ(kRegistry.find_message("SHOP::ShipOrder"), nullptr);
  EXPECT_EQ(kRegistry.find_message(""), nullptr);
}

TEST_F(RegistryTests, FindMessage_DotNetAssemblyQualifiedName_FindsTheSharedType) {
  EXPECT_EQ(kRegistry.find_message("Shop.Contracts.OrderCreated, Shop.Contracts"), &kCreated);
  EXPECT_EQ(kRegistry.find_message("Shop.Contracts.OrderCreated,Shop.Contracts"), &kCreated);
  EXPECT_EQ(kRegistry.find_message("Shop.Contracts.OrderCreated, Shop.Contracts, Version=1.0.0.0, "
                                   "Culture=neutral, PublicKeyToken=null"),
            &kCreated);
}

TEST_F(RegistryTests, FindMessage_AssemblyQualifiedNameOfAnotherAssembly_IsNullptr) {
  EXPECT_EQ(kRegistry.find_message("Shop.Contracts.OrderCreated, Other.Contracts"), nullptr);
  // A type without a .NET identity is never found by an assembly-qualified name.
  EXPECT_EQ(kRegistry.find_message("shop::ShipOrder, Shop.Contracts"), nullptr);
  EXPECT_EQ(kRegistry.find_message("Shop.Contracts.Unknown, Shop.Contracts"), nullptr);
}

TEST_F(RegistryTests, IndexOf_IsThePositionInMessages) {
  EXPECT_EQ(kRegistry.index_of(kCreated), 0u);
  EXPECT_EQ(kRegistry.index_of<ShipOrder>(), 1u);
  EXPECT_EQ(kRegistry.index_of<OrderCancelled>(), std::nullopt);
}

TEST_F(RegistryTests, IndexOf_TypeWithTheSameWireNameButAnotherInfo_IsUnknown) {
  // A type's identity is its MessageTypeInfo's address.
  static constexpr MessageTypeInfo kLookalike =
      message_type("shop::ShipOrder", "registry_test::ShipOrder", whizbang::MessageKind::Command);
  EXPECT_EQ(kRegistry.index_of(kLookalike), std::nullopt);
  EXPECT_TRUE(kRegistry.receptors_for(kLookalike).empty());
}

TEST_F(RegistryTests, ReceptorsFor_AreTheTypesRunInDeclarationOrder) {
  const auto created = kRegistry.receptors_for(kCreated);
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0].id, "registry_test::Mailer");
  EXPECT_EQ(created[1].id, "registry_test::Shipper");
  const auto ship = kRegistry.receptors_for(kShip);
  ASSERT_EQ(ship.size(), 1u);
  EXPECT_EQ(ship[0].id, "registry_test::Dispatcher");
  EXPECT_TRUE(kRegistry.receptors_for(MessageTraits<OrderCancelled>::info()).empty());
}

TEST_F(RegistryTests, FindReceptorAndPerspective_ByName) {
  const ReceptorInfo* dispatcher = kRegistry.find_receptor("registry_test::Dispatcher");
  ASSERT_NE(dispatcher, nullptr);
  EXPECT_EQ(dispatcher->index, 2u);
  EXPECT_EQ(kRegistry.find_receptor("registry_test::Nobody"), nullptr);
  EXPECT_EQ(kRegistry.find_perspective("registry_test::OrderSummary"), &kPerspectives[0]);
  EXPECT_EQ(kRegistry.find_perspective("registry_test::Mailer"), nullptr);
}

TEST_F(RegistryTests, PerspectivesFor_OnlyTheTypesTheyApply) {
  const auto created = kRegistry.perspectives_for(kCreated);
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0]->name, "registry_test::OrderSummary");
  EXPECT_TRUE(kRegistry.perspectives_for(kShip).empty());
  EXPECT_TRUE(kRegistry.perspectives_for(MessageTraits<OrderCancelled>::info()).empty());
}

TEST_F(RegistryTests, ReceptorDefaultRouting_IsTheEntrysOrNone) {
  EXPECT_EQ(kRegistry.receptor_default_routing(kShip), DispatchModes::Outbox);
  EXPECT_EQ(kRegistry.receptor_default_routing(kCreated), std::nullopt);
  EXPECT_EQ(kRegistry.receptor_default_routing(MessageTraits<OrderCancelled>::info()),
            std::nullopt);
}

TEST_F(RegistryTests, CreateReceptors_BuildsOneInstancePerRow) {
  ServiceRegistry services;
  services.add(mail_);
  absl::StatusOr<ReceptorSet> receptors = kRegistry.create_receptors(services);
  ASSERT_TRUE(receptors.ok()) << receptors.status();
  ASSERT_EQ(receptors->size(), 3u);
  EXPECT_EQ(static_cast<Mailer*>(receptors->get(0))->mail, &mail_);
  EXPECT_NE(receptors->get(1), receptors->get(2)) << "one instance per receptor";
}

TEST_F(RegistryTests, CreateReceptors_MissingDependencyFailsTheWholeSet) {
  const ServiceRegistry empty;
  absl::StatusOr<ReceptorSet> receptors = kRegistry.create_receptors(empty);
  ASSERT_FALSE(receptors.ok());
  EXPECT_EQ(receptors.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(receptors.status().message().find("registry_test::Mailer"), std::string::npos);
}

TEST_F(RegistryTests, CreatePerspectives_IsIndexedLikePerspectives) {
  absl::StatusOr<ReceptorSet> perspectives = kRegistry.create_perspectives(ServiceRegistry());
  ASSERT_TRUE(perspectives.ok()) << perspectives.status();
  EXPECT_EQ(perspectives->size(), kRegistry.perspectives().size());
  EXPECT_NE(perspectives->get(0), nullptr);
}

TEST_F(RegistryTests, Dispatch_HandsTheMessagesDenseIndexToTheGeneratedSwitch) {
  ServiceRegistry services;
  services.add(mail_);
  absl::StatusOr<ReceptorSet> receptors = kRegistry.create_receptors(services);
  ASSERT_TRUE(receptors.ok());
  ASSERT_TRUE(kRegistry.dispatch(AnyMessage::make(ShipOrder{"o-1"}), *receptors, visitor_).ok());
  EXPECT_EQ(g_dispatched_index, 1u);
  ASSERT_TRUE(kRegistry.dispatch(AnyMessage::make(OrderCreated{"o-1"}), *receptors, visitor_).ok());
  EXPECT_EQ(g_dispatched_index, 0u);
}

TEST_F(RegistryTests, Dispatch_UnknownTypeIsNotFoundNamingIt) {
  const absl::Status status =
      kRegistry.dispatch(AnyMessage::make(OrderCancelled{}), ReceptorSet(), visitor_);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("shop::OrderCancelled"), std::string::npos);
  EXPECT_NE(status.message().find("registry_test"), std::string::npos);
  EXPECT_FALSE(g_dispatched_index.has_value());
}

TEST_F(RegistryTests, Dispatch_EmptyMessageIsInvalidArgument) {
  const absl::Status status = kRegistry.dispatch(AnyMessage(), ReceptorSet(), visitor_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(g_dispatched_index.has_value());
}

TEST_F(RegistryTests, Dispatch_ReceptorSetOfAnotherRegistryIsFailedPrecondition) {
  const ReceptorSet foreign(std::vector<std::shared_ptr<void>>{std::make_shared<int>(0)});
  const absl::Status status = kRegistry.dispatch(AnyMessage::make(ShipOrder{}), foreign, visitor_);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(g_dispatched_index.has_value());
}

TEST_F(RegistryTests, Invoke_RunsTheRowsThunkOnItsInstance) {
  ServiceRegistry services;
  services.add(mail_);
  absl::StatusOr<ReceptorSet> receptors = kRegistry.create_receptors(services);
  ASSERT_TRUE(receptors.ok());
  ASSERT_TRUE(
      kRegistry.invoke(kReceptors[0], *receptors, AnyMessage::make(OrderCreated{}), visitor_).ok());
  EXPECT_EQ(mail_.sent, 1);
  // The thunk rejects a message of another type.
  EXPECT_EQ(
      kRegistry.invoke(kReceptors[0], *receptors, AnyMessage::make(ShipOrder{}), visitor_).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mail_.sent, 1);
}

TEST_F(RegistryTests, Invoke_ReceptorNotConstructedIsFailedPrecondition) {
  const absl::Status status =
      kRegistry.invoke(kReceptors[2], ReceptorSet(), AnyMessage::make(ShipOrder{}), visitor_);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace registry_test
