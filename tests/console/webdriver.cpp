#include "webdriver.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace console_test {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kElementKey = "element-6066-11e4-a52e-4f735466cecf";
// How often a wait looks at the page again: a poll, not a synchronisation by sleeping.
constexpr auto kPollEvery = 50ms;

std::string json_string(std::string_view text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return buffer.GetString();
}

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

// A loopback port nobody listens on right now (chromedriver takes it a moment later).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::string json_text_of(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  return document.IsString() ? std::string(document.GetString(), document.GetStringLength()) : json;
}

}  // namespace

absl::StatusOr<std::string> webdriver_call(int port, std::string_view method,
                                           const std::string& path, const std::string& body) {
  httplib::Client client("127.0.0.1", port);
  // A new session starts Chromium: seconds on a busy machine.
  client.set_read_timeout(60, 0);
  client.set_connection_timeout(5, 0);
  httplib::Result result = method == "GET"      ? client.Get(path)
                           : method == "DELETE" ? client.Delete(path)
                                                : client.Post(path, body, "application/json");
  if (!result) {
    return absl::UnavailableError(std::string(method) + " " + path + ": " +
                                  httplib::to_string(result.error()));
  }
  rapidjson::Document document;
  document.Parse(result->body.c_str());
  if (document.HasParseError() || !document.IsObject() || !document.HasMember("value")) {
    return absl::InternalError(std::string(method) + " " + path + ": not a WebDriver answer (" +
                               std::to_string(result->status) + "): " + result->body);
  }
  const rapidjson::Value& value = document["value"];
  if (result->status != 200) {
    std::string error = value.IsObject() && value.HasMember("error") && value["error"].IsString()
                            ? value["error"].GetString()
                            : "error";
    std::string message =
        value.IsObject() && value.HasMember("message") && value["message"].IsString()
            ? value["message"].GetString()
            : result->body;
    const std::string text = std::string(method) + " " + path + ": " + error + ": " + message;
    if (error == "no such element" || error == "stale element reference") {
      return absl::NotFoundError(text);
    }
    return absl::InternalError(text);
  }
  return to_json(value);
}

// ---- ChromeDriver -------------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<ChromeDriver>> ChromeDriver::start(
    const std::filesystem::path& dir) {
  std::unique_ptr<ChromeDriver> driver(new ChromeDriver());
  driver->log_ = dir / "chromedriver.log";
  driver->port_ = free_port();
  const std::string port_flag = "--port=" + std::to_string(driver->port_);
  const std::string log_flag = "--log-path=" + driver->log_.string();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // Its own process group: the Chromium it starts can be stopped with it, by this PID.
    setpgid(0, 0);
    const int log = open(driver->log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    execlp("chromedriver", "chromedriver", port_flag.c_str(), log_flag.c_str(),
           "--enable-chrome-logs", static_cast<char*>(nullptr));
    _exit(127);
  }
  driver->pid_ = pid;
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      driver->pid_ = -1;
      return absl::FailedPreconditionError(
          "chromedriver exited at start (status " + std::to_string(status) +
          "; ./dev.sh installs the chromium and chromium-driver packages):\n" + driver->log_tail());
    }
    absl::StatusOr<std::string> ready = webdriver_call(driver->port_, "GET", "/status", "");
    if (ready.ok() && ready->find("\"ready\":true") != std::string::npos) return driver;
    std::this_thread::sleep_for(kPollEvery);
  }
  return absl::DeadlineExceededError("chromedriver did not answer /status within 15 s:\n" +
                                     driver->log_tail());
}

ChromeDriver::~ChromeDriver() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(kPollEvery);
  }
  // Whatever it started and left (a Chromium whose session was not ended).
  kill(-pid_, SIGKILL);
}

std::string ChromeDriver::log_tail(std::size_t bytes) const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return all.size() > bytes ? "…" + all.substr(all.size() - bytes) : all;
}

// ---- BrowserSession -----------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<BrowserSession>> BrowserSession::open(
    ChromeDriver& driver, const std::filesystem::path& dir) {
  const std::filesystem::path profile = dir / "chromium-profile";
  std::filesystem::create_directories(profile);
  const std::string capabilities =
      R"({"capabilities":{"alwaysMatch":{"browserName":"chrome","pageLoadStrategy":"normal",)"
      R"("timeouts":{"implicit":0,"pageLoad":15000,"script":10000},)"
      R"("goog:chromeOptions":{"args":["--headless=new","--no-sandbox","--disable-gpu",)"
      R"("--disable-dev-shm-usage","--no-first-run","--no-default-browser-check",)"
      R"("--disable-extensions","--window-size=1280,860","--lang=en-US",)"
      R"("--user-data-dir=)" +
      profile.string() + R"("]}}}})";
  absl::StatusOr<std::string> created =
      webdriver_call(driver.port(), "POST", "/session", capabilities);
  if (!created.ok()) {
    return absl::FailedPreconditionError(std::string("Chromium did not start: ") +
                                         std::string(created.status().message()) +
                                         "\nchromedriver's log:\n" + driver.log_tail());
  }
  rapidjson::Document value;
  value.Parse(created->c_str());
  if (!value.IsObject() || !value.HasMember("sessionId") || !value["sessionId"].IsString()) {
    return absl::InternalError("a new session without an id: " + *created);
  }
  return std::unique_ptr<BrowserSession>(
      new BrowserSession(driver.port(), value["sessionId"].GetString()));
}

