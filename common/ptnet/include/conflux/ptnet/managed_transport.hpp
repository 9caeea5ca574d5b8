#pragma once
// One managed pluggable transport process, as tor runs one (pt-spec 3):
// launched with the TOR_PT_* variables (conflux/pt/pt_env.hpp) added to our
// environment, its stdin kept open (with TOR_PT_EXIT_ON_STDIN_CLOSE it ends
// when we do, even if we are killed), its stdout read as pt-spec messages
// (PtMessages), its stderr passed to the log line by line (bounded). Once
// it said DONE, method() gives its listeners. When it exits, or breaks the
// protocol (then it is killed), it is launched again after a back-off that
// doubles from retry_initial to retry_max and starts again once a launch
// reached DONE. stop() (and the destructor) ends it: stdin closed, SIGTERM,
// SIGKILL after kill_after.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "conflux/net/asio.hpp"
#include "conflux/net/log_sink.hpp"
#include "conflux/pt/pt_messages.hpp"

namespace conflux::ptnet {

struct ManagedTransportOptions {
  std::string binary;                                      // ClientTransportPlugin ... exec BINARY ARGS
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;    // pt_client_env / pt_server_env
  pt::PtMode mode = pt::PtMode::Client;
  std::set<std::string> transports;
  std::chrono::milliseconds retry_initial{1000};
  std::chrono::milliseconds retry_max{60000};
  std::chrono::milliseconds kill_after{3000};
};

class ManagedTransport {
 public:
  ManagedTransport(net::asio::io_context& io, ManagedTransportOptions options, net::LogSink log);
  ~ManagedTransport();
  ManagedTransport(const ManagedTransport&) = delete;
  ManagedTransport& operator=(const ManagedTransport&) = delete;

  void start();
  void stop();

  // The transport's listener for `transport` once the current process said
  // DONE; nullopt before, after it died, or when it gave an error for it.
  [[nodiscard]] std::optional<pt::PtMethod> method(std::string_view transport) const;
  [[nodiscard]] bool ready() const noexcept { return ready_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] std::uint64_t launches() const noexcept { return launches_; }
  // Why the last process ended or was given up ("" while none did).
  [[nodiscard]] const std::string& last_failure() const noexcept { return last_failure_; }

  // Called when ready() or the methods change (DONE, death).
  std::function<void()> on_change;

 private:
  struct Process;
  net::awaitable<void> supervise();
  net::awaitable<std::string> run_once();
  [[nodiscard]] std::optional<std::string> spawn(Process& p);
  void log_stderr(std::shared_ptr<Process> p);
  net::awaitable<bool> reap(std::shared_ptr<Process> p);
  void on_message(const pt::PtMessage& m, const pt::PtMessages& messages, std::set<std::string>& failed);
  void changed();

  net::asio::io_context& io_;
  ManagedTransportOptions options_;
  net::LogSink log_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::shared_ptr<Process> current_;
  std::vector<pt::PtMethod> methods_;
  bool ready_ = false;
  bool stopped_ = false;
  pid_t pid_ = -1;
  std::uint64_t launches_ = 0;
  std::string last_failure_;
};

}  // namespace conflux::ptnet
