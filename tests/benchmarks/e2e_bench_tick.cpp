#include "e2e_bench_tick.hpp"

#include "whizbang_registry.hpp"

namespace bench {

const whizbang::Registry& producer_registry() {
  return whizbang::generated::e2e_bench_tick::registry();
}

}  // namespace bench
