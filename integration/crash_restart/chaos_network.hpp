// The RabbitMQ harness's network: the broker in a network namespace of its own and each service
// in another, joined to the broker's by a veth link. Taking a service's link down partitions that
// service (its packets vanish: no FIN, no RST) while its processes keep running and keep their
// stores: files and unix sockets are not in a network namespace. Needs root, as CI has.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

namespace crash_harness {

class ChaosNetwork {
 public:
  // `id` (up to five digits) names the namespaces and their links: two harnesses on one machine
  // never share one. The subnets exist only inside these namespaces.
  explicit ChaosNetwork(int id)
      : id_(std::to_string(id % 100000)),
        octet_(std::to_string(id % 200 + 20)),
        broker_("wcb" + id_),
        hosts_{{"sales", {"wcs" + id_, "10.241." + octet_}},
               {"fulfilment", {"wcf" + id_, "10.242." + octet_}}} {}
  ChaosNetwork(const ChaosNetwork&) = delete;
  ChaosNetwork& operator=(const ChaosNetwork&) = delete;
  // Deleting a namespace deletes its end of every link.
  ~ChaosNetwork() {
    for (const auto& [service, host] : hosts_) run("ip netns del " + host.name);
    run("ip netns del " + broker_);
  }

  // Only root may create network namespaces.
  static bool available() { return geteuid() == 0; }

  // The namespaces and links. The broker listens on 10.240.<octet>.1 (on its loopback device),
  // which each service reaches through its own link.
  bool start() {
    if (!run("ip netns add " + broker_) || !run("ip -n " + broker_ + " link set lo up") ||
        !run("ip -n " + broker_ + " addr add " + broker_address() + "/32 dev lo")) {
      return false;
    }
    for (const auto& [service, host] : hosts_) {
      const std::string near = host.name + "-v";
      const std::string far = host.name + "-b";
      if (!run("ip netns add " + host.name) ||
          !run("ip link add " + near + " type veth peer name " + far) ||
          !run("ip link set " + near + " netns " + host.name) ||
          !run("ip link set " + far + " netns " + broker_) ||
          !run("ip -n " + host.name + " addr add " + host.subnet + ".1/24 dev " + near) ||
          !run("ip -n " + broker_ + " addr add " + host.subnet + ".2/24 dev " + far) ||
          !run("ip -n " + host.name + " link set lo up") ||
          !run("ip -n " + host.name + " link set " + near + " up") ||
          !run("ip -n " + broker_ + " link set " + far + " up") ||
          !run("ip -n " + host.name + " route add default via " + host.subnet + ".2")) {
        return false;
      }
    }
    return true;
  }

  std::string broker_address() const { return "10.240." + octet_ + ".1"; }
  // `command` run inside the broker's namespace (the broker script, say).
  std::string in_broker(const std::string& command) const {
    return "ip netns exec " + broker_ + " " + command;
  }
  // The namespace `service`'s processes run in.
  const std::string& namespace_of(const std::string& service) const {
    return hosts_.at(service).name;
  }
  // Takes `service`'s link down (a partition) or up again. A link going down takes the routes
  // through it along, so bringing it up puts the default route back.
  bool link(const std::string& service, bool up) {
    const Host& host = hosts_.at(service);
    return run("ip -n " + host.name + " link set " + host.name + "-v " + (up ? "up" : "down")) &&
           (!up || run("ip -n " + host.name + " route replace default via " + host.subnet + ".2"));
  }

 private:
  struct Host {
    std::string name;
    std::string subnet;
  };

  static bool run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
  }

  std::string id_;
  std::string octet_;
  std::string broker_;
  std::map<std::string, Host> hosts_;
};

// Moves the calling process (freshly forked, one thread) into the network namespace `name`; false
// when that fails.
inline bool enter_network_namespace(const std::string& name) {
  const int ns = open(("/var/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  const bool entered = ns >= 0 && setns(ns, CLONE_NEWNET) == 0;
  if (ns >= 0) close(ns);
  return entered;
}

}  // namespace crash_harness
