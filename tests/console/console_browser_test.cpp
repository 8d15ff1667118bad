// The runner's web console (docs/guide/14-running-services.md, "The web console") in a real
// headless Chromium: it lists the dead letters of a real SQLite store, a requeue through the
// page handles the message exactly once, a discard through it moves the dead letter to the
// discarded ones with the typed reason, a dry run shows what the store's invocation records say,
// and without a token the page is read-only and the API refuses its POST. The screenshot of the
// docs (docs/guide/images/console.png) comes from here (a fresh one lands in the build directory on
// every run).
#include <gtest/gtest.h>

#include <httplib.h>
#include <rapidjson/document.h>
#include <unistd.h>
#include <whizbang/host/service_runner.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include "support/runner_config_args.hpp"
#include "support/temp_dir.hpp"

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "console_receptors.hpp"
#include "webdriver.hpp"
#include "whizbang_registry.hpp"

namespace console_test {
namespace {

using namespace std::chrono_literals;
using whizbang_test::ScopedEnv;

// A status that must be OK; its message (what the page showed last) otherwise.
#define ASSERT_OK(expression)                       \
  do {                                              \
    const absl::Status status_ = (expression);      \
    ASSERT_TRUE(status_.ok()) << status_.message(); \
  } while (false)

constexpr const char* kToken = "operator-secret-7f3a";
constexpr const char* kService = "payments";

// One ChargeCard delivered to the service's inbox, written before the service starts (through
// a store of the test's own on the same file): the service's inbox worker takes it at start,
// the declining gateway fails it permanently, and it is dead-lettered.
void deliver_charge(const std::string& database, const std::string& order_id) {
  whizbang::StoreOptions options;
  // An instance of another service: one of this service would share its partitions with the
  // runner until its heartbeat lapsed, and might own the row's.
  options.instance.service_name = "console-test-writer";
  options.instance.instance_id = whizbang::MessageId::mint().uuid();
  auto store = whizbang::SqliteWorkStore::open(database, options);
  ASSERT_TRUE(store.ok()) << store.status();
  ChargeCard charge;
  charge.order_id = order_id;
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(std::move(charge)),
                                 {"checkout", whizbang::MessageId::mint().uuid(), "test-host", 1});
  whizbang::InboxMessage message;
  message.message_id = envelope.message_id;
  message.handler_name = "ChargeCardHandler";
  message.message_type = std::string(whizbang::MessageTraits<ChargeCard>::info().wire_name);
  message.envelope_json = whizbang::serialize_envelope(envelope);
  // Outside a transaction: stored unleased, for any instance (inside one, it would be leased to
  // this writer, which never handles it).
  auto stored = (*store)->store_inbox_messages({&message, 1}, whizbang::service_id_for(kService));
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 1u);
}

class ConsoleBrowserTests : public ::testing::Test {
 protected:
  // One chromedriver for the suite (each test opens its own browser session).
  static void SetUpTestSuite() {
    suite_dir_ =
        std::filesystem::temp_directory_path() / ("whizbang-console-" + std::to_string(::getpid()));
    std::filesystem::create_directories(suite_dir_);
    auto driver = ChromeDriver::start(suite_dir_);
    if (driver.ok()) {
      driver_ = std::move(*driver).release();
    } else {
      driver_status_ = new absl::Status(driver.status());
    }
  }
  static void TearDownTestSuite() {
    delete driver_;
    driver_ = nullptr;
    delete driver_status_;
    driver_status_ = nullptr;
    std::filesystem::remove_all(suite_dir_);
  }

  void SetUp() override {
    ASSERT_NE(driver_, nullptr) << *driver_status_;
    auto session = BrowserSession::open(*driver_, dir_.path());
    ASSERT_TRUE(session.ok()) << session.status();
    browser_ = *std::move(session);
  }

