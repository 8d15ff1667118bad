#include "soak_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>

#include "verdicts.hpp"

namespace soak {
namespace {

constexpr std::size_t kSales = 1;       // the processes' order: fulfilment first (its queues exist
constexpr std::size_t kFulfilment = 0;  // before sales publishes what they take)

std::int64_t unix_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return text;
}

}  // namespace

SoakRun::SoakRun(SoakOptions options)
    : options_(std::move(options)), data_dir_(options_.out_dir / "run") {
  const std::string prefix = "soak" + std::to_string(static_cast<long>(getpid()));
  schemas_ = {prefix + "_sales", prefix + "_fulfilment"};
}

double SoakRun::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

absl::Status SoakRun::set_up() {
  std::error_code error;
  std::filesystem::remove_all(data_dir_, error);
  std::filesystem::create_directories(data_dir_, error);
  if (error) return absl::InternalError("cannot create " + data_dir_.string());
  std::ofstream(options_.out_dir / "kills.gp");  // empty until the run ends: no stale lines
  auto probe = PgProbe::connect(options_.postgres);
  if (!probe.ok()) return probe.status();
  probe_ = *std::move(probe);
  for (const std::string* schema : {&schemas_.sales, &schemas_.fulfilment}) {
    if (absl::Status made = probe_->execute("SET client_min_messages = warning; DROP SCHEMA IF "
                                            "EXISTS " +
                                            *schema + " CASCADE; CREATE SCHEMA " + *schema);
        !made.ok()) {
      return made;
    }
  }
  // Where every service instance keeps its rows, the driver's feeder and the processes alike.
  const std::string stores = with_search_path(
      options_.postgres, schemas_.sales.substr(0, schemas_.sales.find('_')) + "_{service}");
  setenv("WHIZBANG_CRASH_STORES", stores.c_str(), 1);
  // The feeder first: it creates both stores' tables before any process opens them.
  auto feeder = Feeder::open(data_dir_);
  if (!feeder.ok()) return feeder.status();
  feeder_ = *std::move(feeder);
  char settings[768];
  std::snprintf(
      settings, sizeof settings,
      "Started %s. %.1f min at %.1f orders/s (each order: PlaceOrder handled in sales, OrderPlaced "
      "and OrderShipped across RabbitMQ, both services on PostgreSQL schemas %s and %s); a "
      "SIGKILL and restart every %lld s, alternating sales and fulfilment; a row every %lld s; "
      "RSS and fds sampled every %lld s, judged per process incarnation after a warm-up of %lld "
      "s (median of the last 3 samples against the first 3, limit +%.0f%%). Latency: the order "
      "sent (the send called) to the order shown shipped in sales' order book.",
      utc_now().c_str(), static_cast<double>(options_.duration.count()) / 60, options_.rate,
      schemas_.sales.c_str(), schemas_.fulfilment.c_str(),
      static_cast<long long>(options_.kill_every.count()),
      static_cast<long long>(options_.report_every.count()),
      static_cast<long long>(options_.sample_every.count()),
      static_cast<long long>(options_.warm_up.count()), options_.growth_limit * 100);
  report_ = std::make_unique<Report>(options_.out_dir,
                                     std::vector<std::string>{"sales", "fulfilment"}, settings);
  processes_ = std::make_unique<ServiceProcesses>(options_.worker, data_dir_, options_.amqp_url,
                                                  std::vector<std::string>{"fulfilment", "sales"});
  started_ = std::chrono::steady_clock::now();
  return processes_->start_all(0);
}

void SoakRun::poll_done() {
  auto rows = probe_->rows("SELECT model_data::jsonb->>'order_id', updated_at FROM " +
                           schemas_.sales + ".wh_perspective_models WHERE updated_at >= " +
                           std::to_string(done_watermark_us_ - 10'000'000) +
                           " AND (model_data::jsonb->>'shipped')::int >= 1");
  if (!rows.ok()) {
    events_ += "poll failed: " + std::string(rows.status().message()) + "; ";
    return;
  }
  for (const std::vector<std::string>& row : *rows) {
    const std::int64_t at = std::atoll(row[1].c_str());
    done_watermark_us_ = std::max(done_watermark_us_, at);
    const std::optional<int> index = OrderLedger::index_of(row[0]);
    if (!index || !ledger_.record_done(*index, at)) {
      failures_.push_back("the order book shows " + row[0] + ", an order this run never sent");
    }
  }
}

void SoakRun::sample_processes(double now_s) {
  if (absl::Status sampled = processes_->sample(now_s); !sampled.ok()) {
    failures_.emplace_back(sampled.message());
    events_ += std::string(sampled.message()) + "; ";
  }
  std::vector<ProcessSample> samples;
  for (const std::size_t index : {kSales, kFulfilment}) {
    const Incarnation& incarnation = processes_->current(index);
    samples.push_back(incarnation.samples.empty() ? ProcessSample{now_s, -1, -1}
                                                  : incarnation.samples.back());
  }
  report_->add_samples(now_s, samples);
}

