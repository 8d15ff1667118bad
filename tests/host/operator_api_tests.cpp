// The runner's operator API (docs/guide/19-operating-services.md) over HTTP on a SQLite store:
// listing with each filter and paging, groups, one dead letter, requeue (ids, filter, group, dry
// run), discard; bad input, auth, audit lines; a requeue racing the live inbox worker.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <set>
#include <thread>

#include "host/http/http_response.hpp"
#include "host/service_runner_operator_json.hpp"
#include "raw_http_client.hpp"
#include "runner_receptors.hpp"
#include "support/log_capture.hpp"
#include "support/temp_dir.hpp"
#include "whizbang/host/service_runner.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/store/dead_letter_operations.hpp"
#include "whizbang_registry.hpp"

namespace runner_test {
namespace {

using namespace std::chrono_literals;
using namespace whizbang;
using http_test::RawHttpClient;
using http_test::RawHttpResponse;

constexpr std::string_view kToken = "s3cret-token";

const Registry& registry() { return generated::runner_test_receptors::registry(); }

struct Answer {
  int status = 0;
  rapidjson::Document json;
  std::string body;
};

class OperatorApiTests : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.add<PingCounter>(counter_);
    previous_logger_ = spdlog::default_logger();
    spdlog::set_default_logger(log_.logger);
  }
  void TearDown() override {
    runner_.reset();
    spdlog::set_default_logger(previous_logger_);
  }

  // `store`: the runner's store location; empty: a SQLite file of the test's.
  void start(std::string token = std::string(kToken), std::string store = "") {
    ServiceRunnerConfig config;
    config.service_name = "pinger";
    config.store = store.empty() ? "sqlite:" + dir_.file("pinger.db") : std::move(store);
    config.http_port = 0;
    config.admin_token = std::move(token);
    auto runner = ServiceRunner::start(registry(), services_, config);
    ASSERT_TRUE(runner.ok()) << runner.status();
    runner_ = *std::move(runner);
  }
  WorkStore& store() { return runner_->host().store(); }

  // A Ping from another service, stored in the inbox and dead-lettered in one transaction (the live
  // worker never sees it pending).
  MessageId dead_ping(std::string error, FailureReason reason = FailureReason::Unknown) {
    Ping ping;
    ping.text = "p";
    Envelope envelope = Envelope::create(AnyMessage::make(ping),
                                         {"sender", MessageId::mint().uuid(), "test-host", 1});
    InboxMessage row;
    row.message_id = envelope.message_id;
    row.handler_name = "pinger";
    row.message_type = std::string(MessageTraits<Ping>::info().wire_name);
    row.envelope_json = serialize_envelope(envelope);
    row.source_service_id = MessageId::mint().uuid();  // another service sent it
    Transaction tx(store());
    EXPECT_TRUE(store().store_inbox_messages({&row, 1}, Uuid()).ok());
    const WorkFailure failure{WorkSource::Inbox, row.message_id, MessageStatus::None,
                              std::move(error),  reason,         true,
                              std::nullopt};
    EXPECT_TRUE(store().complete_work({}, {&failure, 1}).ok());
    EXPECT_TRUE(tx.commit().ok());
    return row.message_id;
  }

