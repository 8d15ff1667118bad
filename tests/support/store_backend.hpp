// The backends a parameterised suite runs on: INSTANTIATE_TEST_SUITE_P(Stores, MyTests,
// whizbang_test::all_backends(), whizbang_test::backend_name). PostgreSQL runs on the run's
// throwaway server (the suite needs the `postgres` CTest fixture: whizbang_add_test POSTGRES).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace whizbang_test {

enum class Backend { Memory, Sqlite, Postgres };

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::Memory:
      return "Memory";
    case Backend::Sqlite:
      return "Sqlite";
    case Backend::Postgres:
      break;
  }
  return "Postgres";
}

inline auto all_backends() {
  return ::testing::Values(Backend::Memory, Backend::Sqlite, Backend::Postgres);
}

}  // namespace whizbang_test
