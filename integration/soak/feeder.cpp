#include "feeder.hpp"

#include <chrono>

#include "crash_restart/messages.hpp"
#include "order_ledger.hpp"
#include "whizbang_messages.hpp"

namespace soak {

absl::StatusOr<std::unique_ptr<Feeder>> Feeder::open(const std::filesystem::path& data_dir) {
  auto services = crash_restart::Services::open(data_dir, 0, std::chrono::seconds(0));
  if (!services.ok()) return services.status();
  return std::unique_ptr<Feeder>(new Feeder(*std::move(services)));
}

absl::Status Feeder::send(int index) {
  crash_restart::PlaceOrder command;
  command.order_id = OrderLedger::order_id(index);
  command.quantity = OrderLedger::quantity(index);
  auto receipt = services_->sales().dispatcher().send(command);
  return receipt.ok() ? absl::OkStatus() : receipt.status();
}

}  // namespace soak