  // The payments service on a SQLite file holding a dead-lettered ChargeCard per order (once
  // started, the dead letters are awaited on the page). `admin_token`: WHIZBANG_ADMIN_TOKEN, or
  // none.
  void start_service(const char* admin_token,
                     std::initializer_list<const char*> orders = {"order-1042"}) {
    const std::string database = dir_.file("payments.db");
    for (const char* order : orders) ASSERT_NO_FATAL_FAILURE(deliver_charge(database, order));
    ScopedEnv token("WHIZBANG_ADMIN_TOKEN", admin_token);
    auto config = whizbang_test::parse_runner_args(
        {"--service", kService, "--store", database.c_str(), "--http-port", "0"});
    ASSERT_TRUE(config.ok()) << config.status();
    services_.add<Gateway>(gateway_);
    whizbang::ServiceRunnerHooks hooks;
    // A requeued row is taken at the next poll: keep the wait short.
    hooks.host = [](whizbang::HostOptions& options) { options.poll_interval = 100ms; };
    auto runner =
        whizbang::ServiceRunner::start(whizbang::generated::console_test_receptors::registry(),
                                       services_, *config, std::move(hooks));
    ASSERT_TRUE(runner.ok()) << runner.status();
    runner_ = *std::move(runner);
    base_ = "http://127.0.0.1:" + std::to_string(runner_->http_port());
  }

  void open_console() {
    ASSERT_OK(browser_->navigate(base_ + "/console/"));
    ASSERT_OK(browser_->wait_for_text("[data-test=service]", kService));
  }

  // How many refreshes the page has completed (it polls every 2 s).
  int polls() {
    auto json = browser_->execute("return Number(document.body.dataset.polls || 0);");
    return json.ok() ? std::atoi(json->c_str()) : -1;
  }

  void use_token() {
    ASSERT_OK(browser_->type("[data-test=token]", kToken));
    ASSERT_OK(browser_->click("[data-test=token-use]"));
    ASSERT_OK(browser_->wait_for_text("[data-test=group-requeue]", "Requeue"));
  }

  std::vector<whizbang::DeadLetter> stored_letters() {
    auto letters = runner_->host().store().dead_letters(100);
    EXPECT_TRUE(letters.ok()) << letters.status();
    return letters.ok() ? *letters : std::vector<whizbang::DeadLetter>{};
  }

  std::size_t stored_dead_letters() {
    auto letters = runner_->host().store().dead_letters(100);
    EXPECT_TRUE(letters.ok()) << letters.status();
    return letters.ok() ? letters->size() : 0;
  }

  whizbang_test::TempDir dir_;
  Gateway gateway_;
  whizbang::ServiceRegistry services_;
  std::unique_ptr<whizbang::ServiceRunner> runner_;
  std::unique_ptr<BrowserSession> browser_;
  std::string base_;

  static inline std::filesystem::path suite_dir_;
  static inline ChromeDriver* driver_ = nullptr;
  static inline absl::Status* driver_status_ = nullptr;
};

