#include "distributed_demo.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <whizbang/ids/derived_identity.hpp>
#include <whizbang/store/open_work_store.hpp>
#include <whizbang/store/store_inspector.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "shop/orders_table.hpp"
#include "shop/services.hpp"

namespace shop {
namespace {

using namespace std::chrono_literals;

constexpr int kCrashExitCode = 70;  // shop_service's simulated crash

// A free TCP port on the loopback (bound, read, released).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int port = 0;
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// The exit code of `pid` if it has ended (reaped), else nullopt.
std::optional<int> ended(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return std::nullopt;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The schema a service's rows live in on the PostgreSQL server (the store creates it).
std::string schema_of(const std::string& service) { return "shop_" + service; }

// `conninfo` with its search_path set to `schema`, for a URI or a key=value conninfo.
std::string with_search_path(const std::string& conninfo, const std::string& schema) {
  if (conninfo.rfind("postgres", 0) == 0) {
    return conninfo + (conninfo.find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + schema;
  }
  return conninfo + " options='-csearch_path=" + schema + "'";
}

// 32 random bytes, base64: the signing key of one run.
std::string random_key() {
  std::random_device device;
  std::string bytes(32, '\0');
  for (char& byte : bytes) byte = static_cast<char>(device() & 0xFF);
  return absl::Base64Escape(bytes);
}

}  // namespace

DistributedDemo::DistributedDemo(std::filesystem::path service_binary, std::string amqp_url,
                                 std::filesystem::path data_dir, std::string postgres_conninfo,
                                 std::ostream& out)
    : service_binary_(std::move(service_binary)),
      amqp_url_(std::move(amqp_url)),
      data_dir_(std::move(data_dir)),
      postgres_conninfo_(std::move(postgres_conninfo)),
      out_(out) {}

DistributedDemo::~DistributedDemo() {
  // A run that failed half-way: no service process outlives the demo.
  for (Process* process : {&orders_, &notifications_}) {
    if (process->pid <= 0) continue;
    kill(process->pid, SIGKILL);
    waitpid(process->pid, nullptr, 0);
  }
}

void DistributedDemo::check(bool ok, const std::string& what) {
  out_ << (ok ? "  ok    " : "  WRONG ") << what << "\n";
  if (!ok) ++failures_;
}

std::string DistributedDemo::store_location(const std::string& service) const {
  if (postgres_conninfo_.empty()) return (data_dir_ / (service + ".db")).string();
  return with_search_path(postgres_conninfo_, schema_of(service));
}

bool DistributedDemo::remove_previous_run() {
  std::error_code ignored;
  std::filesystem::create_directories(data_dir_);
  for (const char* file :
       {"orders.db", "notifications.db", "emails.txt", "journal-orders.txt",
        "journal-notifications.txt", "notifications-crashed", "orders.log", "notifications.log"}) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(data_dir_ / (std::string(file) + suffix), ignored);
    }
  }
  if (postgres_conninfo_.empty()) return true;
  std::unique_ptr<PGconn, decltype(&PQfinish)> admin(PQconnectdb(postgres_conninfo_.c_str()),
                                                     &PQfinish);
  std::unique_ptr<PGresult, decltype(&PQclear)> dropped(
      PQstatus(admin.get()) == CONNECTION_OK
          ? PQexec(admin.get(),
                   ("SET client_min_messages = warning; DROP SCHEMA IF EXISTS " +
                    schema_of("orders") + ", " + schema_of("notifications") + " CASCADE")
                       .c_str())
          : nullptr,
      &PQclear);
  if (PQresultStatus(dropped.get()) != PGRES_COMMAND_OK) {
    // libpq's message names the server, never the conninfo's password.
    out_ << "cannot reset the sample's PostgreSQL schemas: " << PQerrorMessage(admin.get());
    return false;
  }
  return true;
}

bool DistributedDemo::start(Process& process, bool send_demo_order) {
  if (process.http_port == 0) process.http_port = free_port();
  const std::string store = store_location(process.service);
  const std::string log = (data_dir_ / (process.service + ".log")).string();
  const std::string port = std::to_string(process.http_port);
  const std::string data_dir = data_dir_.string();
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    // Both services sign what they publish and refuse what is not signed with the run's key
    // (WHIZBANG_SIGNING_KEYS, set by run(); docs/guide/16-security.md).
    std::vector<const char*> args = {service_binary_.c_str(),
                                     "--data-dir",
                                     data_dir.c_str(),
                                     "--service",
                                     process.service.c_str(),
                                     "--store",
                                     store.c_str(),
                                     "--transport",
                                     amqp_url_.c_str(),
                                     "--http-port",
                                     port.c_str(),
                                     "--signing",
                                     "require"};
    if (send_demo_order) args.push_back("--send-demo-order");
    args.push_back(nullptr);
    execv(service_binary_.c_str(), const_cast<char* const*>(args.data()));
    _exit(127);
  }
  process.pid = pid;
  return await_ready(process);
}

