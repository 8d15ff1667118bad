// PerspectiveRebuildCrashTests: a rebuild SIGKILLed at random points (a child process, like the
// crash harnesses' services) resumes from its checkpoint and ends with the models built live.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <random>

#include "rebuild_fixture.hpp"

namespace rebuild {
namespace {

// Forks a child that rebuilds `perspective` on its own store object (same file, the instance
// `instance`): it writes one byte on the pipe after each committed batch. The parent kills it
// once `batches` bytes arrived: the kill lands somewhere in the batches that follow.
void rebuild_and_kill(RebuildFixture& f, const whizbang::Uuid& instance, int batches,
                      whizbang::RebuildMode mode) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipe_fds[0]);
    auto store = f.open_store(instance);
    auto rebuilder = f.rebuilder(*store);
    whizbang::RebuildOptions options;
    options.mode = mode;
    options.batch_streams = 7;
    options.progress = [&](const whizbang::RebuildProgress&) {
      const char byte = 'b';
      (void)!::write(pipe_fds[1], &byte, 1);
    };
    auto result = rebuilder->rebuild(kCart, options);
    ::_exit(result.ok() ? 0 : 3);
  }
  ::close(pipe_fds[1]);
  int seen = 0;
  char byte = 0;
  while (seen < batches && ::read(pipe_fds[0], &byte, 1) == 1) ++seen;
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(pipe_fds[0]);
  ASSERT_EQ(seen, batches) << "the child ended before it was killed";
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

class PerspectiveRebuildCrashTests : public ::testing::TestWithParam<Backend> {};

TEST_P(PerspectiveRebuildCrashTests, KilledAtRandomPoints_ResumesFromItsCheckpointAndEndsEqual) {
  for (whizbang::RebuildMode mode :
       {whizbang::RebuildMode::BlueGreen, whizbang::RebuildMode::InPlace}) {
    RebuildFixture f(GetParam());
    f.append_streams(300, 6);
    f.apply_live();
    const auto live = f.models();
    const std::uint64_t seed = std::random_device{}();
    std::mt19937_64 random(seed);
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << whizbang::to_string(mode));

    // The restarted process keeps its instance id, so it takes its own lease back at once.
    const whizbang::Uuid instance = whizbang::MessageId::mint().uuid();
    for (int kill = 0; kill < 3; ++kill) {
      rebuild_and_kill(f, instance, 1 + static_cast<int>(random() % 8), mode);
      if (::testing::Test::HasFatalFailure()) return;
    }
    auto rows = f.store->perspective_rebuilds();
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->front().status, "running");
    ASSERT_TRUE(rows->front().checkpoint.has_value());
    const std::int64_t done_before = rows->front().events_done;
    EXPECT_GT(done_before, 0);

    auto store = f.open_store(instance);
    auto result = f.rebuilder(*store)->rebuild(kCart, {.mode = mode,
                                                       .streams = {},
                                                       .batch_streams = 7,
                                                       .lease = std::chrono::seconds(30),
                                                       .progress = nullptr});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->resumed);
    EXPECT_EQ(result->events_applied, 300 * 6 - done_before);
    store.reset();
    EXPECT_EQ(f.models(), live);
  }
}

// The SQL backends: a killed process's transaction is rolled back by the database.
INSTANTIATE_TEST_SUITE_P(Backends, PerspectiveRebuildCrashTests,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         whizbang_test::backend_name);

}  // namespace
}  // namespace rebuild