TEST_F(ConsoleBrowserTests, DeadLetterOfARealStore_RequeuedThroughThePage_HandledExactlyOnce) {
  ASSERT_NO_FATAL_FAILURE(start_service(kToken));
  ASSERT_NO_FATAL_FAILURE(open_console());
  // The dead letter, counted and grouped by its failure.
  ASSERT_OK(browser_->wait_for_text("[data-test=dead-letter-count]", "1"));
  ASSERT_OK(browser_->wait_for_text("[data-test=group-count]", "1"));
  EXPECT_EQ(gateway_.declined.load(), 1);
  auto group = browser_->text("[data-test=group-row]");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_NE(group->find("ChargeCard"), std::string::npos) << *group;
  EXPECT_NE(group->find("card declined by the gateway"), std::string::npos) << *group;
  // The backlog: nothing pending (the one message is a dead letter, not a backlog).
  EXPECT_EQ(browser_->text("[data-test=backlog-inbox]").value_or("?"), "0");
  EXPECT_EQ(browser_->text("[data-test=backlog-outbox]").value_or("?"), "0");
  EXPECT_EQ(browser_->text("[data-test=breakers-empty]").value_or("?"),
            "no circuit breakers configured");

  // The operator types the token: the buttons act.
  ASSERT_OK(browser_->type("[data-test=token]", kToken));
  ASSERT_OK(browser_->click("[data-test=token-use]"));
  ASSERT_OK(browser_->wait_for_text("[data-test=group-requeue]", "Requeue"));
  EXPECT_EQ(browser_->text("[data-test=mode]").value_or("?"), "token set");
  // The token stays in the page's memory: not in the field, a cookie or storage.
  EXPECT_EQ(browser_->property("[data-test=token]", "value").value_or("?"), "\"\"");
  EXPECT_EQ(browser_
                ->execute("return document.cookie + localStorage.length + "
                          "sessionStorage.length;")
                .value_or("?"),
            "\"00\"");

  auto png = browser_->screenshot();
  ASSERT_TRUE(png.ok()) << png.status();
  ASSERT_EQ(png->substr(0, 4), "\x89PNG");
  std::ofstream(WHIZBANG_CONSOLE_SCREENSHOT, std::ios::binary) << *png;

  // The cause is fixed; the operator requeues the group.
  gateway_.declining = false;
  ASSERT_OK(browser_->click("[data-test=group-requeue]"));
  const absl::Status handled = browser_->wait_until(
      "the charge to be handled", [&]() -> absl::StatusOr<bool> { return gateway_.charged >= 1; });
  ASSERT_TRUE(handled.ok()) << handled.message() << "; the page says: "
                            << browser_->text("[data-test=status]").value_or("?")
                            << "; dead letters in the store: " << stored_dead_letters();
  ASSERT_OK(browser_->wait_for_text("[data-test=dead-letter-count]", "0"));
  auto status = browser_->text("[data-test=status]");
  EXPECT_NE(status.value_or("").find("requeued 1"), std::string::npos) << status.value_or("");
  EXPECT_EQ(browser_->text("[data-test=groups-empty]").value_or("?"), "no dead letters");
  // Exactly once: two more refreshes of the page later, still one handling and no dead letter.
  const int seen = polls();
  ASSERT_OK(browser_->wait_until("two more refreshes",
                                 [&]() -> absl::StatusOr<bool> { return polls() >= seen + 2; }));
  EXPECT_EQ(gateway_.charged.load(), 1);
  EXPECT_EQ(gateway_.declined.load(), 1);
  EXPECT_EQ(stored_dead_letters(), 0u);
}

// The page's own POST, without an Authorization header: what the API answers (its status).
constexpr const char* kPostWithoutToken = R"(
  const done = arguments[arguments.length - 1];
  const group = document.querySelector('[data-test=group-row]').dataset.group;
  fetch('/api/v1/dead-letters/requeue', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({group})})
    .then((response) => done(response.status), (error) => done(String(error)));
)";

TEST_F(ConsoleBrowserTests, WithoutAToken_ThePageIsReadOnly_AndThePostIsRefused) {
  ASSERT_NO_FATAL_FAILURE(start_service(kToken));
  ASSERT_NO_FATAL_FAILURE(open_console());
  ASSERT_OK(browser_->wait_for_text("[data-test=group-count]", "1"));
  EXPECT_EQ(browser_->text("[data-test=mode]").value_or("?"), "read-only");
  EXPECT_EQ(browser_->text("[data-test=group-requeue]").value_or("?"), "Requeue (read-only)");
  EXPECT_EQ(browser_->text("[data-test=group-discard]").value_or("?"), "Discard (read-only)");
  EXPECT_FALSE(browser_->enabled("[data-test=group-requeue]").value_or(true));
  EXPECT_FALSE(browser_->enabled("[data-test=group-dry-run]").value_or(true));

  gateway_.declining = false;
  EXPECT_EQ(browser_->execute_async(kPostWithoutToken).value_or("?"), "401");
  const int seen = polls();
  ASSERT_OK(browser_->wait_until("two more refreshes",
                                 [&]() -> absl::StatusOr<bool> { return polls() >= seen + 2; }));
  EXPECT_EQ(browser_->text("[data-test=dead-letter-count]").value_or("?"), "1");
  EXPECT_EQ(gateway_.charged.load(), 0);
  EXPECT_EQ(stored_dead_letters(), 1u);
}