bool DistributedDemo::await_ready(const Process& process) {
  // Ready is a state the process reaches; asked until it says so (or ends).
  httplib::Client client("127.0.0.1", process.http_port);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto response = client.Get("/readyz");
    if (response && response->status == 200) return true;
    int status = 0;
    if (waitpid(process.pid, &status, WNOHANG) == process.pid) return false;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

std::string DistributedDemo::scrape_metrics(const Process& process) {
  httplib::Client client("127.0.0.1", process.http_port);
  auto response = client.Get("/metrics");
  return response && response->status == 200 ? response->body : std::string();
}

bool DistributedDemo::stop(Process& process) {
  if (process.pid <= 0) return false;
  kill(process.pid, SIGTERM);
  int status = 0;
  const bool clean = waitpid(process.pid, &status, 0) == process.pid && WIFEXITED(status) &&
                     WEXITSTATUS(status) == 0;
  process.pid = 0;
  return clean;
}

bool DistributedDemo::signed_throughout() const {
  // Both applied --signing require with the run's key, and neither refused an envelope: every
  // message of the account crossed signed (an unsigned one would have been dead-lettered).
  return count_in_log("orders", "orders: envelope signing Require, keys demo") == 1 &&
         count_in_log("notifications", "notifications: envelope signing Require, keys demo") == 2 &&
         count_in_log("orders", "[EventId 160") + count_in_log("notifications", "[EventId 160") ==
             0;
}

int DistributedDemo::count_in_log(const std::string& service, const std::string& text) const {
  return count_of(file_text(data_dir_ / (service + ".log")), text);
}

bool DistributedDemo::settle(const std::string& order_stream) {
  const auto deadline = std::chrono::steady_clock::now() + 90s;
  auto stream_id = whizbang::Uuid::parse(order_stream);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::optional<int> code = ended(notifications_.pid)) {
      notifications_.pid = 0;
      if (*code != kCrashExitCode || notifications_crashed_) {
        out_ << "notifications ended unexpectedly (exit " << *code << "); see "
             << (data_dir_ / "notifications.log").string() << "\n";
        return false;
      }
      notifications_crashed_ = true;
      out_ << "   notifications crashed (exit 70) before completing an InventoryReserved\n"
           << "   handling, after its CustomerNotified emission had committed; restarted\n";
      if (!start(notifications_, false)) return false;
    }
    if (ended(orders_.pid)) {
      orders_.pid = 0;
      out_ << "orders ended unexpectedly; see " << (data_dir_ / "orders.log").string() << "\n";
      return false;
    }
    const bool journals_done =
        count_in_journal_file(data_dir_ / "journal-notifications.txt", "NotifyCustomer") >= 3 &&
        count_in_journal_file(data_dir_ / "journal-orders.txt", "MarkCustomerNotified") >= 2;
    if (journals_done && stream_id.ok()) {
      auto orders = whizbang::open_store_inspector(store_location("orders"));
      auto notifications = whizbang::open_store_inspector(store_location("notifications"));
      if (orders.ok() && notifications.ok()) {
        auto orders_counts = (*orders)->counts();
        auto notification_counts = (*notifications)->counts();
        auto stream = (*orders)->read_stream(*stream_id);
        if (orders_counts.ok() && notification_counts.ok() && stream.ok() &&
            orders_counts->outbox == 0 && notification_counts->outbox == 0 &&
            orders_counts->perspective_events == 0 && stream->size() >= 7) {
          return true;
        }
      }
    }
    std::this_thread::sleep_for(100ms);  // polling the stores and journals, not a sync
  }
  out_ << "the work did not settle within 90 s\n";
  return false;
}

