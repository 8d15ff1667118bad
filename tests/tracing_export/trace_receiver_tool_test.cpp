// whizbang-trace-receiver as ./dev.sh run distributed uses it: a process that collects the
// services' spans and, on SIGTERM, prints the trace across the most services as a tree.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "span_samples.hpp"
#include "whizbang/observability/trace_names.hpp"
#include "whizbang/otlp/otlp_exporter.hpp"

namespace {

using namespace std::chrono_literals;

struct Tool {
  pid_t pid = -1;
  FILE* output = nullptr;

  Tool() {
    int pipe_fds[2];
    EXPECT_EQ(pipe(pipe_fds), 0);
    pid = fork();
    if (pid == 0) {
      dup2(pipe_fds[1], STDOUT_FILENO);
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      execl(WHIZBANG_TRACE_RECEIVER_TOOL, WHIZBANG_TRACE_RECEIVER_TOOL, "--port", "0",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(pipe_fds[1]);
    output = fdopen(pipe_fds[0], "r");
  }
  ~Tool() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (output != nullptr) fclose(output);
  }

  std::string line() {
    char buffer[4096];
    return fgets(buffer, sizeof buffer, output) != nullptr ? std::string(buffer) : std::string();
  }
  std::string rest() {
    std::string all;
    for (std::string next = line(); !next.empty(); next = line()) all += next;
    return all;
  }
};

void send(const std::string& endpoint, const std::string& service,
          std::vector<whizbang::SpanData> spans) {
  whizbang::OtlpExporterOptions options;
  options.endpoint = endpoint;
  options.resource = whizbang::otlp_service_resource(service, service + "-1");
  auto exporter = whizbang::OtlpExporter::create(options);
  ASSERT_TRUE(exporter.ok()) << exporter.status();
  for (auto& span : spans) (*exporter)->on_end(std::move(span));
  (*exporter)->shutdown(10s);
  EXPECT_EQ((*exporter)->stats().exported, 1u);
}

TEST(TraceReceiverToolTests, OnSigtermItPrintsTheTraceAcrossTheServicesAsATree) {
  Tool tool;
  const std::string first = tool.line();
  const std::string prefix = "trace receiver: listening on ";
  ASSERT_EQ(first.rfind(prefix, 0), 0u) << first;
  const std::string endpoint = first.substr(prefix.size(), first.size() - prefix.size() - 1);

  auto handle = tracing_test::numbered_span(1, 0x70);
  handle.name = "handle shop::PlaceOrder";
  handle.attributes = {
      {std::string(whizbang::span_attributes::kExactlyOnceDecision), std::string("fired")}};
  auto remote = tracing_test::numbered_span(2, 0x70);
  remote.name = "handle shop::OrderPlaced";
  remote.parent_span_id = handle.context.span_id;
  send(endpoint, "orders", {handle});
  send(endpoint, "notifications", {remote});

  ASSERT_EQ(kill(tool.pid, SIGTERM), 0);
  const std::string printed = tool.rest();
  int status = 0;
  ASSERT_EQ(waitpid(tool.pid, &status, 0), tool.pid);
  tool.pid = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(printed.find("2 spans received"), std::string::npos) << printed;
  EXPECT_NE(printed.find("[orders] handle shop::PlaceOrder  10 us  decision=fired\n"
                         "  [notifications] handle shop::OrderPlaced  10 us\n"),
            std::string::npos)
      << printed;
}

}  // namespace
