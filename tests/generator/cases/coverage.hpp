// Golden + coverage case: every receptor shape the generator discovers
// (ReceptorDiscoveryGeneratorCoverageTests compiles this header through whizbang_generate()).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <whizbang/attributes.hpp>
#include <whizbang/message/route.hpp>

#include "absl/status/status.h"

namespace cov {

struct Ping : whizbang::Event {
  int n = 0;
};
struct Pong : whizbang::Event {
  int n = 0;
};
struct [[whizbang::default_routing(whizbang::DispatchModes::LocalNoPersist)]] Audit
    : whizbang::Event {
  std::string what;
};
struct Start : whizbang::Command {
  int n = 0;
};
struct Plain {
  int n = 0;
};

struct Clock {
  long now = 0;
};
struct Config {
  std::string name;
};

class VoidReceptor : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

class ResultReceptor : public whizbang::Receptor<Ping, Pong> {
 public:
  Pong handle(const Ping& ping);
};

class TupleReceptor : public whizbang::Receptor<Ping, std::tuple<Plain, Pong, Audit>> {
 public:
  std::tuple<Plain, Pong, Audit> handle(const Ping& ping);
};

class NestedReceptor
    : public whizbang::Receptor<Ping, std::tuple<Pong, std::tuple<Audit, std::pair<Pong, int>>>> {
 public:
  std::tuple<Pong, std::tuple<Audit, std::pair<Pong, int>>> handle(const Ping& ping);
};

class VectorReceptor : public whizbang::Receptor<Ping, std::vector<Pong>> {
 public:
  std::vector<Pong> handle(const Ping& ping);
};

class RangesReceptor
    : public whizbang::Receptor<Ping, std::tuple<std::array<Pong, 2>, std::span<const Audit>,
                                                 std::vector<std::tuple<Pong, Plain>>>> {
 public:
  std::tuple<std::array<Pong, 2>, std::span<const Audit>, std::vector<std::tuple<Pong, Plain>>>
  handle(const Ping& ping);
};

class RoutedReceptor
    : public whizbang::Receptor<Ping, std::tuple<whizbang::Routed<Pong>, whizbang::RoutedNone,
                                                 whizbang::Routed<std::vector<Pong>>,
                                                 std::vector<whizbang::Routed<Pong>>>> {
 public:
  std::tuple<whizbang::Routed<Pong>, whizbang::RoutedNone, whizbang::Routed<std::vector<Pong>>,
             std::vector<whizbang::Routed<Pong>>>
  handle(const Ping& ping);
};

class OptionalReceptor
    : public whizbang::Receptor<Ping, std::tuple<std::optional<Pong>, std::optional<Plain>>> {
 public:
  std::tuple<std::optional<Pong>, std::optional<Plain>> handle(const Ping& ping);
};

class [[whizbang::fire_at(whizbang::Stage::PostInboxInline,
                          whizbang::Stage::PreOutboxInline)]] FireAtReceptor
    : public whizbang::Receptor<Pong> {
 public:
  void handle(const Pong& pong);
};

class [[whizbang::idempotent]] IdempotentReceptor : public whizbang::Receptor<Pong> {
 public:
  void handle(const Pong& pong);
};

class [[whizbang::idempotent(whizbang::OnReplay::AlwaysFire)]] AlwaysFireReceptor
    : public whizbang::Receptor<Pong> {
 public:
  void handle(const Pong& pong);
};

class [[whizbang::once_across_services]] OnceReceptor : public whizbang::Receptor<Audit> {
 public:
  void handle(const Audit& audit);
};

class [[whizbang::default_routing(whizbang::DispatchModes::Outbox)]] RoutingReceptor
    : public whizbang::Receptor<Start, std::tuple<Ping, whizbang::Routed<Pong>, Audit>> {
 public:
  std::tuple<Ping, whizbang::Routed<Pong>, Audit> handle(const Start& start);
};

class DependencyReceptor : public whizbang::Receptor<Audit> {
 public:
  DependencyReceptor(Clock& clock, const Config& config, Clock* maybe_clock, Config copy);
  void handle(const Audit& audit);

 private:
  Clock& clock_;
};

// Perspectives: a void and an absl::Status apply, a dependency, a model with a nested struct.
struct Tally {
  long count = 0;
};
struct PingStats {
  long pings = 0;
  long pongs = 0;
  std::vector<int> seen;
  Tally tally;
};

class PingStatsPerspective : public whizbang::Perspective<PingStats> {
 public:
  explicit PingStatsPerspective(Clock& clock);
  void apply(PingStats& model, const Ping& ping);
  absl::Status apply(PingStats& model, const Pong& pong);

 private:
  Clock& clock_;
};

}  // namespace cov
