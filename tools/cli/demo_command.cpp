// whizbang demo: what a retry looks like with derived emission ids. Exits non-zero if any of the
// properties it shows does not hold, so it doubles as a smoke check of an installation.
#include <ostream>

#include "cli/command_line.hpp"
#include "whizbang/ids/derived_identity.hpp"
#include "whizbang/ids/emission_sequence.hpp"

namespace whizbang::cli {
namespace {

struct Emission {
  std::string type;
  MessageId id;
};

// One handling of `inbound` by a handler that emits OrderCreated, then SendInvoice.
std::vector<Emission> handle_once(const MessageId& inbound) {
  EmissionSequence sequence;  // fresh per handling, as a retry's fresh envelope is
  std::vector<Emission> out;
  for (const char* type : {"shop::OrderCreated", "shop::SendInvoice"}) {
    const auto id = EmissionIdentity::derive(inbound.uuid(), "orders", "shop::CreateOrderReceptor",
                                             type, sequence.next());
    out.push_back({type, *id});
  }
  return out;
}

int run_demo(const Io& io) {
  const MessageId inbound = MessageId::mint();
  io.out << "inbound CreateOrder          " << inbound.to_string() << "\n";
  const auto first = handle_once(inbound);
  for (const auto& e : first)
    io.out << "  first run emits  " << e.type << "  " << e.id.to_string() << "\n";
  const auto retry = handle_once(inbound);
  bool ok = true;
  for (std::size_t i = 0; i < retry.size(); ++i) {
    const bool same = retry[i].id == first[i].id;
    ok = ok && same;
    io.out << "  retry emits      " << retry[i].type << "  " << retry[i].id.to_string()
           << (same ? "  (same id: the store drops it as a duplicate)" : "  MISMATCH") << "\n";
  }
  const bool sorted = first[0].id < first[1].id && inbound < MessageId::mint();
  ok = ok && sorted;
  io.out << (sorted ? "derived ids sort in emission order, after their source's predecessors\n"
                    : "ORDER VIOLATION\n");
  io.out << (ok ? "demo: ok\n" : "demo: FAILED\n");
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

void add_demo_command(CommandTree& tree) {
  CLI::App* demo = tree.add_command(
      tree.root(), "demo",
      "a short tour: minted ids, derived ids, a retry re-deriving the same ids", run_demo);
  demo->footer(
      "Mints an inbound id, derives the ids its handling emits and shows a retry deriving the\n"
      "same ids; exits 1 if any of that does not hold.");
}

}  // namespace whizbang::cli
