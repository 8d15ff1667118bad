// A headless Chromium for tests, driven over the W3C WebDriver protocol (JSON over HTTP) by
// Debian's chromedriver: the browser harness of the console's tests (tests/console).
//
//   auto driver = ChromeDriver::start(dir);           // chromedriver --port=<free>, by its PID
//   auto browser = BrowserSession::open(**driver, dir);  // headless, its own user-data-dir
//   (*browser)->navigate("http://127.0.0.1:9464/console/");
//   (*browser)->wait_for_text("[data-test=dead-letter-count]", "1");
//   (*browser)->click("[data-test=group-requeue]");
//
// Every wait polls the page until its condition holds or its deadline passes; a failure's
// message says what was awaited and what the page showed last. When Chromium does not start,
// the message carries chromedriver's log (which includes Chromium's own output).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace console_test {

// The chromedriver process: started by this object and stopped by its PID (SIGTERM, then
// SIGKILL after a grace), with whatever Chromium it left behind in its process group.
class ChromeDriver {
 public:
  // Starts `chromedriver` (from PATH) on a free loopback port, logging to `dir`/chromedriver.log,
  // and waits until it answers /status.
  static absl::StatusOr<std::unique_ptr<ChromeDriver>> start(const std::filesystem::path& dir);
  ~ChromeDriver();
  ChromeDriver(const ChromeDriver&) = delete;
  ChromeDriver& operator=(const ChromeDriver&) = delete;

  int port() const { return port_; }
  // The end of chromedriver's log, for a failure message.
  std::string log_tail(std::size_t bytes = 6000) const;

 private:
  ChromeDriver() = default;

  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

class BrowserSession {
 public:
  static constexpr std::chrono::milliseconds kDefaultWait{8000};

  // A new headless session (--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage)
  // with a user-data-dir under `dir`.
  static absl::StatusOr<std::unique_ptr<BrowserSession>> open(ChromeDriver& driver,
                                                              const std::filesystem::path& dir);
  ~BrowserSession();  // ends the session (and its Chromium)
  BrowserSession(const BrowserSession&) = delete;
  BrowserSession& operator=(const BrowserSession&) = delete;

  absl::Status navigate(const std::string& url);
  // The first element matching a CSS selector: its WebDriver id (NotFound without one).
  absl::StatusOr<std::string> find(std::string_view css);
  absl::Status click(std::string_view css);
  // Types `text` into the element (as keystrokes; "\uE007" is Enter).
  absl::Status type(std::string_view css, std::string_view text);
  // The element's rendered text ("" when hidden).
  absl::StatusOr<std::string> text(std::string_view css);
  absl::StatusOr<bool> enabled(std::string_view css);
  // A DOM property ("value", "hidden", "dataset"...) as JSON text ("\"x\"", "true", "null").
  absl::StatusOr<std::string> property(std::string_view css, std::string_view name);
  // Runs `script` (a function body; `arguments` holds `args_json`'s items) and returns its
  // value. Async: the script calls arguments[arguments.length - 1](value) when done.
  absl::StatusOr<std::string> execute(std::string_view script, std::string_view args_json = "[]");
  absl::StatusOr<std::string> execute_async(std::string_view script,
                                            std::string_view args_json = "[]");
  // The page as a PNG (decoded bytes).
  absl::StatusOr<std::string> screenshot();

  // Polls until `condition` answers true (an error answer counts as not yet: the element may
  // not be there yet). DeadlineExceeded names `what` and the last answer otherwise.
  absl::Status wait_until(std::string_view what,
                          const std::function<absl::StatusOr<bool>()>& condition,
                          std::chrono::milliseconds deadline = kDefaultWait);
  // Until the element's text equals `expected`.
  absl::Status wait_for_text(std::string_view css, std::string_view expected,
                             std::chrono::milliseconds deadline = kDefaultWait);

 private:
  BrowserSession(int port, std::string id) : port_(port), id_(std::move(id)) {}
  absl::StatusOr<std::string> element_command(std::string_view css, std::string_view method,
                                              std::string_view command,
                                              std::string_view body = "{}");

  int port_;
  std::string id_;
};

// The WebDriver endpoint's answer to one request: the "value" member, or the protocol error
// ("no such element: ...") as a status.
absl::StatusOr<std::string> webdriver_call(int port, std::string_view method,
                                           const std::string& path, const std::string& body);

}  // namespace console_test
