#include <iostream>

#include <whizbang/dispatch/dispatcher.hpp>
#include <whizbang/host/service_runner.hpp>
#include <whizbang/ids/derived_identity.hpp>

#include "greetings.hpp"
#include "whizbang_registry.hpp"

int main() {
  const whizbang::MessageId inbound = whizbang::MessageId::mint();
  const auto first =
      whizbang::EmissionIdentity::derive(inbound.uuid(), "orders", "", "greetings::Greeted", 0);
  const auto again =
      whizbang::EmissionIdentity::derive(inbound.uuid(), "orders", "", "greetings::Greeted", 0);
  if (!first.ok() || !again.ok() || *first != *again) {
    std::cerr << "consumer: derived ids differ\n";
    return 1;
  }

  int greeted = 0;
  whizbang::ServiceRegistry services;
  services.add<int>(greeted);
  whizbang::DispatcherOptions options;
  options.self.service_name = "consumer";
  auto dispatcher = whizbang::Dispatcher::create(whizbang::generated::consumer::registry(),
                                                 services, std::move(options));
  if (!dispatcher.ok()) {
    std::cerr << "consumer: " << dispatcher.status() << "\n";
    return 1;
  }
  greetings::Greet greet;
  greet.name = "world";
  auto reply = (*dispatcher)->local_invoke<greetings::Reply>(greet);
  if (!reply.ok() || reply->text != "hello, world" || greeted != 1) {
    std::cerr << "consumer: dispatch through the installed generator failed\n";
    return 1;
  }
  // Whizbang::service_runner links from the package alone: its HTTP server is the project's own.
  whizbang::ServiceRunnerConfig config;
  config.service_name = "consumer";
  config.http_port = 0;
  auto runner =
      whizbang::ServiceRunner::start(whizbang::generated::consumer::registry(), services, config);
  if (!runner.ok() || (*runner)->http_port() <= 0) {
    std::cerr << "consumer: the service runner did not start\n";
    return 1;
  }
  (*runner)->stop();
  std::cout << "consumer: ok " << reply->text << " " << first->to_string() << "\n";
  return 0;
}
