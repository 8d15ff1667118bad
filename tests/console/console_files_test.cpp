// The console's files as the runner serves them (docs/guide/14-running-services.md, "The web
// console"): built into the binary, with their content types and the headers that keep a
// browser from caching them, sniffing them or running anything but the console's own script.
#include <gtest/gtest.h>

#include <httplib.h>
#include <whizbang/host/service_runner.hpp>

#include <memory>
#include <string>

#include "console_receptors.hpp"
#include "whizbang_registry.hpp"

namespace console_test {
namespace {

class ConsoleFilesTests : public ::testing::Test {
 protected:
  void SetUp() override {
    whizbang::ServiceRunnerConfig config;
    config.service_name = "payments";
    config.http_port = 0;
    services_.add<Gateway>(gateway_);
    auto runner = whizbang::ServiceRunner::start(
        whizbang::generated::console_test_receptors::registry(), services_, config);
    ASSERT_TRUE(runner.ok()) << runner.status();
    runner_ = *std::move(runner);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", runner_->http_port());
  }

  Gateway gateway_;
  whizbang::ServiceRegistry services_;
  std::unique_ptr<whizbang::ServiceRunner> runner_;
  std::unique_ptr<httplib::Client> client_;
};

void expect_console_headers(const httplib::Response& response) {
  EXPECT_EQ(response.get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(response.get_header_value("X-Content-Type-Options"), "nosniff");
  const std::string policy = response.get_header_value("Content-Security-Policy");
  EXPECT_NE(policy.find("default-src 'none'"), std::string::npos) << policy;
  EXPECT_NE(policy.find("script-src 'self';"), std::string::npos) << policy;
  EXPECT_EQ(policy.find("unsafe-inline"), std::string::npos) << policy;
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos) << policy;
  EXPECT_FALSE(response.has_header("Set-Cookie"));
}

TEST_F(ConsoleFilesTests, Page_Script_Style_WithTheirTypesAndStrictHeaders) {
  auto page = client_->Get("/console/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<script src=\"app.js\" defer></script>"), std::string::npos);
  // No inline script or style: the policy would block it.
  EXPECT_EQ(page->body.find("<script>"), std::string::npos);
  EXPECT_EQ(page->body.find("style="), std::string::npos);
  expect_console_headers(*page);

  auto script = client_->Get("/console/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(script->body.find("/api/v1/overview"), std::string::npos);
  // Data from the API is never parsed as markup.
  EXPECT_EQ(script->body.find("innerHTML"), std::string::npos);
  EXPECT_EQ(script->body.find("localStorage"), std::string::npos);
  expect_console_headers(*script);

  auto style = client_->Get("/console/app.css");
  ASSERT_TRUE(style);
  EXPECT_EQ(style->status, 200);
  EXPECT_EQ(style->get_header_value("Content-Type"), "text/css; charset=utf-8");
  expect_console_headers(*style);
}

TEST_F(ConsoleFilesTests, ConsoleWithoutSlash_Redirects_UnknownFile_NotFound_PostRefused) {
  auto bare = client_->Get("/console");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 308);
  EXPECT_EQ(bare->get_header_value("Location"), "/console/");
  auto unknown = client_->Get("/console/secrets.txt");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto posted = client_->Post("/console/app.js", "", "text/plain");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 405);
}

}  // namespace
}  // namespace console_test