BrowserSession::~BrowserSession() { (void)webdriver_call(port_, "DELETE", "/session/" + id_, ""); }

absl::Status BrowserSession::navigate(const std::string& url) {
  return webdriver_call(port_, "POST", "/session/" + id_ + "/url",
                        R"({"url":)" + json_string(url) + "}")
      .status();
}

absl::StatusOr<std::string> BrowserSession::find(std::string_view css) {
  absl::StatusOr<std::string> found =
      webdriver_call(port_, "POST", "/session/" + id_ + "/element",
                     R"({"using":"css selector","value":)" + json_string(css) + "}");
  if (!found.ok()) return found.status();
  rapidjson::Document value;
  value.Parse(found->c_str());
  const std::string key(kElementKey);
  if (!value.IsObject() || !value.HasMember(key.c_str()) || !value[key.c_str()].IsString()) {
    return absl::InternalError("no element reference in " + *found);
  }
  return std::string(value[key.c_str()].GetString());
}

absl::StatusOr<std::string> BrowserSession::element_command(std::string_view css,
                                                            std::string_view method,
                                                            std::string_view command,
                                                            std::string_view body) {
  absl::StatusOr<std::string> element = find(css);
  if (!element.ok()) return element.status();
  return webdriver_call(port_, method,
                        "/session/" + id_ + "/element/" + *element + "/" + std::string(command),
                        std::string(body));
}

absl::Status BrowserSession::click(std::string_view css) {
  return element_command(css, "POST", "click").status();
}

absl::Status BrowserSession::type(std::string_view css, std::string_view text) {
  return element_command(css, "POST", "value", R"({"text":)" + json_string(text) + "}").status();
}

absl::StatusOr<std::string> BrowserSession::text(std::string_view css) {
  absl::StatusOr<std::string> json = element_command(css, "GET", "text");
  if (!json.ok()) return json.status();
  return json_text_of(*json);
}

absl::StatusOr<bool> BrowserSession::enabled(std::string_view css) {
  absl::StatusOr<std::string> json = element_command(css, "GET", "enabled");
  if (!json.ok()) return json.status();
  return *json == "true";
}

absl::StatusOr<std::string> BrowserSession::property(std::string_view css, std::string_view name) {
  return element_command(css, "GET", "property/" + std::string(name));
}

absl::StatusOr<std::string> BrowserSession::execute(std::string_view script,
                                                    std::string_view args_json) {
  return webdriver_call(
      port_, "POST", "/session/" + id_ + "/execute/sync",
      R"({"script":)" + json_string(script) + R"(,"args":)" + std::string(args_json) + "}");
}

absl::StatusOr<std::string> BrowserSession::execute_async(std::string_view script,
                                                          std::string_view args_json) {
  return webdriver_call(
      port_, "POST", "/session/" + id_ + "/execute/async",
      R"({"script":)" + json_string(script) + R"(,"args":)" + std::string(args_json) + "}");
}

absl::StatusOr<std::string> BrowserSession::screenshot() {
  absl::StatusOr<std::string> json =
      webdriver_call(port_, "GET", "/session/" + id_ + "/screenshot", "");
  if (!json.ok()) return json.status();
  std::string png;
  if (!absl::Base64Unescape(json_text_of(*json), &png)) {
    return absl::InternalError("the screenshot is not base64");
  }
  return png;
}

absl::Status BrowserSession::wait_until(std::string_view what,
                                        const std::function<absl::StatusOr<bool>()>& condition,
                                        std::chrono::milliseconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string last = "never asked";
  while (true) {
    absl::StatusOr<bool> holds = condition();
    if (holds.ok() && *holds) return absl::OkStatus();
    last = holds.ok() ? "false" : std::string(holds.status().message());
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(kPollEvery);
  }
  return absl::DeadlineExceededError("waited " + std::to_string(deadline.count()) + " ms for " +
                                     std::string(what) + "; last: " + last);
}

absl::Status BrowserSession::wait_for_text(std::string_view css, std::string_view expected,
                                           std::chrono::milliseconds deadline) {
  std::string seen = "(no element)";
  absl::Status waited = wait_until(
      std::string(css) + " to read \"" + std::string(expected) + "\"",
      [&]() -> absl::StatusOr<bool> {
        absl::StatusOr<std::string> now = text(css);
        if (!now.ok()) return now.status();
        seen = *now;
        return seen == expected;
      },
      deadline);
  if (waited.ok()) return waited;
  return absl::DeadlineExceededError(std::string(waited.message()) + " (it read \"" + seen + "\")");
}

}  // namespace console_test
