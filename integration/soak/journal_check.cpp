#include "journal_check.hpp"

#include <array>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "crash_restart/journal.hpp"

namespace soak {

std::vector<std::string> journal_findings(const std::filesystem::path& journal,
                                          const OrderLedger& ledger, const std::set<pid_t>& killed,
                                          int& repeats) {
  std::vector<std::string> findings;
  // effect -> per order: firings, firings by processes never killed
  std::map<std::string, std::vector<std::array<int, 2>>> fired;
  for (const std::string_view effect : crash_restart::journal::kEffects) {
    fired[std::string(effect)].assign(static_cast<std::size_t>(ledger.sent()), {0, 0});
  }
  std::ifstream in(journal);
  std::string line;
  int strangers = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string effect;
    std::string order;
    pid_t pid = 0;
    if (!(fields >> effect >> order >> pid)) continue;
    const std::optional<int> index = OrderLedger::index_of(order);
    auto counts = fired.find(effect);
    if (counts == fired.end() || !index || *index >= ledger.sent()) {
      ++strangers;
      continue;
    }
    std::array<int, 2>& count = counts->second[static_cast<std::size_t>(*index)];
    ++count[0];
    if (!killed.contains(pid)) ++count[1];
  }
  if (strangers > 0) {
    findings.push_back(std::to_string(strangers) + " journal lines for no order this run sent");
  }
  repeats = 0;
  for (const auto& [effect, orders] : fired) {
    int missing = 0;
    int twice = 0;
    for (const std::array<int, 2>& count : orders) {
      missing += count[0] == 0 ? 1 : 0;
      twice += count[1] > 1 ? 1 : 0;
      repeats += count[0] > 1 && count[1] <= 1 ? count[0] - 1 : 0;
    }
    if (missing > 0)
      findings.push_back(effect + " never happened for " + std::to_string(missing) + " orders");
    if (twice > 0) {
      findings.push_back(effect + " happened more than once in processes never killed for " +
                         std::to_string(twice) + " orders");
    }
  }
  return findings;
}

}  // namespace soak
