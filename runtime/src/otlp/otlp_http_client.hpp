// OtlpHttpClient: one libcurl easy handle that POSTs protobuf bodies to a collector's URL, used
// by the exporter's one background thread only. libcurl rather than the cpp-httplib client the
// tests use: it is what OpenTelemetry's own C++ exporter uses, and it brings https with the
// system's CA certificates and the standard proxy variables (https_proxy, no_proxy) that a
// collector behind a company proxy needs; the runtime has no HTTP client of its own (its
// server, src/host/http, only answers).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace whizbang::otlp {

struct HttpPostResult {
  long status = 0;    // the HTTP status; 0 when no response came
  std::string error;  // what failed when no response came (libcurl's message)
  std::string body;   // the response's first bytes, for the log
  // The answer's Retry-After (seconds or a date), when it has one: how long to wait before
  // sending again.
  std::optional<std::chrono::milliseconds> retry_after;
  bool ok() const { return error.empty() && status >= 200 && status < 300; }
};

class OtlpHttpClient {
 public:
  // `abort`: when it becomes true, a request under way ends at once (shutdown past its time).
  OtlpHttpClient(std::string url, const std::vector<std::pair<std::string, std::string>>& headers,
                 std::chrono::milliseconds timeout, const std::atomic<bool>& abort);
  ~OtlpHttpClient();
  OtlpHttpClient(const OtlpHttpClient&) = delete;
  OtlpHttpClient& operator=(const OtlpHttpClient&) = delete;

  HttpPostResult post(const std::string& body);

 private:
  std::string url_;
  std::chrono::milliseconds timeout_;
  const std::atomic<bool>& abort_;
  void* curl_ = nullptr;     // CURL*
  void* headers_ = nullptr;  // curl_slist*
};

}  // namespace whizbang::otlp
