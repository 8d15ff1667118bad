// ReceptorDiscoveryGeneratorCoverageTests: every receptor shape in cases/coverage.hpp is
// discovered by whizbang-gen, with the right metadata, and its cascade walk runs.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "coverage.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace cov {

void VoidReceptor::handle(const Ping&) {}
Pong ResultReceptor::handle(const Ping& ping) { return {{}, ping.n + 1}; }
std::tuple<Plain, Pong, Audit> TupleReceptor::handle(const Ping& ping) {
  return {Plain{ping.n}, Pong{{}, ping.n}, Audit{{}, "tuple"}};
}
std::tuple<Pong, std::tuple<Audit, std::pair<Pong, int>>> NestedReceptor::handle(const Ping&) {
  return {Pong{{}, 1}, {Audit{{}, "nested"}, {Pong{{}, 2}, 3}}};
}
std::vector<Pong> VectorReceptor::handle(const Ping&) { return {Pong{{}, 1}, Pong{{}, 2}}; }

namespace {
const Audit kAudits[] = {Audit{{}, "span"}};
}
std::tuple<std::array<Pong, 2>, std::span<const Audit>, std::vector<std::tuple<Pong, Plain>>>
RangesReceptor::handle(const Ping&) {
  return {std::array<Pong, 2>{Pong{{}, 1}, Pong{{}, 2}},
          std::span<const Audit>(kAudits),
          {{Pong{{}, 3}, Plain{4}}}};
}
std::tuple<whizbang::Routed<Pong>, whizbang::RoutedNone, whizbang::Routed<std::vector<Pong>>,
           std::vector<whizbang::Routed<Pong>>>
RoutedReceptor::handle(const Ping&) {
  return {whizbang::Route::Outbox(Pong{{}, 1}), whizbang::Route::None(),
          whizbang::Route::EventStoreOnly(std::vector<Pong>{Pong{{}, 2}}),
          whizbang::Route::LocalNoPersistEach(std::vector<Pong>{Pong{{}, 3}})};
}
std::tuple<std::optional<Pong>, std::optional<Plain>> OptionalReceptor::handle(const Ping&) {
  return {std::nullopt, Plain{1}};
}
void FireAtReceptor::handle(const Pong&) {}
void IdempotentReceptor::handle(const Pong&) {}
void AlwaysFireReceptor::handle(const Pong&) {}
void OnceReceptor::handle(const Audit&) {}
std::tuple<Ping, whizbang::Routed<Pong>, Audit> RoutingReceptor::handle(const Start&) {
  return {Ping{{}, 1}, whizbang::Route::Both(Pong{{}, 2}), Audit{{}, "routing"}};
}
PingStatsPerspective::PingStatsPerspective(Clock& clock) : clock_(clock) {}
void PingStatsPerspective::apply(PingStats& model, const Ping& ping) {
  ++model.pings;
  model.seen.push_back(ping.n);
  ++model.tally.count;
  ++clock_.now;
}
absl::Status PingStatsPerspective::apply(PingStats& model, const Pong& pong) {
  if (pong.n < 0) return absl::InvalidArgumentError("negative pong");
  ++model.pongs;
  ++model.tally.count;
  return absl::OkStatus();
}
DependencyReceptor::DependencyReceptor(Clock& clock, const Config&, Clock*, Config)
    : clock_(clock) {}
void DependencyReceptor::handle(const Audit&) { ++clock_.now; }

}  // namespace cov

namespace {

using whizbang::DispatchModes;
using whizbang::Stage;

const whizbang::Registry& registry() {
  return whizbang::generated::generator_coverage_tests::registry();
}

const whizbang::ReceptorInfo& receptor(std::string_view id) {
  const whizbang::ReceptorInfo* found = registry().find_receptor(id);
  if (found == nullptr) ADD_FAILURE() << "receptor not discovered: " << id;
  static const whizbang::ReceptorInfo kMissing{};
  return found ? *found : kMissing;
}

class Sink : public whizbang::CascadeSink {
 public:
  void emit(whizbang::AnyMessage message, DispatchModes mode) override {
    out.emplace_back(std::string(message.info()->wire_name), mode);
  }
  void ignored(std::string_view type) override { ignored_types.emplace_back(type); }
  std::vector<std::pair<std::string, DispatchModes>> out;
  std::vector<std::string> ignored_types;
};

class ReceptorDiscoveryGeneratorCoverageTests : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.add<cov::Clock>(clock_).add<cov::Config>(config_);
    auto built = registry().create_receptors(services_);
    ASSERT_TRUE(built.ok()) << built.status();
    receptors_ = *std::move(built);
  }

  std::vector<std::pair<std::string, DispatchModes>> cascade(std::string_view id,
                                                             whizbang::AnyMessage message) {
    Sink sink;
    EXPECT_TRUE(registry().invoke(receptor(id), receptors_, message, sink).ok());
    return sink.out;
  }

  cov::Clock clock_;
  cov::Config config_{"cfg"};
  whizbang::ServiceRegistry services_;
  whizbang::ReceptorSet receptors_;
};

