// libFuzzer target of the delivery path (./dev.sh fuzz): what a sender on the broker controls,
// the AMQP properties and headers and the body, through the RabbitMQ transport's decoder into an
// inbox (docs/guide/16-security.md, "What a sender on the broker can and cannot do"). Any bytes
// must end decoded and taken, refused, or rejected at the decoder; the oracle
// (../delivery_oracle.hpp) checks what the inbox stored and that its next cycle runs.
//
// Input layout, so seeds reach deep paths: the last byte holds flags (FuzzedDataProvider takes
// numbers from the end); bit 0 set: the message_id property is the body's "id"; bit 1 set: the
// type property is the body's "t" (or a .NET name when it has none); bit 2: delivered from the
// shared inbox exchange (a command); bit 3: refusals to the transport's dead letters; bits 4-5:
// signing Off, Sign, Require; bit 6: EnvelopeType and StreamId headers. Each property not derived
// and each header is a string from the front of the data; the body is what remains. Seeds: the
// envelope corpus with a flag byte appended (./dev.sh fuzz makes them), so with the flags 0x03,
// 0x07, 0x0b and 0x2b a seed's body is the whole envelope.
#include <amqp.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <rapidjson/document.h>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/workers/inbox_worker.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "delivery_oracle.hpp"
#include "fuzz_messages.hpp"
#include "support/dead_lettering_transport.hpp"
#include "transport/rabbitmq/amqp_message.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

const whizbang::MessageTypeInfo* resolve(std::string_view name) {
  return whizbang::generated::delivery_path_fuzzer::registry().find_message(name);
}

const whizbang::SigningKeyRing& signing_keys() {
  static const whizbang::SigningKeyRing keys =
      *whizbang::SigningKeyRing::create({{"fuzz", std::string(32, 'k')}});
  return keys;
}

// The body's string member `name`, "" when it has none.
std::string body_member(const std::string& body, const char* name) {
  rapidjson::Document document;
  if (whizbang::internal::parse_bounded(body, document).IsError() || !document.IsObject()) {
    return {};
  }
  auto member = document.FindMember(name);
  return member != document.MemberEnd() && member->value.IsString()
             ? std::string(member->value.GetString(), member->value.GetStringLength())
             : std::string();
}

amqp_bytes_t bytes_of(const std::string& text) {
  return amqp_bytes_t{text.size(), const_cast<char*>(text.data())};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const auto flags = input.ConsumeIntegral<std::uint8_t>();
  const bool derived_id = (flags & 1) != 0;
  const bool derived_type = (flags & 2) != 0;
  const bool command = (flags & 4) != 0;
  const bool transport_dead_letters = (flags & 8) != 0;
  const auto mode = static_cast<whizbang::EnvelopeSigningMode>(((flags >> 4) & 3) % 3);
  const bool with_headers = (flags & 64) != 0;
  std::string message_id = derived_id ? std::string() : input.ConsumeRandomLengthString(64);
  std::string type = derived_type ? std::string() : input.ConsumeRandomLengthString(96);
  const std::string envelope_type = with_headers ? input.ConsumeRandomLengthString(160) : "";
  const std::string stream_id = with_headers ? input.ConsumeRandomLengthString(40) : "";
  const std::string body = input.ConsumeRemainingBytesAsString();
  if (derived_id) message_id = body_member(body, "id");
  if (derived_type) {
    type = body_member(body, "t");
    if (type.empty()) type = "Fuzz.Contracts.OrderShipped, Fuzz.Contracts";
  }

  std::vector<amqp_table_entry_t> headers;
  const std::string envelope_type_key = "EnvelopeType";
  const std::string stream_key = "StreamId";
  for (const auto& [key, value] :
       {std::pair{&envelope_type_key, &envelope_type}, std::pair{&stream_key, &stream_id}}) {
    if (value->empty()) continue;
    amqp_table_entry_t entry{};
    entry.key = bytes_of(*key);
    entry.value.kind = AMQP_FIELD_KIND_BYTES;
    entry.value.value.bytes = bytes_of(*value);
    headers.push_back(entry);
  }
  const std::string inbox = "inbox";
  const std::string events = "fuzz.contracts";
  const std::string routing_key = "fuzz.contracts.ordershipped";
  amqp_envelope_t delivery{};
  delivery.exchange = bytes_of(command ? inbox : events);
  delivery.routing_key = bytes_of(routing_key);
  amqp_basic_properties_t& properties = delivery.message.properties;
  properties._flags = AMQP_BASIC_HEADERS_FLAG;
  properties.headers = amqp_table_t{static_cast<int>(headers.size()), headers.data()};
  if (!message_id.empty()) {
    properties._flags |= AMQP_BASIC_MESSAGE_ID_FLAG;
    properties.message_id = bytes_of(message_id);
  }
  if (!type.empty()) {
    properties._flags |= AMQP_BASIC_TYPE_FLAG;
    properties.type = bytes_of(type);
  }
  delivery.message.body = bytes_of(body);

  absl::StatusOr<whizbang::rabbitmq::IncomingMessage> incoming =
      whizbang::rabbitmq::decode_delivery(delivery, inbox);
  if (!incoming.ok()) {
    if (incoming.status().message().empty()) {
      std::fprintf(stderr, "delivery_path_fuzzer: a rejection without a reason\n");
      __builtin_trap();
    }
    return 0;  // rejected to the dead letters by the consumer
  }

  whizbang::MemoryWorkStore store;
  whizbang::InboxWorkerOptions options;
  options.signing = {mode, signing_keys()};
  whizbang::InboxWorker worker(
      store, resolve, [](whizbang::InboxHandling&) { return absl::OkStatus(); }, options);
  whizbang_test::DeadLetteringTransport transport;
  std::unique_ptr<whizbang::TransportSubscription> subscription;
  if (transport_dead_letters) subscription = *worker.subscribe(transport);
  const whizbang::TransportMessage& message = incoming->message;
  const whizbang::DeliveryOutcome outcome =
      transport_dead_letters ? transport.deliver({&message, 1}) : worker.receive({&message, 1});
  const std::string broken = delivery_oracle::violation(store, worker, {&message, 1}, outcome);
  if (!broken.empty()) {
    std::fprintf(stderr, "delivery_path_fuzzer: %s\n", broken.c_str());
    __builtin_trap();
  }
  return 0;
}