TEST_F(ConsoleBrowserTests, ServiceWithoutAdminToken_PageSaysSo_AndEveryPostIsRefused) {
  ASSERT_NO_FATAL_FAILURE(start_service(nullptr));
  ASSERT_NO_FATAL_FAILURE(open_console());
  ASSERT_OK(
      browser_->wait_for_text("[data-test=mode]", "read-only (the service has no admin token)"));
  EXPECT_EQ(browser_->property("[data-test=token]", "disabled").value_or("?"), "true");
  EXPECT_EQ(browser_->text("[data-test=group-requeue]").value_or("?"), "Requeue (read-only)");
  EXPECT_EQ(browser_->execute_async(kPostWithoutToken).value_or("?"), "403");
  EXPECT_EQ(stored_dead_letters(), 1u);
}

TEST_F(ConsoleBrowserTests, DiscardThroughThePage_GoneFromTheStoreReasonKept_NeverHandled) {
  ASSERT_NO_FATAL_FAILURE(start_service(kToken));
  ASSERT_NO_FATAL_FAILURE(open_console());
  ASSERT_OK(browser_->wait_for_text("[data-test=dead-letter-count]", "1"));
  const std::vector<whizbang::DeadLetter> before = stored_letters();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_NO_FATAL_FAILURE(use_token());

  // The operator discards the group, with a reason typed in the page's dialog.
  gateway_.declining = false;  // were it requeued instead, it would be charged
  ASSERT_OK(browser_->click("[data-test=group-discard]"));
  ASSERT_OK(browser_->type("[data-test=discard-reason]", "order cancelled by the customer"));
  ASSERT_OK(browser_->click("[data-test=discard-confirm]"));
  ASSERT_OK(browser_->wait_for_text("[data-test=dead-letter-count]", "0"));
  EXPECT_NE(browser_->text("[data-test=status]").value_or("").find("discarded 1"),
            std::string::npos)
      << browser_->text("[data-test=status]").value_or("");
  EXPECT_EQ(browser_->text("[data-test=groups-empty]").value_or("?"), "no dead letters");

  // The store: no longer a dead letter, kept among the discarded with the typed reason.
  whizbang::WorkStore& store = runner_->host().store();
  auto listed = store.list_dead_letters({}, whizbang::kMaxDeadLetterPage, std::nullopt);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_TRUE(listed->items.empty());
  auto discarded = store.discarded_dead_letters(10);
  ASSERT_TRUE(discarded.ok()) << discarded.status();
  ASSERT_EQ(discarded->size(), 1u);
  EXPECT_EQ((*discarded)[0].letter.id, before[0].id);
  EXPECT_EQ((*discarded)[0].discard_reason, "order cancelled by the customer");
  EXPECT_EQ((*discarded)[0].letter.error, before[0].error);
  // Never handled: two more refreshes later, the charge was not made.
  const int seen = polls();
  ASSERT_OK(browser_->wait_until("two more refreshes",
                                 [&]() -> absl::StatusOr<bool> { return polls() >= seen + 2; }));
  EXPECT_EQ(gateway_.charged.load(), 0);
  EXPECT_EQ(stored_dead_letters(), 0u);
}

// The dry run's rows on the page: each row's cells' texts (id, type, target, would fire,
// already fired), as a JSON array of arrays.
constexpr const char* kDryRunRows = R"(
  return [...document.querySelectorAll('[data-test=dry-run-row]')].map(
      (row) => [...row.cells].map((cell) => cell.textContent));
)";

