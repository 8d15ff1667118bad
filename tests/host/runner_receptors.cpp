#include "runner_receptors.hpp"

namespace runner_test {

Pinged PingReceptor::handle(const Ping& ping) {
  ++counter_.handled;
  Pinged pinged;
  pinged.text = ping.text;
  return pinged;
}

}  // namespace runner_test
