#include "otlp_http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

namespace whizbang::otlp {
namespace {

constexpr std::size_t kMaxKeptResponse = 512;  // enough of an error body for the log

// libcurl's global state, once per process (curl_global_init is not thread-safe everywhere).
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::size_t keep_response(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  const std::size_t bytes = size * count;
  if (body->size() < kMaxKeptResponse) {
    body->append(data, std::min(bytes, kMaxKeptResponse - body->size()));
  }
  return bytes;
}

int check_abort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

}  // namespace

OtlpHttpClient::OtlpHttpClient(std::string url,
                               const std::vector<std::pair<std::string, std::string>>& headers,
                               std::chrono::milliseconds timeout, const std::atomic<bool>& abort)
    : url_(std::move(url)), timeout_(timeout), abort_(abort) {
  init_curl_once();
  curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/x-protobuf");
  for (const auto& [name, value] : headers) {
    std::string line = name;
    line.append(": ").append(value);
    list = curl_slist_append(list, line.c_str());
  }
  headers_ = list;
  curl_ = curl_easy_init();
}

OtlpHttpClient::~OtlpHttpClient() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
  curl_slist_free_all(static_cast<curl_slist*>(headers_));
}

HttpPostResult OtlpHttpClient::post(const std::string& body) {
  HttpPostResult result;
  CURL* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) {
    result.error = "libcurl could not be initialised";
    return result;
  }
  // The handle is reused (its connection is kept alive between batches); options set per call.
  curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(headers_));
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_.count()));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM from name resolution in threads
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep_response);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, check_abort);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &abort_);
  const CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) {
    result.error = curl_easy_strerror(code);
    return result;
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0) {
    result.retry_after = std::chrono::seconds(retry_after);
  }
  return result;
}

}  // namespace whizbang::otlp
