// The soak's source of orders: an instance of the sales service inside the driver (its store
// opened on sales' schema, its host never started) that takes each PlaceOrder as a front end
// would: the receptor runs in the send's transaction and its OrderPlaced lands in the outbox,
// drained over RabbitMQ by the sales process. Its rows are leased for no time at all, so the sales
// process takes them up at once. The driver is never killed: what it sent is the run's truth.
#pragma once

#include <filesystem>
#include <memory>

#include "absl/status/statusor.h"
#include "crash_restart/services.hpp"

namespace soak {

class Feeder {
 public:
  // Opens both services' stores where WHIZBANG_CRASH_STORES says (creating their tables).
  static absl::StatusOr<std::unique_ptr<Feeder>> open(const std::filesystem::path& data_dir);

  // Sends PlaceOrder for the order numbered `index` (OrderLedger's id and quantity); returns
  // once it committed.
  absl::Status send(int index);

 private:
  explicit Feeder(std::unique_ptr<crash_restart::Services> services)
      : services_(std::move(services)) {}
  std::unique_ptr<crash_restart::Services> services_;
};

}  // namespace soak
