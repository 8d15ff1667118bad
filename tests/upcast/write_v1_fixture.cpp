// Writes the upcast fixture with VERSION 1 code (v1/orders_v1.hpp): an "orders" service on a
// SQLite store receives two OrderPlaced events from a "shop" service over the transport; its
// inbox stores them (the event store, with perspective work for fixture::OrderTotalsPerspective
// that no v1 code applies) and NoteOrder emits an OrderNoted (derived id) for each.
//
//   upcast_v1_fixture_writer <out dir>   -> <out dir>/orders_v1.db, <out dir>/envelopes_v1.jsonl
//
// envelopes_v1.jsonl holds the envelopes as "shop" published them (one per line). Regenerate
// only if the store's schema makes the committed file unreadable (it never should): the point of
// the fixture is that it was written by v1 code. Build with
// `cmake --build build --target upcast_v1_fixture_writer`, run with tests/data/upcast.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <whizbang/host/service_host.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/publish_strategy.hpp>

#include "v1/orders_v1.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

int fail(const absl::Status& status) {
  std::cerr << "upcast_v1_fixture_writer: " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: upcast_v1_fixture_writer <out dir>\n";
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::filesystem::create_directories(dir);
  const std::filesystem::path db = dir / "orders_v1.db";
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(db.string() + suffix);
  }

  whizbang::StoreOptions store_options;
  store_options.instance.service_name = "orders";
  // The perspective work stored here is leased to this instance at once; a short lease lets the
  // v3 tests' instance claim it right after a regeneration, not only 5 minutes later.
  store_options.lease_duration = std::chrono::seconds(1);
  auto store = whizbang::SqliteWorkStore::open(db.string(), store_options);
  if (!store.ok()) return fail(store.status());
  // The perspective v3 adds was associated while v1 ran: its work waits in the store.
  if (absl::Status status = (*store)->add_perspective_association(
          "fixture.OrderPlaced", "fixture::OrderTotalsPerspective");
      !status.ok()) {
    return fail(status);
  }
  whizbang::InProcessTransport transport;
  whizbang::ServiceRegistry services;
  whizbang::HostOptions options;
  options.service_name = "orders";
  options.store = store->get();
  options.transport = &transport;
  auto host = whizbang::ServiceHost::create(
      whizbang::generated::upcast_v1_fixture_writer::registry(), services, std::move(options));
  if (!host.ok()) return fail(host.status());
  if (absl::Status status = (*host)->subscribe(); !status.ok()) return fail(status);

  std::ofstream envelopes(dir / "envelopes_v1.jsonl", std::ios::trunc);
  whizbang::ServiceInstance shop;
  shop.service_name = "shop";
  const struct {
    const char* order_id;
    std::int64_t price;
  } orders[] = {{"o-1", 1250}, {"o-2", 399}};
  const whizbang::Uuid stream = whizbang::MessageId::mint().uuid();  // one customer's stream
  for (const auto& order : orders) {
    fixture::OrderPlaced placed;
    placed.order_id = order.order_id;
    placed.price = order.price;
    whizbang::Envelope envelope =
        whizbang::Envelope::create(whizbang::AnyMessage::make(placed), shop);
    envelope.hops.front().stream_id = stream;
    const whizbang::MessageTypeInfo& type = whizbang::MessageTraits<fixture::OrderPlaced>::info();
    const std::string json = whizbang::serialize_envelope(envelope);
    envelopes << json << "\n";
    const whizbang::TransportMessage message{envelope.message_id, std::string(type.wire_name), json,
                                             envelope.stream_id(), true};
    whizbang::TransportDestination destination;
    destination.address = whizbang::default_destination(type);
    destination.routing_key = whizbang::routing_key_for(type.wire_name);
    if (absl::Status status = transport.publish(destination, {&message, 1}); !status.ok()) {
      return fail(status);
    }
  }
  for (int cycle = 0; cycle < 6; ++cycle) {
    auto ran = (*host)->run_once();
    if (!ran.ok()) return fail(ran.status());
  }
  host->reset();
  store->reset();
  std::cout << "wrote " << db.string() << " and " << (dir / "envelopes_v1.jsonl").string() << "\n";
  return 0;
}
