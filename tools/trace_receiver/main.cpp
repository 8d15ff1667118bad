// whizbang-trace-receiver: a local OTLP/HTTP collector that prints one trace as a tree when it
// stops (docs/guide/18-tracing.md). `./dev.sh run distributed` starts it and points the services
// at it, so a newcomer sees a trace across processes without installing a tracing backend.
//
//   whizbang-trace-receiver [--address 127.0.0.1] [--port 4318] [--port-file FILE]
//
// --port 0 listens on any free port; --port-file writes the port there once listening, and the
// first line of output names the endpoint. On SIGTERM or SIGINT it prints how many spans it
// received and the trace that crosses the most services, then exits 0.
#include <pthread.h>
#include <signal.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "trace_receiver.hpp"
#include "trace_tree.hpp"

int main(int argc, char** argv) {
  std::string address = "127.0.0.1";
  int port = 4318;
  std::string port_file;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::cerr << argv[0] << ": " << flag
                << " needs a value (usage: --address A --port N --port-file F)\n";
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--address") {
      address = value;
    } else if (flag == "--port") {
      try {
        port = std::stoi(value);
      } catch (const std::exception&) {
        port = -1;
      }
      if (port < 0 || port > 65535) {
        std::cerr << argv[0] << ": --port: '" << value << "' is not a port\n";
        return 2;
      }
    } else if (flag == "--port-file") {
      port_file = value;
    } else {
      std::cerr << argv[0] << ": unknown option '" << flag
                << "' (known: --address, --port, --port-file)\n";
      return 2;
    }
  }
  // Blocked before the server's threads start, so sigwait() gets them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto receiver = whizbang::TraceReceiver::start(address, port);
  if (!receiver.ok()) {
    std::cerr << argv[0] << ": " << receiver.status().message() << "\n";
    return 1;
  }
  if (!port_file.empty()) {
    // Written whole under another name, then renamed: a reader never sees half a number.
    const std::string partial = port_file + ".part";
    std::ofstream(partial) << (*receiver)->port() << "\n";
    if (std::rename(partial.c_str(), port_file.c_str()) != 0) {
      std::cerr << argv[0] << ": cannot write " << port_file << ": " << std::strerror(errno)
                << "\n";
      return 1;
    }
  }
  // The first line says where it listens (a test reads it to know the receiver is up).
  std::cout << "trace receiver: listening on " << (*receiver)->endpoint() << std::endl;
  int received = 0;
  sigwait(&stop_signals, &received);
  (*receiver)->stop();
  const std::vector<whizbang::ReceivedSpan> spans = (*receiver)->spans();
  std::cout << "trace receiver: " << spans.size() << " spans received\n";
  if (const auto busiest = whizbang::busiest_trace(spans)) {
    std::cout << whizbang::format_trace_tree((*receiver)->trace(*busiest));
  }
  return 0;
}
