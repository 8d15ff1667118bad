// The orders a soak run sent, when, and which of them came back done (the sales order book shows
// the order shipped): end-to-end latency per order, and the latencies of a report window.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace soak {

class OrderLedger {
 public:
  // "soak-0000042": the id of the order numbered `index` (sales' orders key, the journal's key).
  static std::string order_id(int index) {
    char id[24];
    std::snprintf(id, sizeof id, "soak-%07d", index);
    return id;
  }
  static std::optional<int> index_of(std::string_view order_id) {
    if (order_id.size() != 12 || order_id.substr(0, 5) != "soak-") return std::nullopt;
    int index = 0;
    for (const char digit : order_id.substr(5)) {
      if (digit < '0' || digit > '9') return std::nullopt;
      index = index * 10 + (digit - '0');
    }
    return index;
  }
  // Quantities cycle 1..5: the totals the services' own tables must show are exact only when
  // no order was applied twice or lost.
  static int quantity(int index) { return 1 + index % 5; }

  int sent() const { return static_cast<int>(sent_at_us_.size()); }
  int done() const { return done_; }
  std::int64_t quantity_sent() const {
    std::int64_t total = 0;
    for (int i = 0; i < sent(); ++i) total += quantity(i);
    return total;
  }

  void record_sent(std::int64_t at_us) {
    sent_at_us_.push_back(at_us);
    done_at_us_.push_back(-1);
  }
  // The order came back done at `at_us`; false when it is no order of this run. Seen again
  // (the poll windows overlap): nothing changes.
  bool record_done(int index, std::int64_t at_us) {
    if (index < 0 || index >= sent()) return false;
    std::int64_t& done_at = done_at_us_[static_cast<std::size_t>(index)];
    if (done_at >= 0) return true;
    done_at = at_us;
    ++done_;
    window_ms_.push_back(static_cast<double>(at_us - sent_at_us_[static_cast<std::size_t>(index)]) /
                         1000.0);
    return true;
  }
  // When the order numbered `index` was sent and came back (-1: not yet), unix micros.
  std::int64_t sent_at_us(int index) const { return sent_at_us_[static_cast<std::size_t>(index)]; }
  std::int64_t done_at_us(int index) const { return done_at_us_[static_cast<std::size_t>(index)]; }
  // The latencies (ms) of the orders that came back since the last call.
  std::vector<double> take_window() {
    std::vector<double> window;
    window.swap(window_ms_);
    return window;
  }

 private:
  std::vector<std::int64_t> sent_at_us_;
  std::vector<std::int64_t> done_at_us_;
  std::vector<double> window_ms_;
  int done_ = 0;
};

// The `percent` percentile (nearest rank) of `values`; -1 when there are none.
inline double percentile(std::vector<double> values, double percent) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  const double rank = percent / 100.0 * static_cast<double>(values.size());
  std::size_t index = static_cast<std::size_t>(rank);
  if (static_cast<double>(index) < rank) ++index;  // ceil
  return values[index == 0 ? 0 : std::min(index, values.size()) - 1];
}

}  // namespace soak
