// CascadeScenarioTests fixture (the reference's cascade scenarios 1-45): the dispatcher fixture
// plus dispatchers without a store, whose rows go to a deferred channel or nowhere.
#pragma once

#include <memory>
#include <utility>

#include <whizbang/dispatch/deferred_outbox_channel.hpp>

#include "fixture.hpp"

namespace dispatch_test {

class CascadeScenarioTests : public DispatcherTest {
 protected:
  // "orders" owning `owned` (DispatcherOptions::owned_domains), over the recording store.
  std::unique_ptr<whizbang::Dispatcher> make_owning(std::vector<std::string> owned) {
    whizbang::DispatcherOptions options;
    options.self.service_name = "orders";
    options.store = &store_;
    options.logger = logger_;
    options.owned_domains = std::move(owned);
    auto dispatcher = whizbang::Dispatcher::create(
        whizbang::generated::whizbang_dispatch_tests::registry(), services_, std::move(options));
    EXPECT_TRUE(dispatcher.ok()) << dispatcher.status();
    return *std::move(dispatcher);
  }

  // No store: rows go to `channel` (DispatcherOptions::defer), or are dropped when it is null.
  std::unique_ptr<whizbang::Dispatcher> make_storeless(whizbang::DeferredOutboxChannel* channel) {
    whizbang::DispatcherOptions options;
    options.self.service_name = "orders";
    options.self.instance_id = whizbang::MessageId::mint().uuid();
    options.logger = logger_;
    if (channel != nullptr) {
      options.defer = [channel](whizbang::OutboxMessage row) { channel->queue(std::move(row)); };
    }
    auto dispatcher = whizbang::Dispatcher::create(
        whizbang::generated::whizbang_dispatch_tests::registry(), services_, std::move(options));
    EXPECT_TRUE(dispatcher.ok()) << dispatcher.status();
    return *std::move(dispatcher);
  }
};

}  // namespace dispatch_test
