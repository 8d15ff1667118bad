// A service on SQLite alone, linked with Whizbang::core and Whizbang::sqlite: the installed
// package lets it link neither libpq nor librabbitmq (install_and_consume.cmake checks the
// binary's needed libraries).
#include <iostream>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>

#include "greetings.hpp"
#include "whizbang_registry.hpp"

// argv[1]: the store file (default: in memory).
int main(int argc, char** argv) {
  auto store = whizbang::SqliteWorkStore::open(argc > 1 ? argv[1] : ":memory:");
  if (!store.ok()) {
    std::cerr << "sqlite_consumer: " << store.status() << "\n";
    return 1;
  }
  int greeted = 0;
  whizbang::ServiceRegistry services;
  services.add<int>(greeted);
  whizbang::HostOptions options;
  options.service_name = "sqlite-consumer";
  options.store = store->get();
  auto host = whizbang::ServiceHost::create(whizbang::generated::sqlite_consumer::registry(),
                                            services, std::move(options));
  if (!host.ok()) {
    std::cerr << "sqlite_consumer: " << host.status() << "\n";
    return 1;
  }
  greetings::Greet greet;
  greet.name = "sqlite";
  auto reply = (*host)->dispatcher().local_invoke<greetings::Reply>(greet);
  if (!reply.ok() || reply->text != "hello, sqlite" || greeted != 1) {
    std::cerr << "sqlite_consumer: dispatch on the SQLite store failed\n";
    return 1;
  }
  std::cout << "sqlite_consumer: ok " << reply->text << "\n";
  return 0;
}
