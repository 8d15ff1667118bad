#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

namespace soak {
namespace {

std::string fixed(double value, int decimals) {
  if (value < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

double mib(std::int64_t bytes) { return bytes < 0 ? -1 : static_cast<double>(bytes) / 1048576; }

std::int64_t total(const std::map<std::string, std::int64_t>& sizes) {
  std::int64_t sum = 0;
  for (const auto& [table, bytes] : sizes) sum += bytes;
  return sum;
}

}  // namespace

Report::Report(std::filesystem::path out_dir, std::vector<std::string> services,
               std::string settings)
    : out_dir_(std::move(out_dir)),
      path_(out_dir_ / "report.md"),
      services_(std::move(services)),
      settings_(std::move(settings)) {
  std::ofstream minutes(out_dir_ / "minutes.tsv");
  minutes << "# minute\tsent\tdone";
  for (const std::string& service : services_) {
    minutes << '\t' << service << "_rss_mib\t" << service << "_fds";
  }
  minutes << "\twal_mib\twh_mib\toutbox\tinbox\tperspective\tbacklog\tp50_ms\tp99_ms\n";
  std::ofstream samples(out_dir_ / "samples.tsv");
  samples << "# seconds";
  for (const std::string& service : services_) {
    samples << '\t' << service << "_rss_mib\t" << service << "_fds";
  }
  samples << '\n';
  std::cout << header() << std::flush;
}

std::string Report::header() const {
  std::string line = "| min | sent | done |";
  std::string rule = "| ---: | ---: | ---: |";
  for (const std::string& service : services_) {
    line += " " + service + " RSS MiB | " + service + " fds |";
    rule += " ---: | ---: |";
  }
  line += " WAL MiB | wh_* MiB | outbox | inbox | persp. | p50 ms | p99 ms | events |\n";
  rule += " ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  return line + rule;
}

std::string Report::format(const ReportRow& row) const {
  // Appended piece by piece: g++ 12 -O3 reports a false -Wrestrict on "literal" + std::string&&.
  std::string line = "| ";
  line.append(fixed(row.at_s / 60, 1)).append(" | ").append(std::to_string(row.sent));
  line.append(" | ").append(std::to_string(row.done)).append(" |");
  for (const ServiceColumns& service : row.services) {
    // The incarnation in parentheses from the second on: a restarted process's new series.
    const std::string incarnation =
        service.incarnation > 1 ? " (#" + std::to_string(service.incarnation) + ")" : "";
    line.append(" ").append(fixed(static_cast<double>(service.sample.rss_kib) / 1024, 1));
    line.append(incarnation).append(" | ");
    line.append(service.sample.fds < 0 ? "-" : std::to_string(service.sample.fds)).append(" |");
  }
  for (const std::string& cell :
       {fixed(mib(row.wal_bytes), 1), fixed(mib(total(row.table_bytes)), 2),
        std::to_string(row.backlog.outbox), std::to_string(row.backlog.inbox),
        std::to_string(row.backlog.perspective), fixed(row.p50_ms, 0), fixed(row.p99_ms, 0),
        row.events}) {
    line.append(" ").append(cell).append(" |");
  }
  line.append("\n");
  return line;
}

std::string Report::tables_section() const {
  std::set<std::string> tables;
  for (const ReportRow& row : rows_) {
    for (const auto& [table, bytes] : row.table_bytes) tables.insert(table);
  }
  std::string text = "\n## Store tables (pg_total_relation_size, KiB, both services)\n\n| min |";
  std::string rule = "| ---: |";
  for (const std::string& table : tables) {
    text += " " + table + " |";
    rule += " ---: |";
  }
  text += "\n" + rule + "\n";
  for (const ReportRow& row : rows_) {
    text.append("| ").append(fixed(row.at_s / 60, 1)).append(" |");
    for (const std::string& table : tables) {
      const auto size = row.table_bytes.find(table);
      text.append(" ")
          .append(size == row.table_bytes.end() ? std::string("-")
                                                : std::to_string(size->second / 1024))
          .append(" |");
    }
    text += "\n";
  }
  return text;
}

void Report::add_row(ReportRow row) {
  std::cout << format(row) << std::flush;
  std::ofstream minutes(out_dir_ / "minutes.tsv", std::ios::app);
  minutes << fixed(row.at_s / 60, 2) << '\t' << row.sent << '\t' << row.done;
  for (const ServiceColumns& service : row.services) {
    minutes << '\t' << fixed(static_cast<double>(service.sample.rss_kib) / 1024, 2) << '\t'
            << service.sample.fds;
  }
  minutes << '\t' << fixed(mib(row.wal_bytes), 2) << '\t' << fixed(mib(total(row.table_bytes)), 3)
          << '\t' << row.backlog.outbox << '\t' << row.backlog.inbox << '\t'
          << row.backlog.perspective << '\t' << row.backlog.total() << '\t'
          << (row.p50_ms < 0 ? "NaN" : fixed(row.p50_ms, 1)) << '\t'
          << (row.p99_ms < 0 ? "NaN" : fixed(row.p99_ms, 1)) << '\n';
  rows_.push_back(std::move(row));
  write("");
}

void Report::add_samples(double at_s, const std::vector<ProcessSample>& samples) {
  std::ofstream out(out_dir_ / "samples.tsv", std::ios::app);
  out << fixed(at_s, 1);
  for (const ProcessSample& sample : samples) {
    out << '\t'
        << (sample.rss_kib < 0 ? "NaN" : fixed(static_cast<double>(sample.rss_kib) / 1024, 2))
        << '\t' << (sample.fds < 0 ? "NaN" : std::to_string(sample.fds));
  }
  out << '\n';
}

void Report::write(const std::string& tail) const {
  std::string text = "# Soak run\n\n" + settings_ + "\n\n## Every interval\n\n" + header();
  for (const ReportRow& row : rows_) text += format(row);
  text += tables_section();
  std::ofstream(path_) << text << tail;
}

void Report::finish(const std::vector<std::string>& incarnations,
                    const std::vector<std::string>& notes,
                    const std::vector<std::string>& failures) {
  std::string tail = "\n## Process incarnations (growth after the warm-up)\n\n";
  for (const std::string& line : incarnations) tail += "- " + line + "\n";
  tail += "\n## Verdict: " + std::string(failures.empty() ? "PASS" : "FAIL") + "\n\n";
  for (const std::string& line : notes) tail += "- " + line + "\n";
  for (const std::string& line : failures) tail += "- FAIL: " + line + "\n";
  write(tail);
}

}  // namespace soak