int DistributedDemo::run() {
  if (!remove_previous_run()) return -1;
  // A signing key made for this run, passed to both services through the environment (never
  // on a command line, which every user of the machine can read).
  const std::string signing_key = random_key();
  setenv("WHIZBANG_SIGNING_KEYS", ("demo:" + signing_key).c_str(), 1);
  out_ << "Whizbang e-commerce sample, distributed: 'orders' and 'notifications' as two\n"
       << "processes (" << service_binary_.filename().string() << "), "
       << (postgres_conninfo_.empty() ? "SQLite stores in " + data_dir_.string()
                                      : "PostgreSQL stores (schemas " + schema_of("orders") + ", " +
                                            schema_of("notifications") + ")")
       << ", RabbitMQ between them,\n"
       << "envelopes signed (HMAC-SHA256, a key made for this run) and signatures required\n\n";
  // notifications first: its queues must exist before orders publishes what they bind.
  if (!start(notifications_, false)) {
    out_ << "notifications did not become ready; see " << (data_dir_ / "notifications.log").string()
         << "\n";
    return -1;
  }
  out_ << "1. notifications ready (http://127.0.0.1:" << notifications_.http_port << "/readyz)\n";
  if (!start(orders_, true)) {
    out_ << "orders did not become ready; see " << (data_dir_ / "orders.log").string() << "\n";
    return -1;
  }
  out_ << "2. orders ready (http://127.0.0.1:" << orders_.http_port
       << "/readyz); it sent CreateOrder order-1001\n";

  // The command's id: orders prints it once it has sent it, which may be after it became ready
  // (the runner's started hook runs once it serves /readyz).
  const std::string marker = "orders: sent CreateOrder ";
  std::string inbound_text;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (inbound_text.empty() && std::chrono::steady_clock::now() < deadline) {
    if (ended(orders_.pid)) {
      orders_.pid = 0;
      break;
    }
    const std::string orders_log = file_text(data_dir_ / "orders.log");
    const std::size_t at = orders_log.find(marker);
    if (at != std::string::npos && orders_log.size() >= at + marker.size() + 36) {
      inbound_text = orders_log.substr(at + marker.size(), 36);
    } else {
      std::this_thread::sleep_for(20ms);  // polling the log, not a sync
    }
  }
  auto inbound = whizbang::MessageId::parse(inbound_text);
  if (!inbound.ok()) {
    out_ << "orders did not report its CreateOrder id; see its log\n";
    return -1;
  }
  if (!settle(inbound_text)) return -1;
  out_ << "3. the work settled: outboxes empty, the order's stream and perspective complete\n";
  const std::string notification_metrics = scrape_metrics(notifications_);
  const bool orders_stopped = stop(orders_);
  const bool notifications_stopped = stop(notifications_);
  out_ << "4. both stopped with SIGTERM\n\n";

  auto derived = [&](std::string_view type, std::int64_t ordinal) {
    return *whizbang::EmissionIdentity::derive(inbound->uuid(), "orders",
                                               "shop::CreateOrderReceptor", type, ordinal);
  };
  const whizbang::MessageId order_created = derived("shop::OrderCreated", 0);
  const auto orders_journal = data_dir_ / "journal-orders.txt";
  const auto notifications_journal = data_dir_ / "journal-notifications.txt";
  auto in_orders = [&](const char* what) { return count_in_journal_file(orders_journal, what); };
  auto in_notifications = [&](const char* what) {
    return count_in_journal_file(notifications_journal, what);
  };

  out_ << "Account:\n";
  check(orders_stopped && notifications_stopped, "both processes stopped cleanly on SIGTERM");
  check(notifications_crashed_, "notifications crashed once and was restarted");
  check(in_orders("InvoiceReceptor") == 1, "the invoice command ran once in orders");
  check(in_orders("ReserveStock") == 1, "stock was reserved once");
  check(in_orders("OrderCounter") == 1 && in_notifications("OrderCounter") == 1,
        "OrderCounter (shared receptor) ran once in each service");
  check(count_of(file_text(data_dir_ / "emails.txt"), "To: ") == 1 &&
            in_orders("OrderConfirmationEmail") == 1,
        "OrderConfirmationEmail (once_across_services) sent one e-mail, from orders");
  check(count_in_log("notifications", "[EventId 18 ReceptorAlreadyFiredSkip]") == 1,
        "the guardrail skipped the e-mail in notifications (EventId 18)");
  check(in_orders("CustomerStatsUpdater") == 1 && in_notifications("CustomerStatsUpdater") == 1,
        "CustomerStatsUpdater (idempotent) ran in both services");
  check(in_notifications("NotifyCustomer") == 3,
        "NotifyCustomer ran 3 times for 2 reservations (one retry after the crash)");
  check(notification_metrics.find("whizbang_work_coordinator_outbox_emission_deduplicated_total{"
                                  "message_type=\"shop::CustomerNotified\"} 1\n") !=
            std::string::npos,
        "emission_deduplicated{message_type=shop::CustomerNotified} = 1 (notifications' /metrics)");
  check(in_orders("MarkCustomerNotified") == 2, "orders heard of both notifications exactly once");
  {
    auto orders_store = whizbang::open_work_store(store_location("orders"));
    const absl::StatusOr<shop::OrderRow> row =
        orders_store.ok() ? shop::read_order_row(**orders_store, "order-1001")
                          : absl::StatusOr<shop::OrderRow>(orders_store.status());
    check(row.ok() && row->invoice_number == "INV-order-1001" && row->notifications == 2,
          "orders' own table (written by its receptors in their handlings' transactions) holds "
          "order-1001 once, invoiced, with 2 notifications");
  }
  check(signed_throughout(),
        "both services signed and required signatures (key 'demo'); no envelope refused "
        "(EventId 160)");

  whizbang::StoreOptions options;
  options.instance.service_name = "orders";
  auto orders_store = whizbang::open_work_store(store_location("orders"), options);
  if (!orders_store.ok()) {
    out_ << "cannot open the orders store: " << orders_store.status() << "\n";
    return failures_ + 1;
  }
  auto stream = (*orders_store)->read_stream(inbound->uuid());
  check(stream.ok() && stream->size() == 7,
        "orders' event store holds the order's stream: OrderCreated, 2 x InventoryReserved, "
        "InvoiceSent, OrderAudited and the 2 CustomerNotified it received (7 events)");
  auto summary =
      (*orders_store)->load_perspective_model("shop::OrderSummaryPerspective", inbound->uuid());
  const std::string summary_json =
      summary.ok() && summary->has_value() ? (*summary)->model_json : std::string("(none)");
  check(summary_json.find("\"items_reserved\":2") != std::string::npos &&
            summary_json.find("\"invoice_number\":\"INV-order-1001\"") != std::string::npos &&
            summary_json.find("\"customer_notifications\":2") != std::string::npos,
        "the OrderSummary perspective applied the order's events: " + summary_json);
  check(count_in_log("orders", "[CASCADE] Emission id derived from source " + inbound->to_string() +
                                   " ordinal 0: " + order_created.to_string()) == 1,
        "the derivation was logged at Debug (EventId 100)");

  out_ << "\nLogs: " << (data_dir_ / "orders.log").string() << ", "
       << (data_dir_ / "notifications.log").string()
       << "\nInspect the stores: whizbang store inspect "
       // A conninfo may hold a password: named, not printed.
       << (postgres_conninfo_.empty() ? store_location("orders")
                                      : "<the conninfo, search_path " + schema_of("orders") + ">")
       << "\n"
       << (failures_ == 0 ? "sample: ok\n" : "sample: FAILED\n");
  return failures_;
}

}  // namespace shop
