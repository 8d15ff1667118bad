#include "shop_demo.hpp"

#include <ostream>

#include <whizbang/ids/derived_identity.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/testing/inbox_faults.hpp>

#include "shop/messages.hpp"
#include "shop/orders_table.hpp"
#include "shop/registries.hpp"
#include "whizbang_messages.hpp"

namespace shop {

// One service: its journal, its metrics, its store and its host.
struct ShopDemo::Service {
  explicit Service(std::string service_name) : name(service_name), journal(service_name) {}

  std::string name;
  ServiceJournal journal;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics =
      std::make_shared<whizbang::InMemoryMetrics>();
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  // The crash the demo stages in this service's inbox, if it stages one there.
  std::unique_ptr<whizbang::fault_injection::ScopedInboxFaults> faults;
  std::unique_ptr<whizbang::ServiceHost> host;

  std::int64_t deduplicated(std::string_view type) const {
    return metrics->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                            whizbang::metric_names::kOutboxEmissionDeduplicated,
                            {{whizbang::metric_names::kMessageTypeTag, type}});
  }
};

ShopDemo::ShopDemo(std::filesystem::path data_dir, std::ostream& out)
    : data_dir_(std::move(data_dir)),
      out_(out),
      mailer_(data_dir_ / "emails.txt"),
      log_sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10000)),
      logger_(std::make_shared<spdlog::logger>("shop", log_sink_)) {
  logger_->set_level(spdlog::level::debug);
}

ShopDemo::~ShopDemo() = default;

void ShopDemo::check(bool ok, const std::string& what) {
  out_ << (ok ? "  ok    " : "  WRONG ") << what << "\n";
  if (!ok) ++failures_;
}

int ShopDemo::log_count(std::string_view text) const {
  int n = 0;
  for (const std::string& line : log_sink_->last_formatted()) {
    n += line.find(text) != std::string::npos ? 1 : 0;
  }
  return n;
}

std::unique_ptr<ShopDemo::Service> ShopDemo::make_service(const std::string& name,
                                                          const whizbang::Registry& registry,
                                                          bool crash_first_reservation) {
  auto service = std::make_unique<Service>(name);
  whizbang::StoreOptions store_options;
  store_options.instance.service_name = name;
  store_options.metrics = service->metrics;
  store_options.logger = logger_;
  // Simulated time, so the demo can let a lease lapse without waiting five minutes.
  store_options.now = [this] {
    return whizbang::Clock::now() + std::chrono::milliseconds(clock_offset_ms_.load());
  };
  auto store =
      whizbang::SqliteWorkStore::open((data_dir_ / (name + ".db")).string(), store_options);
  if (!store.ok()) {
    out_ << "cannot open the " << name << " store: " << store.status() << "\n";
    return nullptr;
  }
  service->store = *std::move(store);
  if (name == "orders") {
    // Its own table, next to the store's (docs/guide/17-your-data.md).
    if (absl::Status created = create_orders_table(*service->store); !created.ok()) {
      out_ << "cannot create the orders table: " << created << "\n";
      return nullptr;
    }
  }
  service->services.add<Mailer>(mailer_).add<CustomerStats>(stats_).add<ServiceJournal>(
      service->journal);

  whizbang::HostOptions options;
  options.service_name = name;
  options.store = service->store.get();
  options.transport = &transport_;
  options.logger = logger_;
  if (crash_first_reservation) {
    // The reference's shape: emissions and the inbox completion in separate commits, and a
    // crash between them on the first stock reservation (a test seam, not a production option).
    service->faults = std::make_unique<whizbang::fault_injection::ScopedInboxFaults>(
        name, whizbang::fault_injection::InboxFaults{
                  .split_completion = true,
                  .before_completion = [this](const whizbang::WorkItem& item) -> absl::Status {
                    if (item.message_type != "shop::InventoryReserved" || crashed_once_) {
                      return absl::OkStatus();
                    }
                    crashed_once_ = true;
                    return absl::UnavailableError(
                        "simulated crash before the inbox completion committed");
                  }});
  }
  auto host = whizbang::ServiceHost::create(registry, service->services, std::move(options));
  if (!host.ok()) {
    out_ << "cannot start " << name << ": " << host.status() << "\n";
    return nullptr;
  }
  service->host = *std::move(host);
  return service;
}

