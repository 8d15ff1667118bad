// The e-commerce sample:
//   ./ecommerce_sample [DATA_DIR]                          both services in one process
//   ./ecommerce_sample distributed AMQP_URL [DATA_DIR] [--postgres CONNINFO]
//                                        each service a process (shop_service), RabbitMQ between
//                                        them; SQLite stores in DATA_DIR, or schemas of their
//                                        own on the PostgreSQL server CONNINFO names
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
               "       ecommerce_sample distributed AMQP_URL [DATA_DIR] [--postgres CONNINFO]\n"
               "                                     (default: ./ecommerce-distributed, SQLite)\n";
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
    if (argc < 3) return usage();
    std::filesystem::path data_dir = "ecommerce-distributed";
    std::string postgres_conninfo;
    for (int i = 3; i < argc; ++i) {
      const std::string argument = argv[i];
      if (argument == "--postgres" && i + 1 < argc) {
        postgres_conninfo = argv[++i];
      } else if (argument.rfind("-", 0) != 0 && i == 3) {
        data_dir = argument;
      } else {
        return usage();
      }
    }
    shop::DistributedDemo demo(service_binary(argv[0]), argv[2], data_dir,
                               std::move(postgres_conninfo), std::cout);
    return demo.run() == 0 ? 0 : 1;
  }
  if (argc > 2 || (argc == 2 && std::string(argv[1]).rfind("-", 0) == 0)) return usage();
  const std::filesystem::path data_dir = argc == 2 ? argv[1] : "ecommerce-data";
  shop::ShopDemo demo(data_dir, std::cout);
  return demo.run() == 0 ? 0 : 1;
}
