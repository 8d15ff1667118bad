// A stand-in for the operator API (docs/guide/14-running-services.md) over a real WorkStore, for
// the console's browser tests while the runner's own API is not built in: the endpoints the page
// calls (overview, groups, list, requeue of a group), the contract's token rules (403 with no
// token configured, 401 for a missing or wrong one) and the console's files exactly as the
// runner serves them (register_console_routes). Test code only.
#pragma once

#include <httplib.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/http_routes.hpp"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "service_runner_console.hpp"
#include "whizbang/store/work_store.hpp"

namespace console_test {

class FakeOperatorApi {
 public:
  // Serves on a free loopback port until destroyed. `token` empty: read-only.
  FakeOperatorApi(whizbang::WorkStore& store, std::string service, std::string token)
      : store_(store), service_(std::move(service)), token_(std::move(token)) {
    whizbang::register_console_routes(console_);
    server_.Get(R"(/console.*)", [this](const httplib::Request& in, httplib::Response& out) {
      whizbang::http::HttpRequest request;
      request.method = "GET";
      request.path = in.path;
      const whizbang::http::HttpResponse answer = console_.respond(request);
      out.status = answer.status;
      for (const auto& [name, value] : answer.headers) out.set_header(name, value);
      out.set_content(answer.body, answer.content_type);
    });
    server_.Get("/api/v1/overview", [this](const httplib::Request&, httplib::Response& out) {
      std::lock_guard lock(mutex_);
      const auto letters = store_.dead_letters(1000);
      json(out, 200, [&](auto& w) {
        w.StartObject();
        w.Key("service");
        w.String(service_.c_str());
        w.Key("read_only");
        w.Bool(token_.empty());
        w.Key("backlog");
        w.StartObject();
        for (const char* queue : {"outbox", "inbox", "perspectives"}) {
          w.Key(queue);
          w.Int(0);
        }
        w.EndObject();
        w.Key("dead_letters");
        w.Uint64(letters.ok() ? letters->size() : 0);
        w.Key("handled_total");
        w.Int(0);
        w.Key("published_total");
        w.Int(0);
        w.Key("breakers");
        w.StartArray();
        w.EndArray();
        w.EndObject();
      });
    });
    server_.Get("/api/v1/dead-letters/groups",
                [this](const httplib::Request&, httplib::Response& out) {
                  std::lock_guard lock(mutex_);
                  const auto groups = grouped();
                  json(out, 200, [&](auto& w) {
                    w.StartObject();
                    w.Key("groups");
                    w.StartArray();
                    for (const auto& [key, letters] : groups) {
                      const whizbang::DeadLetter& first = letters.front();
                      w.StartObject();
                      w.Key("group");
                      w.String(key.c_str());
                      w.Key("source");
                      w.String(std::string(whizbang::to_string(first.source)).c_str());
                      w.Key("target");
                      w.String(first.target.c_str());
                      w.Key("message_type");
                      w.String(first.message_type.c_str());
                      w.Key("reason");
                      w.String(std::to_string(static_cast<int>(first.reason)).c_str());
                      w.Key("error");
                      w.String(first_line(first.error).c_str());
                      w.Key("count");
                      w.Uint64(letters.size());
                      w.EndObject();
                    }
                    w.EndArray();
                    w.EndObject();
                  });
                });
    server_.Post("/api/v1/dead-letters/requeue",
                 [this](const httplib::Request& in, httplib::Response& out) {
                   if (!authorized(in, out)) return;
                   rapidjson::Document body;
                   body.Parse(in.body.c_str());
                   if (body.HasParseError() || !body.IsObject() || !body.HasMember("group") ||
                       !body["group"].IsString() || body.HasMember("dry_run")) {
                     return error(out, 400, "the fake takes {\"group\": key} only");
                   }
                   std::lock_guard lock(mutex_);
                   std::vector<whizbang::MessageId> ids;
                   auto groups = grouped();
                   for (const auto& letter : groups[body["group"].GetString()]) {
                     ids.push_back(letter.id);
                   }
                   if (ids.empty()) return error(out, 404, "no such group");
                   const auto requeued = store_.requeue_dead_letters(ids);
                   if (!requeued.ok())
                     return error(out, 500, std::string(requeued.status().message()));
                   json(out, 200, [&](auto& w) {
                     w.StartObject();
                     w.Key("requeued");
                     w.Uint64(*requeued);
                     w.EndObject();
                   });
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // bind_to_any_port() already listens: a connection waits in the backlog until accepted.
  }
  ~FakeOperatorApi() {
    server_.stop();
    thread_.join();
  }
  FakeOperatorApi(const FakeOperatorApi&) = delete;
  FakeOperatorApi& operator=(const FakeOperatorApi&) = delete;

  int port() const { return port_; }

 private:
  static std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

  std::map<std::string, std::vector<whizbang::DeadLetter>> grouped() {
    std::map<std::string, std::vector<whizbang::DeadLetter>> groups;
    const auto letters = store_.dead_letters(1000);
    if (!letters.ok()) return groups;
    for (const whizbang::DeadLetter& letter : *letters) {
      const std::string key = std::string(whizbang::to_string(letter.source)) + "|" +
                              letter.target + "|" + letter.message_type + "|" +
                              std::to_string(static_cast<int>(letter.reason)) + "|" +
                              first_line(letter.error);
      groups[key].push_back(letter);
    }
    return groups;
  }

  bool authorized(const httplib::Request& in, httplib::Response& out) {
    if (token_.empty()) {
      error(out, 403, "read-only: no admin token configured");
      return false;
    }
    if (in.get_header_value("Authorization") != "Bearer " + token_) {
      error(out, 401, "missing or wrong token");
      return false;
    }
    return true;
  }

  template <class Write>
  static void json(httplib::Response& out, int status, Write write) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    write(writer);
    out.status = status;
    out.set_content(buffer.GetString(), "application/json");
  }
  static void error(httplib::Response& out, int status, const std::string& text) {
    json(out, status, [&](auto& w) {
      w.StartObject();
      w.Key("error");
      w.String(text.c_str());
      w.EndObject();
    });
  }

  whizbang::WorkStore& store_;
  std::string service_;
  std::string token_;
  std::mutex mutex_;
  whizbang::http::HttpRoutes console_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace console_test