  Answer request(std::string_view method, std::string_view target, std::string_view body = {},
                 std::optional<std::string_view> token = kToken) {
    RawHttpClient client(runner_->http_port());
    std::string bytes = std::string(method) + " " + std::string(target) +
                        " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n";
    if (token) bytes += "Authorization: Bearer " + std::string(*token) + "\r\n";
    if (!body.empty() || method == "POST") {
      bytes += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
               "\r\n";
    }
    bytes += "\r\n";
    bytes += body;
    EXPECT_TRUE(client.send(bytes));
    RawHttpResponse response = client.read_response();
    Answer answer;
    answer.status = response.status;
    answer.body = response.body;
    answer.json.Parse(response.body.c_str());
    return answer;
  }
  Answer get(std::string_view target) { return request("GET", target, {}, std::nullopt); }
  Answer post(std::string_view target, std::string_view body,
              std::optional<std::string_view> token = kToken) {
    return request("POST", target, body, token);
  }
  std::set<std::string> listed_ids(std::string_view query = "") {
    Answer answer = get(std::string("/api/v1/dead-letters") + std::string(query));
    EXPECT_EQ(answer.status, 200) << answer.body;
    std::set<std::string> ids;
    if (answer.status != 200) return ids;
    for (const auto& item : answer.json["items"].GetArray()) ids.insert(item["id"].GetString());
    return ids;
  }
  static std::string text(const MessageId& id) { return id.uuid().to_string(); }
  static std::string ids_body(std::initializer_list<MessageId> ids, std::string extra = "") {
    std::string body = "{\"ids\":[";
    for (const MessageId& id : ids) {
      if (body.back() != '[') body += ",";
      body += "{\"source\":\"inbox\",\"id\":\"" + text(id) + "\"}";
    }
    return body + "]" + extra + "}";
  }
  // Until `done` holds, at most 10 s (a failure guard, not part of what a test asserts).
  template <class Done>
  static bool eventually(Done done) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }

  whizbang_test::TempDir dir_;
  whizbang_test::LogCapture log_;
  std::shared_ptr<spdlog::logger> previous_logger_;
  PingCounter counter_;
  ServiceRegistry services_;
  std::unique_ptr<ServiceRunner> runner_;
};

TEST_F(OperatorApiTests, Overview_BacklogDeadLettersReadOnlyAndNoBreakersYet) {
  start();
  dead_ping("boom");
  Answer overview = get("/api/v1/overview");
  ASSERT_EQ(overview.status, 200) << overview.body;
  EXPECT_STREQ(overview.json["service"].GetString(), "pinger");
  EXPECT_FALSE(overview.json["read_only"].GetBool());
  EXPECT_EQ(overview.json["dead_letters"].GetInt(), 1);
  EXPECT_EQ(overview.json["backlog"]["inbox"].GetInt(), 0);
  EXPECT_TRUE(overview.json["breakers"].IsArray());
}

TEST_F(OperatorApiTests, Overview_HandledAndPublishedTotalsMoveWithRealHandlings) {
  start();
  const MessageId first = dead_ping("a");
  const MessageId second = dead_ping("b");
  Answer before = get("/api/v1/overview");
  ASSERT_EQ(before.status, 200) << before.body;
  EXPECT_EQ(before.json["handled_total"].GetInt64(), 0);
  EXPECT_EQ(before.json["published_total"].GetInt64(), 0);
  // Requeued, the live inbox worker handles both; each handling emits a Pinged, which the drain
  // worker publishes (to the event store: this runner has no transport).
  ASSERT_EQ(post("/api/v1/dead-letters/requeue", ids_body({first, second})).status, 200);
  ASSERT_TRUE(eventually([&] {
    Answer now = get("/api/v1/overview");
    return now.status == 200 && now.json["handled_total"].GetInt64() == 2 &&
           now.json["published_total"].GetInt64() == 2;
  })) << get("/api/v1/overview").body;
  EXPECT_EQ(counter_.handled.load(), 2);
  // The same counters on /metrics, tagged with the message type.
  const Answer metrics = get("/metrics");
  EXPECT_NE(metrics.body.find("whizbang_work_coordinator_inbox_handled_total{message_type="),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("whizbang_work_coordinator_outbox_published_total{message_type="),
            std::string::npos)
      << metrics.body;
}