TEST_F(ConsoleBrowserTests, DryRunThroughThePage_ShowsTheStoresInvocationRecords_ChangesNothing) {
  ASSERT_NO_FATAL_FAILURE(start_service(kToken, {"order-1042", "order-1043"}));
  ASSERT_NO_FATAL_FAILURE(open_console());
  ASSERT_OK(browser_->wait_for_text("[data-test=dead-letter-count]", "2"));
  const std::vector<whizbang::DeadLetter> letters = stored_letters();
  ASSERT_EQ(letters.size(), 2u);
  // The charger already fired for the first message (as an earlier attempt's record says); the
  // second has no record.
  std::string charger;
  for (const whizbang::ReceptorInfo& receptor :
       whizbang::generated::console_test_receptors::registry().receptors()) {
    if (receptor.message == &whizbang::MessageTraits<ChargeCard>::info()) {
      charger = std::string(receptor.id);
    }
  }
  ASSERT_FALSE(charger.empty());
  whizbang::WorkStore& store = runner_->host().store();
  whizbang::ReceptorInvocationRecord record;
  record.receptor_id = whizbang::StaticOrOwnedString(charger);
  record.stage = whizbang::Stage::PostInboxInline;
  record.completed_at = whizbang::TimePoint::clock::now();
  record.service_name = kService;
  ASSERT_TRUE(store.record_receptor_invocations(letters[0].id, {&record, 1}).ok());

  ASSERT_NO_FATAL_FAILURE(use_token());
  gateway_.declining = false;  // a requeue would charge: a dry run must not
  ASSERT_OK(browser_->click("[data-test=group-dry-run]"));
  rapidjson::Document rows;
  ASSERT_OK(browser_->wait_until("the dry run's two rows", [&]() -> absl::StatusOr<bool> {
    auto json = browser_->execute(kDryRunRows);
    if (!json.ok()) return json.status();
    rows.Parse(json->c_str());
    return !rows.HasParseError() && rows.IsArray() && rows.Size() == 2;
  }));
  EXPECT_NE(
      browser_->text("[data-test=status]").value_or("").find("2 message(s) would be requeued"),
      std::string::npos)
      << browser_->text("[data-test=status]").value_or("");

  // Each row against the store: what its invocation records say fired is "already fired", the
  // rest of the message type's receptors "would fire".
  const std::string none = "\u2014";  // the page's dash for an empty list
  std::size_t checked = 0;
  for (const auto& row : rows.GetArray()) {
    ASSERT_TRUE(row.IsArray() && row.Size() == 5u);
    const std::string id = row[0].GetString();
    for (const whizbang::DeadLetter& letter : letters) {
      if (letter.id.uuid().to_string() != id) continue;
      auto detail = store.find_dead_letter({letter.source, letter.id});
      ASSERT_TRUE(detail.ok() && detail->has_value());
      const bool fired = !(*detail)->invocations.empty();
      EXPECT_EQ(fired, letter.id == letters[0].id) << id;
      EXPECT_EQ(row[3].GetString(), fired ? none : charger) << id;
      EXPECT_EQ(row[4].GetString(), fired ? charger : none) << id;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u) << "a row for each dead letter";
  EXPECT_EQ(browser_->property("[data-test=dry-run]", "hidden").value_or("?"), "false");

  // Nothing changed: two more refreshes later, both still dead letters, neither charged.
  const int seen = polls();
  ASSERT_OK(browser_->wait_until("two more refreshes",
                                 [&]() -> absl::StatusOr<bool> { return polls() >= seen + 2; }));
  EXPECT_EQ(browser_->text("[data-test=dead-letter-count]").value_or("?"), "2");
  EXPECT_EQ(stored_dead_letters(), 2u);
  EXPECT_EQ(gateway_.charged.load(), 0);
}

}  // namespace
}  // namespace console_test
