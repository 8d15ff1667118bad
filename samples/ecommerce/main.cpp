// The e-commerce sample:
//   ./ecommerce_sample [DATA_DIR]                          both services in one process
//   ./ecommerce_sample distributed AMQP_URL [DATA_DIR]     each service a process (shop_service),
//                                                          RabbitMQ between them
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "distributed_demo.hpp"
#include "shop_demo.hpp"

namespace {

int usage() {
  std::cerr << "usage: ecommerce_sample [DATA_DIR]                        (default: "
               "./ecommerce-data)\n"
               "       ecommerce_sample distributed AMQP_URL [DATA_DIR]   (default: "
               "./ecommerce-distributed)\n";
  return 2;
}

// shop_service sits next to this program.
std::filesystem::path service_binary(const char* argv0) {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) self = argv0;
  return self.parent_path() / "shop_service";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "distributed") {
    if (argc < 3 || argc > 4) return usage();
    const std::filesystem::path data_dir = argc == 4 ? argv[3] : "ecommerce-distributed";
    shop::DistributedDemo demo(service_binary(argv[0]), argv[2], data_dir, std::cout);
    return demo.run() == 0 ? 0 : 1;
  }
  if (argc > 2 || (argc == 2 && std::string(argv[1]).rfind("-", 0) == 0)) return usage();
  const std::filesystem::path data_dir = argc == 2 ? argv[1] : "ecommerce-data";
  shop::ShopDemo demo(data_dir, std::cout);
  return demo.run() == 0 ? 0 : 1;
}
