// A libpq Connection of the PostgreSQL backend on a fresh schema of the run's server, for tests of
// the backend's own wrapper (connection.hpp) below the store.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store/postgres/connection.hpp"
#include "support/postgres_schema.hpp"

namespace store_test {

// Null (and a test failure) when the server cannot be reached.
inline std::unique_ptr<whizbang::postgres::Connection> connect_to_fresh_schema() {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  if (conninfo.empty()) return nullptr;
  auto connection = whizbang::postgres::Connection::open(conninfo);
  EXPECT_TRUE(connection.ok()) << connection.status();
  return connection.ok() ? *std::move(connection) : nullptr;
}

}  // namespace store_test
