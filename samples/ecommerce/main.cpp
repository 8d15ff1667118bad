// The e-commerce sample: ./ecommerce_sample [DATA_DIR]
#include <iostream>

#include "shop_demo.hpp"

int main(int argc, char** argv) {
  if (argc > 2 || (argc == 2 && std::string(argv[1]).rfind("-", 0) == 0)) {
    std::cerr << "usage: ecommerce_sample [DATA_DIR]   (default: ./ecommerce-data)\n";
    return 2;
  }
  const std::filesystem::path data_dir = argc == 2 ? argv[1] : "ecommerce-data";
  shop::ShopDemo demo(data_dir, std::cout);
  return demo.run() == 0 ? 0 : 1;
}