void SoakRun::report_row(double now_s) {
  ReportRow row;
  row.at_s = now_s;
  row.sent = ledger_.sent();
  row.done = ledger_.done();
  for (const std::size_t index : {kSales, kFulfilment}) {
    const Incarnation& incarnation = processes_->current(index);
    ServiceColumns columns;
    columns.incarnation = incarnation.number;
    if (!incarnation.samples.empty()) columns.sample = incarnation.samples.back();
    row.services.push_back(columns);
  }
  const std::vector<std::string> schemas = {schemas_.sales, schemas_.fulfilment};
  if (auto wal = probe_->wal_bytes(); wal.ok()) row.wal_bytes = *wal;
  if (auto tables = probe_->store_table_bytes(schemas); tables.ok()) row.table_bytes = *tables;
  if (auto backlog = probe_->backlog(schemas); backlog.ok()) {
    row.backlog = *backlog;
  } else {
    events_ += "backlog: " + std::string(backlog.status().message()) + "; ";
  }
  const std::vector<double> window = ledger_.take_window();
  row.window_orders = window.size();
  row.p50_ms = percentile(window, 50);
  row.p99_ms = percentile(window, 99);
  row.events = events_;
  if (row.events.size() >= 2 && row.events.compare(row.events.size() - 2, 2, "; ") == 0) {
    row.events.resize(row.events.size() - 2);
  }
  events_.clear();
  backlogs_.push_back(row.backlog.total());
  report_->add_row(std::move(row));
}

bool SoakRun::drain(const volatile std::sig_atomic_t& interrupted) {
  const double until = now_s() + static_cast<double>(options_.drain_timeout.count());
  const std::vector<std::string> schemas = {schemas_.sales, schemas_.fulfilment};
  double next_sample = now_s();
  while (!interrupted && now_s() < until) {
    poll_done();
    if (now_s() >= next_sample) {
      sample_processes(now_s());
      next_sample += static_cast<double>(options_.sample_every.count());
    }
    // Done: every order back, nothing owed, and each store has received both events of every
    // order (a copy still on the broker is in no store: it would land after the stop).
    bool delivered = true;
    for (const std::string& schema : schemas) {
      auto received =
          probe_->scalar("SELECT count(*) FROM " + schema + ".wh_message_deduplication");
      delivered = delivered && received.ok() && *received >= 2 * std::int64_t{ledger_.sent()};
    }
    auto backlog = probe_->backlog(schemas);
    if (ledger_.done() == ledger_.sent() && backlog.ok() && backlog->total() == 0 && delivered) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // polling the stores
  }
  return false;
}

std::vector<std::string> SoakRun::judge() {
  std::vector<std::string> lines;
  for (const Incarnation& incarnation : processes_->incarnations()) {
    const GrowthVerdict verdict = judge_growth(
        incarnation, static_cast<double>(options_.warm_up.count()), options_.growth_limit);
    char head[160];
    std::snprintf(
        head, sizeof head, "%s #%d (pid %ld, %.1f to %.1f min%s): ", incarnation.service.c_str(),
        incarnation.number, static_cast<long>(incarnation.pid), incarnation.started_s / 60,
        (incarnation.samples.empty() ? incarnation.started_s : incarnation.samples.back().at_s) /
            60,
        incarnation.killed ? ", killed" : "");
    lines.push_back(head + verdict.summary);
    if (verdict.grew) failures_.push_back(head + verdict.summary);
  }
  if (auto backlog = judge_backlog(backlogs_, options_.rate)) failures_.push_back(*backlog);
  return lines;
}

void SoakRun::write_orders() const {
  std::ofstream(options_.out_dir / "kills.gp") << kill_lines_;
  std::ofstream out(options_.out_dir / "orders.tsv");
  out << "# order\tsent_at_us\tdone_at_us\tlatency_ms\n";
  for (int i = 0; i < ledger_.sent(); ++i) {
    const std::int64_t done = ledger_.done_at_us(i);
    out << i << '\t' << ledger_.sent_at_us(i) << '\t' << done << '\t'
        << (done < 0 ? -1.0 : static_cast<double>(done - ledger_.sent_at_us(i)) / 1000) << '\n';
  }
}

