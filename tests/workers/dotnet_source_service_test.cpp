// The inbox's door takes the sending service from the envelope: this runtime's "ss", else the
// "sid" a Whizbang .NET sender's outbox stamps (docs/guide/15-dotnet-services.md, "What each
// side ignores"); with neither, the receiving service stands in.
#include <gtest/gtest.h>

#include "store_test_support.hpp"
#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

using namespace whizbang;

class DotNetSourceServiceTests : public ::testing::Test {
 protected:
  // Delivers `message` to a service's inbox and returns the service its row names.
  Uuid stored_source(const TransportMessage& message) {
    MemoryWorkStore store;
    InProcessTransport transport;
    InboxWorkerOptions options;
    options.service_name = "shipping";
    options.service_id = receiving_;
    options.bindings = {{"order-events", ""}};
    InboxWorker inbox(store, resolve, [](InboxHandling&) { return absl::OkStatus(); }, options);
    auto subscription = inbox.subscribe(transport);
    EXPECT_TRUE(subscription.ok()) << subscription.status();
    EXPECT_TRUE(
        transport.publish({"order-events", "store_test.ordercreated", {}}, {&message, 1}).ok());
    absl::StatusOr<std::optional<InboxRow>> row = store.find_inbox_row(message.message_id);
    EXPECT_TRUE(row.ok() && row->has_value()) << "not stored";
    return row.ok() && row->has_value() ? (*row)->message.source_service_id : Uuid();
  }

  // The delivered envelope with `members` added at its end.
  static TransportMessage with(std::string_view members) {
    TransportMessage message = delivered_order("o-1");
    message.envelope_json.insert(message.envelope_json.size() - 1, members);
    return message;
  }

  const Uuid receiving_ = MessageId::mint().uuid();
  const Uuid sender_ = MessageId::mint().uuid();
  const Uuid ours_ = MessageId::mint().uuid();
};

TEST_F(DotNetSourceServiceTests, DotNetSid_NamesTheSendingService) {
  EXPECT_EQ(stored_source(with(R"(,"sid":")" + sender_.to_string() + R"(","sseq":12)")), sender_);
}

TEST_F(DotNetSourceServiceTests, OurSs_WinsOverSid) {
  EXPECT_EQ(stored_source(with(R"(,"ss":")" + ours_.to_string() + R"(","sid":")" +
                               sender_.to_string() + R"(")")),
            ours_);
}

TEST_F(DotNetSourceServiceTests, NilSid_TheReceivingServiceStandsIn) {
  EXPECT_EQ(stored_source(with(R"(,"sid":"00000000-0000-0000-0000-000000000000","sseq":0)")),
            receiving_);
}

}  // namespace
}  // namespace store_test
