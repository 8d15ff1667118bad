// The outbox rows the store benchmarks write: `count` rows with a ~600-byte envelope (a typical
// JSON envelope's size), each on a stream of its own, to the destination "orders".
#pragma once

#include <string>
#include <vector>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/outbox_message.hpp"

namespace bench {

inline std::vector<whizbang::OutboxMessage> outbox_rows(int count, bool is_event) {
  std::vector<whizbang::OutboxMessage> messages(static_cast<std::size_t>(count));
  const std::string envelope =
      "{\"v\":1,\"id\":\"0190f3c4-aaaa-7bbb-8ccc-000000000001\",\"t\":\"shop::OrderCreated\","
      "\"p\":{\"order_id\":\"o-123456\",\"customer_id\":\"c-98765\",\"amount\":129.5,"
      "\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\",\"qty\":1}]},\"h\":[{\"si\":{"
      "\"sn\":\"orders\",\"ii\":\"0190f3c4-aaaa-7bbb-8ccc-000000000002\",\"hn\":\"host-1\","
      "\"pi\":4242},\"ts\":1718000000000001,\"to\":\"orders\",\"st\":\"0190f3c4-aaaa-7bbb-8ccc-"
      "000000000003\",\"sc\":{\"u\":\"user-1\",\"t\":\"tenant-1\"},\"md\":{\"source\":\"api\"}}],"
      "\"dc\":{\"m\":3,\"s\":0,\"d\":false},\"ss\":\"0190f3c4-aaaa-7bbb-8ccc-000000000004\","
      "\"pad\":\"..............................................................................\"}";
  for (whizbang::OutboxMessage& m : messages) {
    m.message_id = whizbang::MessageId::mint();
    m.destination = "orders";
    m.message_type = "shop::OrderCreated";
    m.envelope_json = envelope;
    m.stream_id = whizbang::MessageId::mint().uuid();
    m.is_event = is_event;
  }
  return messages;
}

}  // namespace bench
