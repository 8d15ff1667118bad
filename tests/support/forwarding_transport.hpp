// A transport in front of another: test fakes derive from it to change one behaviour (how
// publishing goes, readiness, where deliveries come from) and forward the rest.
//
//   class NeverReady final : public test_support::ForwardingTransport {
//    public:
//     using ForwardingTransport::ForwardingTransport;
//     bool is_ready() const override { return false; }
//   };
#pragma once

#include <whizbang/transport/transport.hpp>

#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace test_support {

class ForwardingTransport : public whizbang::Transport {
 public:
  explicit ForwardingTransport(whizbang::Transport& inner) : inner_(inner) {}
  absl::Status publish(const whizbang::TransportDestination& destination,
                       std::span<const whizbang::TransportMessage> batch) override {
    return inner_.publish(destination, batch);
  }
  absl::StatusOr<std::unique_ptr<whizbang::TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<whizbang::TransportBinding> bindings,
      DeliveryHandler handler) override {
    return inner_.subscribe(service_name, std::move(bindings), std::move(handler));
  }

 private:
  whizbang::Transport& inner_;
};

}  // namespace test_support