// The memory store has the dead-letter operations too: the API answers on it as on SQLite.
TEST_F(OperatorApiTests, OnAMemoryStore_ListGroupsShowRequeueAndDiscardAnswer) {
  start(std::string(kToken), "memory:");
  const MessageId poison = dead_ping("poison");
  const MessageId transient = dead_ping("transient");
  EXPECT_EQ(listed_ids(), (std::set<std::string>{text(poison), text(transient)}));
  Answer groups = get("/api/v1/dead-letters/groups");
  ASSERT_EQ(groups.status, 200) << groups.body;
  EXPECT_EQ(groups.json["groups"].Size(), 2u) << groups.body;
  Answer shown = get("/api/v1/dead-letters/inbox/" + text(poison));
  ASSERT_EQ(shown.status, 200) << shown.body;
  EXPECT_NE(shown.body.find("poison"), std::string::npos) << shown.body;
  Answer discarded =
      post("/api/v1/dead-letters/discard", ids_body({poison}, ",\"reason\":\"by hand\""));
  ASSERT_EQ(discarded.status, 200) << discarded.body;
  EXPECT_EQ(discarded.json["discarded"].GetInt(), 1);
  ASSERT_EQ(post("/api/v1/dead-letters/requeue", ids_body({transient})).status, 200);
  EXPECT_TRUE(eventually([&] { return counter_.handled.load() == 1; }));
  EXPECT_TRUE(listed_ids().empty());
  Answer overview = get("/api/v1/overview");
  ASSERT_EQ(overview.status, 200) << overview.body;
  EXPECT_EQ(overview.json["dead_letters"].GetInt(), 0);
  auto kept = store().discarded_dead_letters(10);
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].discard_reason, "by hand");
}