TEST_F(ReceptorDiscoveryGeneratorCoverageTests, DiscoversEveryReceptorShape) {
  const std::map<std::string, std::string> expected = {
      {"cov::VoidReceptor", ""},
      {"cov::ResultReceptor", "cov::Pong"},
      {"cov::TupleReceptor", "std::tuple<cov::Plain, cov::Pong, cov::Audit>"},
      {"cov::NestedReceptor",
       "std::tuple<cov::Pong, std::tuple<cov::Audit, std::pair<cov::Pong, int>>>"},
      {"cov::VectorReceptor", "std::vector<cov::Pong>"},
      {"cov::RangesReceptor", ""},
      {"cov::RoutedReceptor", ""},
      {"cov::OptionalReceptor", ""},
      {"cov::FireAtReceptor", ""},
      {"cov::IdempotentReceptor", ""},
      {"cov::AlwaysFireReceptor", ""},
      {"cov::OnceReceptor", ""},
      {"cov::RoutingReceptor", ""},
      {"cov::DependencyReceptor", ""},
  };
  EXPECT_EQ(registry().receptors().size(), expected.size());
  for (const auto& [id, response] : expected) {
    const whizbang::ReceptorInfo& info = receptor(id);
    EXPECT_EQ(info.id, id);
    if (!response.empty()) {
      EXPECT_EQ(info.response_type, response) << id;
    }
  }
  EXPECT_EQ(receptor("cov::VoidReceptor").response_type, "");
  EXPECT_EQ(receptor("cov::VoidReceptor").response_key, nullptr);
  EXPECT_EQ(receptor("cov::ResultReceptor").response_key,
            whizbang::internal::type_key<cov::Pong>());
}

TEST_F(ReceptorDiscoveryGeneratorCoverageTests, AttributesBecomeStagesFlagsAndRoutes) {
  const auto& plain = receptor("cov::VoidReceptor");
  EXPECT_TRUE(plain.default_stages);
  EXPECT_EQ(std::vector<Stage>(plain.stages.begin(), plain.stages.end()),
            (std::vector<Stage>{Stage::LocalImmediateDetached, Stage::PostInboxDetached}));
  EXPECT_FALSE(plain.idempotent || plain.always_fire || plain.once_across_services);
  EXPECT_FALSE(plain.default_routing.has_value());

  const auto& fire_at = receptor("cov::FireAtReceptor");
  EXPECT_FALSE(fire_at.default_stages);
  EXPECT_EQ(std::vector<Stage>(fire_at.stages.begin(), fire_at.stages.end()),
            (std::vector<Stage>{Stage::PostInboxInline, Stage::PreOutboxInline}));

  EXPECT_TRUE(receptor("cov::IdempotentReceptor").idempotent);
  EXPECT_FALSE(receptor("cov::IdempotentReceptor").always_fire);
  EXPECT_TRUE(receptor("cov::AlwaysFireReceptor").idempotent);
  EXPECT_TRUE(receptor("cov::AlwaysFireReceptor").always_fire);
  EXPECT_TRUE(receptor("cov::OnceReceptor").once_across_services);
  EXPECT_EQ(receptor("cov::RoutingReceptor").default_routing, DispatchModes::Outbox);
  EXPECT_EQ(receptor("cov::RoutingReceptor").message, &whizbang::MessageTraits<cov::Start>::info());
  EXPECT_EQ(whizbang::MessageTraits<cov::Audit>::info().default_routing,
            DispatchModes::LocalNoPersist);
}

TEST_F(ReceptorDiscoveryGeneratorCoverageTests, ConstructorDependenciesAreWired) {
  Sink sink;
  ASSERT_TRUE(registry()
                  .invoke(receptor("cov::DependencyReceptor"), receptors_,
                          whizbang::AnyMessage::make(cov::Audit{{}, "x"}), sink)
                  .ok());
  EXPECT_EQ(clock_.now, 1);

  whizbang::ServiceRegistry partial;
  partial.add<cov::Clock>(clock_);
  const auto failed = registry().create_receptors(partial);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("cov::DependencyReceptor"), std::string::npos);
  EXPECT_NE(failed.status().message().find("cov::Config"), std::string::npos);
}