int SoakRun::run(const volatile std::sig_atomic_t& interrupted) {
  if (absl::Status ready = set_up(); !ready.ok()) {
    std::fprintf(stderr, "soak: %s\n", std::string(ready.message()).c_str());
    return 2;
  }
  const double duration = static_cast<double>(options_.duration.count());
  const double kill_every = static_cast<double>(options_.kill_every.count());
  const double report_every = static_cast<double>(options_.report_every.count());
  const double sample_every = static_cast<double>(options_.sample_every.count());
  double next_poll = 1;
  double next_sample = sample_every;
  double next_report = report_every;
  int kills = 0;
  for (double t = now_s(); !interrupted && t < duration; t = now_s()) {
    // Orders due by now (the i-th at i / rate), sent one after another: a slow moment is caught
    // up, so the offered rate holds over the run.
    while (ledger_.sent() < static_cast<int>(options_.rate * t) + 1 && !interrupted) {
      // Sent when the send began: the receptor's transaction is part of the order's way.
      const std::int64_t sending_at = unix_micros();
      if (absl::Status sent = feeder_->send(ledger_.sent()); !sent.ok()) {
        // The first refusal is told; the order is tried again, and the count says how often.
        if (send_failures_++ == 0) {
          failures_.push_back("sending " + OrderLedger::order_id(ledger_.sent()) + ": " +
                              std::string(sent.message()));
        }
        break;
      }
      ledger_.record_sent(sending_at);
    }
    if (t >= next_poll) {
      poll_done();
      next_poll += 1;
    }
    if (t >= next_sample) {
      sample_processes(t);
      next_sample += sample_every;
    }
    if (t >= next_report) {  // before a kill due at the same moment: the row shows the victim
      report_row(t);
      next_report += report_every;
    }
    if (kill_every > 0 && t >= (kills + 1) * kill_every) {
      const std::size_t victim = kills % 2 == 0 ? kSales : kFulfilment;
      const pid_t pid = processes_->current(victim).pid;
      if (absl::Status killed = processes_->kill_and_restart(victim, t); !killed.ok()) {
        failures_.emplace_back(killed.message());
      }
      kill_lines_ += "set arrow from " + std::to_string(t / 60) + ", graph 0 to " +
                     std::to_string(t / 60) + ", graph 1 nohead dashtype 2 linecolor rgb 'gray'\n";
      events_ += "SIGKILL " + processes_->service(victim) + " " + std::to_string(pid) + " -> " +
                 std::to_string(processes_->current(victim).pid) + "; ";
      ++kills;
    }
    const double next = std::min(
        {static_cast<double>(ledger_.sent()) / options_.rate, next_poll, next_sample, next_report});
    if (next > now_s()) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(next - now_s(), 0.1)));
    }
  }
  const double stopped_at = now_s();
  const bool drained = !interrupted && drain(interrupted);
  events_ += drained ? "drained in " + std::to_string(static_cast<int>(now_s() - stopped_at)) + " s"
                     : "not drained";
  report_row(now_s());
  if (interrupted) {
    report_->finish({}, {}, {"interrupted"});
    return 130;
  }
  std::vector<std::string> notes;
  if (!drained) {
    failures_.push_back(std::to_string(ledger_.sent() - ledger_.done()) + " of " +
                        std::to_string(ledger_.sent()) + " orders never came back within " +
                        std::to_string(options_.drain_timeout.count()) +
                        " s of the last one, or rows are still owed (the last row's backlog)");
  }
  if (send_failures_ > 1) {
    failures_.push_back("sending failed " + std::to_string(send_failures_) + " times in all");
  }
  if (absl::Status stopped = processes_->stop_all(30); !stopped.ok()) {
    failures_.emplace_back(stopped.message());
  }
  int repeats = 0;
  const std::vector<std::string> findings = exactly_once_findings(
      *probe_, schemas_, ledger_, processes_->journal(), processes_->killed_pids(), repeats);
  failures_.insert(failures_.end(), findings.begin(), findings.end());
  const std::vector<std::string> incarnations = judge();
  notes.push_back(
      std::to_string(ledger_.sent()) + " orders sent, " + std::to_string(ledger_.done()) +
      " came back; " + std::to_string(processes_->killed_pids().size()) + " processes killed; " +
      "side effects repeated by processes killed mid-handling: " + std::to_string(repeats));
  if (findings.empty()) {
    notes.push_back(
        "every order once in sales' orders, accounts, loyalty and order book, in "
        "fulfilment's shipments and stock, and every receptor's journaled effect once");
  }
  report_->finish(incarnations, notes, failures_);
  write_orders();
  std::cout << "\nsoak: " << (failures_.empty() ? "PASS" : "FAIL") << "; report in "
            << report_->path().string() << "\n";
  for (const std::string& line : notes) std::cout << "  " << line << "\n";
  for (const std::string& line : failures_) std::cout << "  FAIL: " << line << "\n";
  if (failures_.empty()) {
    for (const std::string* schema : {&schemas_.sales, &schemas_.fulfilment}) {
      (void)probe_->execute("SET client_min_messages = warning; DROP SCHEMA " + *schema +
                            " CASCADE");
    }
  }
  return failures_.empty() ? 0 : 1;
}

}  // namespace soak