TEST_F(OperatorApiTests, StatusLines_NameEveryStatusTheRunnerSends) {
  start("");
  RawHttpClient client(runner_->http_port());
  ASSERT_TRUE(client.send("GET /console HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  const RawHttpResponse moved = client.read_response();
  EXPECT_EQ(moved.status, 308);
  EXPECT_EQ(moved.head.rfind("HTTP/1.1 308 Permanent Redirect\r\n", 0), 0u) << moved.head;
  RawHttpClient refused(runner_->http_port());
  ASSERT_TRUE(
      refused.send("POST /api/v1/dead-letters/requeue HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                   "Content-Length: 2\r\n\r\n{}"));
  EXPECT_EQ(refused.read_response().head.rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u);
  for (int status : {200, 308, 400, 401, 403, 404, 405, 408, 413, 414, 431, 500, 503, 505}) {
    EXPECT_NE(http::reason_phrase(status), "Unknown") << status;
  }
}

TEST_F(OperatorApiTests, List_EachFilterAndPaging_CursorStableAcrossPages) {
  start();
  const MessageId locked = dead_ping("database is locked");
  const MessageId invalid = dead_ping("no lines\nat validate()", FailureReason::ValidationError);
  std::vector<MessageId> all = {locked, invalid};
  for (int i = 0; i < 3; ++i) all.push_back(dead_ping("e" + std::to_string(i)));
  EXPECT_EQ(listed_ids("?source=inbox").size(), 5u);
  EXPECT_TRUE(listed_ids("?source=outbox").empty());
  EXPECT_EQ(listed_ids("?reason=ValidationError"), std::set<std::string>{text(invalid)});
  EXPECT_EQ(listed_ids("?error=is%20locked"), std::set<std::string>{text(locked)});
  EXPECT_EQ(listed_ids("?target=pinger").size(), 5u);
  EXPECT_EQ(
      listed_ids("?message_type=" + std::string(MessageTraits<Ping>::info().wire_name)).size(), 5u);
  EXPECT_EQ(listed_ids("?since=2000-01-01T00:00:00Z&until=2200-01-01T00:00:00Z").size(), 5u);
  EXPECT_TRUE(listed_ids("?until=2000-01-01T00:00:00Z").empty());

  std::vector<std::string> paged;
  std::string cursor;
  for (int page = 0; page < 10; ++page) {
    Answer answer =
        get("/api/v1/dead-letters?limit=2" + (cursor.empty() ? "" : "&cursor=" + cursor));
    ASSERT_EQ(answer.status, 200) << answer.body;
    ASSERT_LE(answer.json["items"].Size(), 2u);
    for (const auto& item : answer.json["items"].GetArray())
      paged.push_back(item["id"].GetString());
    if (answer.json["next_cursor"].IsNull()) break;
    cursor = answer.json["next_cursor"].GetString();
  }
  ASSERT_EQ(paged.size(), 5u);
  EXPECT_EQ(std::set<std::string>(paged.begin(), paged.end()).size(), 5u) << "no row twice";
}

TEST(OperatorJsonTests, Rfc3339Times_ParseAndFormat) {
  auto parsed = operator_api::parse_time("2000-01-01T00:00:00Z");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(to_unix_micros(*parsed), 946684800000000);
  auto offset = operator_api::parse_time("2000-01-01T01:00:00.5+01:00");
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_EQ(to_unix_micros(*offset), 946684800500000);
  EXPECT_EQ(operator_api::format_time(*parsed), "2000-01-01T00:00:00+00:00");
  EXPECT_FALSE(operator_api::parse_time("yesterday").ok());
  EXPECT_FALSE(operator_api::parse_time("2999-01-01T00:00:00Z").ok()) << "beyond a TimePoint";
}

TEST_F(OperatorApiTests, BadFilters_400WithTheReason) {
  start();
  for (const char* query : {"?source=nope", "?limit=0", "?limit=201", "?bogus=1",
                            "?since=yesterday", "?cursor=xyz", "?reason=Nope", "?error=%zz"}) {
    Answer answer = get(std::string("/api/v1/dead-letters") + query);
    EXPECT_EQ(answer.status, 400) << query;
    EXPECT_TRUE(answer.json.IsObject() && answer.json.HasMember("error")) << answer.body;
  }
  EXPECT_EQ(get("/api/v1/dead-letters/groups?cursor=1").status, 400);
}

TEST_F(OperatorApiTests, GroupsAndShowOne_EnvelopeHopsAndInvocations) {
  start();
  const MessageId first = dead_ping("broker down\nat a()");
  dead_ping("broker down\nat b()");
  dead_ping("other");
  Answer groups = get("/api/v1/dead-letters/groups");
  ASSERT_EQ(groups.status, 200) << groups.body;
  ASSERT_EQ(groups.json["groups"].Size(), 2u);
  EXPECT_STREQ(groups.json["groups"][0]["error"].GetString(), "broker down");
  EXPECT_EQ(groups.json["groups"][0]["count"].GetInt(), 2);

  const std::string receptor(registry().receptors()[0].id);
  const ReceptorInvocationRecord record{
      receptor, Stage::PostInboxInline, Clock::now(), 3us, "pinger", ""};
  ASSERT_TRUE(store().record_receptor_invocations(first, {&record, 1}).ok());
  Answer one = get("/api/v1/dead-letters/inbox/" + text(first));
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_STREQ(one.json["id"].GetString(), text(first).c_str());
  EXPECT_TRUE(one.json["envelope"].IsObject());
  EXPECT_TRUE(one.json["hops"].IsArray());
  EXPECT_GE(one.json["hops"].Size(), 1u);
  ASSERT_EQ(one.json["invocations"].Size(), 1u);
  EXPECT_EQ(one.json["invocations"][0]["receptor"].GetString(), receptor);
  EXPECT_EQ(get("/api/v1/dead-letters/inbox/" + text(MessageId::mint())).status, 404);
  EXPECT_EQ(get("/api/v1/dead-letters/outbox/" + text(first)).status, 404);
  EXPECT_EQ(get("/api/v1/dead-letters/inbox/not-a-uuid").status, 400);
}

TEST_F(OperatorApiTests, DryRun_WouldFireVersusAlreadyFired_NothingChanged) {
  start();
  const MessageId fired = dead_ping("after the receptor");
  const MessageId fresh = dead_ping("before the receptor");
  const std::string receptor(registry().receptors()[0].id);
  const ReceptorInvocationRecord record{
      receptor, Stage::PostInboxInline, Clock::now(), 3us, "pinger", ""};
  ASSERT_TRUE(store().record_receptor_invocations(fired, {&record, 1}).ok());
  Answer dry = post("/api/v1/dead-letters/requeue", ids_body({fired, fresh}, ",\"dry_run\":true"));
  ASSERT_EQ(dry.status, 200) << dry.body;
  ASSERT_EQ(dry.json["would_requeue"].Size(), 2u);
  for (const auto& item : dry.json["would_requeue"].GetArray()) {
    const bool is_fired = item["id"].GetString() == text(fired);
    const auto& would = item[is_fired ? "already_fired" : "would_fire"];
    const auto& other = item[is_fired ? "would_fire" : "already_fired"];
    ASSERT_EQ(would.Size(), 1u) << dry.body;
    EXPECT_EQ(would[0].GetString(), receptor);
    EXPECT_EQ(other.Size(), 0u) << dry.body;
  }
  EXPECT_EQ(listed_ids().size(), 2u) << "a dry run changes nothing";
  EXPECT_EQ(counter_.handled.load(), 0);
}

TEST_F(OperatorApiTests, RequeueByIdsFilterAndGroup_HandledByTheLiveWorker_AuditLogged) {
  start();
  const MessageId one = dead_ping("a");
  dead_ping("validation", FailureReason::ValidationError);
  dead_ping("grouped\nx");
  dead_ping("grouped\ny");
  Answer by_ids = post("/api/v1/dead-letters/requeue", ids_body({one}));
  ASSERT_EQ(by_ids.status, 200) << by_ids.body;
  EXPECT_EQ(by_ids.json["requeued"].GetInt(), 1);
  Answer by_filter =
      post("/api/v1/dead-letters/requeue", R"({"filter":{"reason":"ValidationError"}})");
  ASSERT_EQ(by_filter.status, 200) << by_filter.body;
  EXPECT_EQ(by_filter.json["requeued"].GetInt(), 1);
  Answer groups = get("/api/v1/dead-letters/groups?error=grouped");
  ASSERT_EQ(groups.json["groups"].Size(), 1u) << groups.body;
  const std::string key = groups.json["groups"][0]["group"].GetString();
  Answer by_group = post("/api/v1/dead-letters/requeue", "{\"group\":\"" + key + "\"}");
  ASSERT_EQ(by_group.status, 200) << by_group.body;
  EXPECT_EQ(by_group.json["requeued"].GetInt(), 2);
  EXPECT_TRUE(eventually([&] { return counter_.handled.load() == 4; }));
  EXPECT_TRUE(listed_ids().empty());
  EXPECT_EQ(log_.count("[EventId 155 DeadLettersRequeued]"), 3);
  EXPECT_EQ(log_.count("127.0.0.1"), 3);
}

TEST_F(OperatorApiTests, Discard_NotListedNotRequeuedReasonKept) {
  start();
  const MessageId poison = dead_ping("poison");
  const MessageId kept = dead_ping("other");
  EXPECT_EQ(post("/api/v1/dead-letters/discard", ids_body({poison})).status, 400)
      << "a reason is required";
  Answer discarded =
      post("/api/v1/dead-letters/discard", ids_body({poison}, ",\"reason\":\"cancelled by hand\""));
  ASSERT_EQ(discarded.status, 200) << discarded.body;
  EXPECT_EQ(discarded.json["discarded"].GetInt(), 1);
  EXPECT_EQ(listed_ids(), std::set<std::string>{text(kept)});
  EXPECT_EQ(post("/api/v1/dead-letters/requeue", ids_body({poison})).status, 404);
  auto kept_rows = store().discarded_dead_letters(10);
  ASSERT_TRUE(kept_rows.ok()) << kept_rows.status();
  ASSERT_EQ(kept_rows->size(), 1u);
  EXPECT_EQ((*kept_rows)[0].discard_reason, "cancelled by hand");
  EXPECT_EQ(log_.count("[EventId 156 DeadLettersDiscarded]"), 1);
  EXPECT_EQ(counter_.handled.load(), 0) << "never handled";
}

TEST_F(OperatorApiTests, BadBodies_MalformedHugeTwoSelectorsUnknownIds) {
  start();
  const MessageId id = dead_ping("x");
  const std::string requeue = "/api/v1/dead-letters/requeue";
  EXPECT_EQ(post(requeue, "{\"ids\":[").status, 400);
  EXPECT_EQ(post(requeue, std::string(100000, '[')).status, 413);
  EXPECT_EQ(post(requeue, std::string(60000, '[')).status, 400) << "deep nesting: no crash";
  EXPECT_EQ(post(requeue, ids_body({id}, ",\"filter\":{}")).status, 400);
  EXPECT_EQ(post(requeue, "{}").status, 400);
  EXPECT_EQ(post(requeue, "{\"ids\":[],\"nope\":1}").status, 400);
  EXPECT_EQ(post(requeue, ids_body({MessageId::mint()})).status, 404);
  EXPECT_EQ(post(requeue, "{\"group\":\"0000\"}").status, 404);
  EXPECT_EQ(post(requeue, "{\"filter\":{\"source\":\"nope\"}}").status, 400);
  EXPECT_EQ(listed_ids().size(), 1u) << "nothing changed";
}

TEST_F(OperatorApiTests, Auth_MissingOrWrongToken401_ReadsNeedNone_RefusalsLogged) {
  start();
  const MessageId id = dead_ping("x");
  EXPECT_EQ(post("/api/v1/dead-letters/requeue", ids_body({id}), std::nullopt).status, 401);
  EXPECT_EQ(post("/api/v1/dead-letters/requeue", ids_body({id}), "wrong").status, 401);
  EXPECT_EQ(post("/api/v1/dead-letters/discard", ids_body({id}, ",\"reason\":\"r\""), "").status,
            401);
  EXPECT_EQ(get("/api/v1/dead-letters").status, 200);
  EXPECT_EQ(listed_ids().size(), 1u);
  EXPECT_EQ(log_.count("[EventId 157 OperatorRequestRefused]"), 3);
}

TEST_F(OperatorApiTests, NoTokenConfigured_ReadOnly403) {
  start("");
  const MessageId id = dead_ping("x");
  EXPECT_EQ(post("/api/v1/dead-letters/requeue", ids_body({id})).status, 403);
  EXPECT_TRUE(get("/api/v1/overview").json["read_only"].GetBool());
  EXPECT_EQ(listed_ids().size(), 1u);
}

TEST_F(OperatorApiTests, RequeueRacingTheLiveWorker_HandledExactlyOnce) {
  start();
  const MessageId id = dead_ping("transient");
  // Two operators requeue the same dead letter at once while the inbox worker runs: one wins,
  // the other finds it no longer dead-lettered.
  Answer first;
  Answer second;
  std::thread other([&] { second = post("/api/v1/dead-letters/requeue", ids_body({id})); });
  first = post("/api/v1/dead-letters/requeue", ids_body({id}));
  other.join();
  int requeued = 0;
  for (const Answer* answer : {&first, &second}) {
    if (answer->status == 200) requeued += answer->json["requeued"].GetInt();
    EXPECT_TRUE(answer->status == 200 || answer->status == 404) << answer->body;
  }
  EXPECT_EQ(requeued, 1);
  ASSERT_TRUE(eventually([&] { return counter_.handled.load() >= 1; }));
  ASSERT_TRUE(eventually([&] {
    auto backlog = store().work_backlog();
    return backlog.ok() && backlog->inbox == 0;
  }));
  // A third requeue now: the message is handled, nothing to requeue.
  EXPECT_EQ(post("/api/v1/dead-letters/requeue", ids_body({id})).status, 404);
  EXPECT_EQ(counter_.handled.load(), 1);
}

}  // namespace
}  // namespace runner_test
