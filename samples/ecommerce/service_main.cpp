// shop_service: one service of the e-commerce sample as a process of its own (the distributed
// run, `./dev.sh run distributed`). Everything but the sample's own options goes to the
// service runner:
//
//   shop_service --data-dir DIR [--send-demo-order] --service orders|notifications
//                --store DIR/orders.db --transport amqp://… --http-port N
//
// The shared files of the run live in DIR: e-mails.txt, a journal per service (what its
// receptors did, across restarts). notifications crashes for real (exit 70) before completing
// its first InventoryReserved handling, once per DIR, to show what the retry does.
#include <spdlog/spdlog.h>
#include <whizbang/host/service_runner.hpp>
#include <whizbang/testing/inbox_faults.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "shop/messages.hpp"
#include "shop/orders_table.hpp"
#include "shop/registries.hpp"
#include "shop/services.hpp"
#include "whizbang_messages.hpp"

namespace {

constexpr int kCrashExitCode = 70;

struct SampleOptions {
  std::filesystem::path data_dir;
  bool send_demo_order = false;
  std::vector<char*> runner_arguments;  // argv without the sample's own options
};

SampleOptions take_sample_options(int argc, char** argv) {
  SampleOptions options;
  options.runner_arguments.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--data-dir" && i + 1 < argc) {
      options.data_dir = argv[++i];
    } else if (argument == "--send-demo-order") {
      options.send_demo_order = true;
    } else {
      options.runner_arguments.push_back(argv[i]);
    }
  }
  return options;
}

std::string service_name_of(const std::vector<char*>& arguments) {
  for (std::size_t i = 0; i + 1 < arguments.size(); ++i) {
    if (std::string(arguments[i]) == "--service") return arguments[i + 1];
  }
  const char* from_environment = std::getenv("WHIZBANG_SERVICE");
  return from_environment ? from_environment : "";
}

}  // namespace

int main(int argc, char** argv) {
  SampleOptions sample = take_sample_options(argc, argv);
  const std::string service = service_name_of(sample.runner_arguments);
  if (sample.data_dir.empty() || (service != "orders" && service != "notifications")) {
    std::cerr << "usage: shop_service --data-dir DIR [--send-demo-order] --service "
                 "orders|notifications [runner options]\n";
    return 2;
  }
  // Debug: the account counts EventIds 18 and 100 in the service's log.
  spdlog::set_level(spdlog::level::debug);

  shop::Mailer mailer(sample.data_dir / "emails.txt");
  shop::CustomerStats stats;
  shop::ServiceJournal journal(service, sample.data_dir / ("journal-" + service + ".txt"));
  whizbang::ServiceRegistry services;
  services.add<shop::Mailer>(mailer).add<shop::CustomerStats>(stats).add<shop::ServiceJournal>(
      journal);

  whizbang::ServiceRunnerHooks hooks;
  // Short leases: the crashed handling's row is re-offered to the restarted process quickly.
  hooks.store = [](whizbang::StoreOptions& options) {
    options.lease_duration = std::chrono::seconds(2);
  };
  const std::filesystem::path crashed_marker = sample.data_dir / "notifications-crashed";
  hooks.host = [&](whizbang::HostOptions& options) {
    options.poll_interval = std::chrono::milliseconds(200);
    // What --signing and WHIZBANG_SIGNING_KEYS became (key ids only: never a secret).
    if (options.signing.mode == whizbang::EnvelopeSigningMode::Require) {
      std::cout << service << ": envelope signing Require, keys";
      for (const std::string& id : options.signing.keys.key_ids()) std::cout << " " << id;
      std::cout << std::endl;
    }
  };
  // The reference's shape in the notifications service: emissions and the inbox completion in
  // separate commits, and a real crash between them on the first stock reservation (a test
  // seam: whizbang/testing/inbox_faults.hpp).
  std::optional<whizbang::fault_injection::ScopedInboxFaults> crash_once;
  if (service == "notifications") {
    crash_once.emplace(
        service, whizbang::fault_injection::InboxFaults{
                     .split_completion = true,
                     .before_completion = [&](const whizbang::WorkItem& item) -> absl::Status {
                       if (item.message_type != "shop::InventoryReserved" ||
                           std::filesystem::exists(crashed_marker)) {
                         return absl::OkStatus();
                       }
                       std::ofstream(crashed_marker) << "crashed once\n";
                       std::cerr << "notifications: crashing before the inbox completion commits\n";
                       std::_Exit(kCrashExitCode);
                     }});
  }
  // The orders service's own table, next to the store's (docs/guide/17-your-data.md).
  hooks.migrate = [&](whizbang::WorkStore& store) {
    return service == "orders" ? shop::create_orders_table(store) : absl::OkStatus();
  };
  if (sample.send_demo_order) {
    hooks.started = [](whizbang::ServiceRunner& runner) -> absl::Status {
      shop::CreateOrder command;
      command.order_id = "order-1001";
      command.customer_id = "customer-42";
      command.amount = 129.90;
      command.lines = {{"sku-kettle", 1}, {"sku-filter", 1}};
      auto receipt = runner.host().dispatcher().send(command);
      if (!receipt.ok()) return receipt.status();
      std::cout << "orders: sent CreateOrder " << receipt->message_id.to_string() << std::endl;
      return absl::OkStatus();
    };
  }
  const whizbang::Registry& registry =
      service == "orders" ? shop::orders_registry() : shop::notifications_registry();
  return whizbang::run_service_main(static_cast<int>(sample.runner_arguments.size()),
                                    sample.runner_arguments.data(), registry, services,
                                    std::move(hooks));
}
