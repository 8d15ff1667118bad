#include "http/http_worker.hpp"

#include <utility>

namespace whizbang::http {

HttpWorker::HttpWorker(std::size_t max_queued, Done done)
    : max_queued_(max_queued), done_(std::move(done)), thread_([this] { run(); }) {}

bool HttpWorker::submit(std::uint64_t ticket, HttpRequest request, const HttpRoute& route) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(Job{ticket, std::move(request), &route});
  }
  wake_.notify_one();
  return true;
}

void HttpWorker::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void HttpWorker::run() {
  while (true) {
    Job job{};
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    done_(job.ticket, HttpRoutes::invoke(*job.route, job.request));
  }
}

}  // namespace whizbang::http
