// One service's dispatcher and invoker over the generated lifecycle test registry, with a fire
// log and captured log lines.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <whizbang/lifecycle/receptor_invoker.hpp>

#include "lifecycle_receptors.hpp"
#include "support/log_capture.hpp"
#include "whizbang_registry.hpp"

namespace lifecycle_test {

inline const whizbang::Registry& test_registry() {
  return whizbang::generated::whizbang_lifecycle_tests::registry();
}

using LogCapture = whizbang_test::LogCapture;

// A dispatcher + invoker for one service name.
class ServiceUnderTest {
 public:
  ServiceUnderTest(FireLog& log, std::string service_name,
                   whizbang::ReceptorInvokerOptions invoker_options = {},
                   std::shared_ptr<spdlog::logger> logger = nullptr)
      : recorder_(log, service_name) {
    services_.add<Recorder>(recorder_);
    whizbang::DispatcherOptions options;
    options.self.service_name = std::move(service_name);
    options.logger = logger;
    auto dispatcher = whizbang::Dispatcher::create(test_registry(), services_, std::move(options));
    EXPECT_TRUE(dispatcher.ok()) << dispatcher.status();
    dispatcher_ = *std::move(dispatcher);
    if (!invoker_options.logger) invoker_options.logger = logger;
    invoker_ = std::make_unique<whizbang::ReceptorInvoker>(*dispatcher_, invoker_options);
  }

  whizbang::Dispatcher& dispatcher() { return *dispatcher_; }
  whizbang::ReceptorInvoker& invoker() { return *invoker_; }

  absl::StatusOr<whizbang::InvokeReport> invoke(whizbang::Envelope& envelope, whizbang::Stage stage,
                                                const whizbang::LifecycleContext& context = {}) {
    return invoker_->invoke(envelope, stage, context);
  }

 private:
  Recorder recorder_;
  whizbang::ServiceRegistry services_;
  std::unique_ptr<whizbang::Dispatcher> dispatcher_;
  std::unique_ptr<whizbang::ReceptorInvoker> invoker_;
};

// An envelope for `message` whose last hop came from `from_service`.
template <class Message>
whizbang::Envelope envelope_from(const Message& message, std::string from_service) {
  whizbang::ServiceInstance origin;
  origin.service_name = std::move(from_service);
  return whizbang::Envelope::create(whizbang::AnyMessage::make(message), origin);
}

inline whizbang::ReceptorInvocationRecord record_of(std::string receptor, std::string service,
                                                    whizbang::Stage stage) {
  whizbang::ReceptorInvocationRecord record;
  record.receptor_id = std::move(receptor);
  record.service_name = std::move(service);
  record.stage = stage;
  return record;
}

// The OrderPlaced event of order `id`.
inline OrderPlaced placed(std::string id) {
  OrderPlaced event;
  event.order_id = std::move(id);
  return event;
}

}  // namespace lifecycle_test