TEST_F(ReceptorDiscoveryGeneratorCoverageTests, CascadeWalksEveryShape) {
  const auto ping = whizbang::AnyMessage::make(cov::Ping{{}, 1});
  using Out = std::vector<std::pair<std::string, DispatchModes>>;
  EXPECT_EQ(cascade("cov::VoidReceptor", ping), Out{});
  EXPECT_EQ(cascade("cov::ResultReceptor", ping), (Out{{"cov::Pong", DispatchModes::Local}}));
  EXPECT_EQ(
      cascade("cov::TupleReceptor", ping),
      (Out{{"cov::Pong", DispatchModes::Local}, {"cov::Audit", DispatchModes::LocalNoPersist}}));
  EXPECT_EQ(cascade("cov::NestedReceptor", ping),
            (Out{{"cov::Pong", DispatchModes::Local},
                 {"cov::Audit", DispatchModes::LocalNoPersist},
                 {"cov::Pong", DispatchModes::Local}}));
  EXPECT_EQ(cascade("cov::VectorReceptor", ping),
            (Out{{"cov::Pong", DispatchModes::Local}, {"cov::Pong", DispatchModes::Local}}));
  EXPECT_EQ(cascade("cov::RangesReceptor", ping),
            (Out{{"cov::Pong", DispatchModes::Local},
                 {"cov::Pong", DispatchModes::Local},
                 {"cov::Audit", DispatchModes::LocalNoPersist},
                 {"cov::Pong", DispatchModes::Local}}));
  EXPECT_EQ(cascade("cov::RoutedReceptor", ping),
            (Out{{"cov::Pong", DispatchModes::Outbox},
                 {"cov::Pong", DispatchModes::EventStoreOnly},
                 {"cov::Pong", DispatchModes::LocalNoPersist}}));
  EXPECT_EQ(cascade("cov::OptionalReceptor", ping), Out{});
  EXPECT_EQ(cascade("cov::RoutingReceptor", whizbang::AnyMessage::make(cov::Start{{}, 1})),
            (Out{{"cov::Ping", DispatchModes::Outbox},
                 {"cov::Pong", DispatchModes::Outbox},
                 {"cov::Audit", DispatchModes::LocalNoPersist}}));
}

}  // namespace

namespace {

TEST_F(ReceptorDiscoveryGeneratorCoverageTests, DiscoversPerspectivesWithModelCodecAndApply) {
  ASSERT_EQ(registry().perspectives().size(), 1u);
  const whizbang::PerspectiveInfo& info = registry().perspectives()[0];
  EXPECT_EQ(info.name, "cov::PingStatsPerspective");
  EXPECT_EQ(info.model_type, "cov::PingStats");
  ASSERT_EQ(info.events.size(), 2u);
  EXPECT_EQ(info.events[0], &whizbang::MessageTraits<cov::Ping>::info());
  EXPECT_EQ(info.events[1], &whizbang::MessageTraits<cov::Pong>::info());
  EXPECT_EQ(registry().perspectives_for(whizbang::MessageTraits<cov::Ping>::info()).size(), 1u);
  EXPECT_TRUE(registry().perspectives_for(whizbang::MessageTraits<cov::Audit>::info()).empty());
  EXPECT_EQ(registry().find_perspective("cov::PingStatsPerspective"), &info);

  auto perspectives = registry().create_perspectives(services_);
  ASSERT_TRUE(perspectives.ok()) << perspectives.status();
  void* instance = perspectives->get(info.index);
  std::shared_ptr<void> model = info.new_model();
  ASSERT_TRUE(info.apply(instance, model.get(), whizbang::AnyMessage::make(cov::Ping{{}, 7})).ok());
  ASSERT_TRUE(info.apply(instance, model.get(), whizbang::AnyMessage::make(cov::Pong{{}, 1})).ok());
  EXPECT_EQ(clock_.now, 1) << "the dependency was wired";
  EXPECT_EQ(info.apply(instance, model.get(), whizbang::AnyMessage::make(cov::Pong{{}, -1})).code(),
            absl::StatusCode::kInvalidArgument)
      << "an absl::Status apply's error is passed on";
  EXPECT_EQ(
      info.apply(instance, model.get(), whizbang::AnyMessage::make(cov::Audit{{}, "a"})).code(),
      absl::StatusCode::kInvalidArgument);

  const std::string json = info.model_to_json(model.get());
  EXPECT_EQ(json, R"({"pings":1,"pongs":1,"seen":[7],"tally":{"count":2}})");
  std::shared_ptr<void> back = info.new_model();
  ASSERT_TRUE(info.model_from_json(json, back.get()).ok());
  EXPECT_EQ(info.model_to_json(back.get()), json);
  EXPECT_FALSE(info.model_from_json(R"({"pings":"x"})", back.get()).ok());

  whizbang::ServiceRegistry empty;
  const auto failed = registry().create_perspectives(empty);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("cov::PingStatsPerspective"), std::string::npos);
  EXPECT_NE(failed.status().message().find("cov::Clock"), std::string::npos);
}

}  // namespace