absl::Status ShopDemo::start() {
  std::error_code ignored;
  std::filesystem::create_directories(data_dir_);
  for (const char* file : {"orders.db", "notifications.db", "emails.txt"}) {
    std::filesystem::remove(data_dir_ / file, ignored);
    std::filesystem::remove(data_dir_ / (std::string(file) + "-wal"), ignored);
    std::filesystem::remove(data_dir_ / (std::string(file) + "-shm"), ignored);
  }
  orders_ = make_service("orders", orders_registry(), false);
  notifications_ = make_service("notifications", notifications_registry(), true);
  if (!orders_ || !notifications_) return absl::InternalError("a service did not start");
  for (Service* service : {orders_.get(), notifications_.get()}) {
    // Subscribed, not started: the demo steps the workers itself so the account is deterministic.
    if (absl::Status status = service->host->subscribe(); !status.ok()) return status;
  }
  return absl::OkStatus();
}

void ShopDemo::settle() {
  for (int round = 0; round < 5; ++round) {
    for (Service* service : {orders_.get(), notifications_.get()}) {
      auto cycle = service->host->run_once();
      if (!cycle.ok()) out_ << "  " << service->name << " cycle failed: " << cycle.status() << "\n";
    }
  }
}

int ShopDemo::run() {
  if (absl::Status status = start(); !status.ok()) {
    out_ << "start-up failed: " << status << "\n";
    return 1;
  }
  out_ << "Whizbang e-commerce sample: services 'orders' and 'notifications', stores in "
       << data_dir_.string() << "\n\n";

  // 1. A command, handled where it is sent; what its receptor returns cascades.
  CreateOrder command;
  command.order_id = "order-1001";
  command.customer_id = "customer-42";
  command.amount = 129.90;
  command.lines = {{"sku-kettle", 1}, {"sku-filter", 1}};
  auto receipt = orders_->host->dispatcher().send(command);
  if (!receipt.ok()) {
    out_ << "send failed: " << receipt.status() << "\n";
    return 1;
  }
  const whizbang::MessageId inbound = receipt->message_id;
  auto derived = [&](std::string_view service, std::string_view handler, std::string_view type,
                     std::int64_t ordinal, const whizbang::MessageId& source) {
    return *whizbang::EmissionIdentity::derive(source.uuid(), service, handler, type, ordinal);
  };
  const whizbang::MessageId order_created =
      derived("orders", "shop::CreateOrderReceptor", "shop::OrderCreated", 0, inbound);
  const whizbang::MessageId send_invoice =
      derived("orders", "shop::CreateOrderReceptor", "shop::SendInvoice", 1, inbound);
  out_ << "1. orders: send(CreateOrder order-1001) -> " << receipt->destination << "\n"
       << "   CreateOrder id (minted)            " << inbound.to_string() << "\n"
       << "   OrderCreated id (derived, ordinal 0) " << order_created.to_string()
       << "  route Both: local receptors + outbox\n"
       << "   SendInvoice id (derived, ordinal 1)  " << send_invoice.to_string()
       << "  command: handled locally\n"
       << "   InvoiceReceptor -> InvoiceSent (Local: event store) + OrderAudited "
          "(EventStoreOnly)\n"
       << "   ReserveStock -> 2 x InventoryReserved (Route::Both)\n\n";

  // 2. The workers move committed rows: orders' outbox -> transport -> notifications' inbox.
  settle();
  out_ << "2. workers ran: outbox -> transport -> inbox, until nothing moved\n";
  out_ << "   notifications crashed once before completing an InventoryReserved handling; its\n"
       << "   emission (CustomerNotified) had already committed\n\n";

  // 3. The lease of the crashed handling lapses; the row is re-offered and handled again.
  clock_offset_ms_ += 10 * 60 * 1000;
  settle();
  out_ << "3. ten simulated minutes later the lapsed lease re-offered the row: the retry\n"
       << "   re-derived the same CustomerNotified id and the store dropped the duplicate\n\n";

  out_ << "Account:\n";
  check(orders_->journal.count("InvoiceReceptor") == 1, "the invoice command ran once in orders");
  check(orders_->journal.count("ReserveStock") == 1, "stock was reserved once");
  check(transport_.publish_count(order_created) == 1,
        "OrderCreated left orders once, with the derived id " + order_created.to_string());
  check(orders_->journal.count("OrderCounter") == 1 &&
            notifications_->journal.count("OrderCounter") == 1,
        "OrderCounter (shared receptor) ran once in each service");
  check(mailer_.sent() == 1 && orders_->journal.count("OrderConfirmationEmail") == 1,
        "OrderConfirmationEmail (once_across_services) sent one e-mail, from orders");
  check(log_count("[EventId 18 ReceptorAlreadyFiredSkip]") == 1,
        "the guardrail skipped the e-mail in notifications (EventId 18)");
  check(orders_->journal.count("CustomerStatsUpdater") == 1 &&
            notifications_->journal.count("CustomerStatsUpdater") == 1 &&
            stats_.orders("customer-42") == 1,
        "CustomerStatsUpdater (idempotent) ran in both services; the read model counts 1 order");
  check(notifications_->journal.count("NotifyCustomer") == 3,
        "NotifyCustomer ran 3 times for 2 reservations (one retry after the crash)");
  check(notifications_->deduplicated("shop::CustomerNotified") == 1,
        "emission_deduplicated{message_type=shop::CustomerNotified} = 1");
  int republished = 0;
  for (const auto& published : transport_.published()) {
    if (published.message.message_type == "shop::CustomerNotified") {
      republished += static_cast<int>(transport_.publish_count(published.message.message_id)) - 1;
    }
  }
  check(republished == 0, "0 CustomerNotified rows republished");
  check(orders_->journal.count("MarkCustomerNotified") == 2,
        "orders heard of both notifications exactly once");
  const absl::StatusOr<OrderRow> order_row = read_order_row(*orders_->store, "order-1001");
  check(order_row.ok() && order_row->invoice_number == "INV-order-1001" &&
            order_row->notifications == 2,
        "orders' own table (written by its receptors in their handlings' transactions) holds "
        "order-1001 once, invoiced, with 2 notifications");
  auto stream = orders_->store->read_stream(inbound.uuid());
  check(stream.ok() && stream->size() == 7,
        "orders' event store holds the order's stream: OrderCreated, 2 x InventoryReserved, "
        "InvoiceSent, OrderAudited and the 2 CustomerNotified it received (7 events)");
  auto summary =
      orders_->store->load_perspective_model("shop::OrderSummaryPerspective", inbound.uuid());
  const std::string summary_json =
      summary.ok() && summary->has_value() ? (*summary)->model_json : std::string("(none)");
  check(summary_json.find("\"items_reserved\":2") != std::string::npos &&
            summary_json.find("\"invoice_number\":\"INV-order-1001\"") != std::string::npos &&
            summary_json.find("\"customer_notifications\":2") != std::string::npos,
        "the OrderSummary perspective applied the order's events: " + summary_json);
  check(log_count("[CASCADE] Emission id derived from source " + inbound.to_string() +
                  " ordinal 0: " + order_created.to_string()) == 1,
        "the derivation was logged at Debug (EventId 100)");

  out_ << "\nInspect the stores: whizbang store inspect " << (data_dir_ / "orders.db").string()
       << "\n"
       << (failures_ == 0 ? "sample: ok\n" : "sample: FAILED\n");
  return failures_;
}

}  // namespace shop
