#pragma once
// Support for the integration test with real conflux-relay processes: a
// temporary directory, child processes that die with the test (even when it
// fails or crashes), free loopback ports, log files and their heartbeat
// lines, a local HTTP server and a bounded loop driver. Only 127.0.0.1 is
// ever used. The client side is test_net_processes_client.hpp.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "conflux/net/asio.hpp"
#include "conflux/net/listen_ports.hpp"

namespace conflux::test::procs {

namespace fs = std::filesystem;
namespace asio = boost::asio;
using namespace std::chrono_literals;

inline const asio::ip::address kLoopback = asio::ip::make_address("127.0.0.1");

// Runs the loop until `done()` or `limit`; true if done. Never a fixed sleep.
inline bool run_until(asio::io_context& io, const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    if (io.stopped()) io.restart();
    io.run_one_for(20ms);
  }
  return true;
}

// mkdtemp under the system temp directory; removed with its contents unless
// CONFLUX_KEEP_TEST_DIR is set (for looking at the relays' logs).
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "conflux-itest-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path_ = templ;
  }
  ~TempDir() {
    if (std::getenv("CONFLUX_KEEP_TEST_DIR") != nullptr) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

// `n` distinct ports that were free a moment ago, from below the ephemeral
// range (net/listen_ports.hpp), released for the processes to bind.
inline std::vector<std::uint16_t> free_ports(asio::io_context& io, std::size_t n) {
  std::string error;
  auto ports = net::pick_listen_ports(io, n, error);
  INFO(error);
  REQUIRE(ports.size() == n);
  return ports;
}

// One conflux-relay child. Its stdout and stderr (start-up errors, sanitizer
// reports) go to `output`. The child asks the kernel for `death_signal`
// (SIGKILL, or SIGTERM for a child that must clean up after itself) when the
// test process dies, so nothing outlives a crashed test; the destructor kills
// and reaps it otherwise.
class Child {
 public:
  Child(std::string name, fs::path binary, std::vector<std::string> args, fs::path output,
        int death_signal = SIGKILL)
      : name_(std::move(name)),
        binary_(std::move(binary)),
        args_(std::move(args)),
        output_(std::move(output)),
        death_signal_(death_signal) {}
  ~Child() { kill_now(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void start() {
    // Everything the child needs is built before fork: after it, only
    // async-signal-safe calls.
    std::vector<char*> argv;
    std::string prog = binary_.string();
    argv.push_back(prog.data());
    for (auto& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = output_.string();
    const pid_t parent = ::getpid();
    const int death_signal = death_signal_;
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, death_signal);
      if (::getppid() != parent) ::_exit(126);  // the parent died before prctl
      const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd < 0) ::_exit(125);
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    pid_ = pid;
  }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }  // -1 once reaped
  [[nodiscard]] std::string output_text() const { return read_text(output_); }

  void signal(int sig) const {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  // Still running (reaps it if it ended).
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      status_ = status;
      pid_ = -1;
      return false;
    }
    return true;
  }
  // The wait status once it ended within `bound`.
  std::optional<int> wait_exit(std::chrono::milliseconds bound) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (running()) {
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(10ms);
    }
    return status_;
  }
  void kill_now() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    status_ = status;
    pid_ = -1;
  }

 private:
  std::string name_;
  fs::path binary_;
  std::vector<std::string> args_;
  fs::path output_;
  int death_signal_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// Serves one file at GET /file, HTTP/1.0 style (Content-Length, then close).
// State lives in a shared_ptr so coroutines left pending when the test ends
// never touch a destroyed object.
class HttpServer {
 public:
  HttpServer(asio::io_context& io, std::vector<std::uint8_t> body,
             const net::tcp::endpoint& at = net::tcp::endpoint(kLoopback, 0))
      : state_(std::make_shared<State>(io, at)) {
    state_->body = std::move(body);
    asio::co_spawn(io, accept_loop(state_), asio::detached);
  }
  ~HttpServer() {
    boost::system::error_code ec;
    state_->acceptor.close(ec);
  }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return state_->acceptor.local_endpoint().port(); }
  [[nodiscard]] std::size_t requests() const noexcept { return state_->requests; }
  // While held, requests are read and counted but not answered: a test can
  // have every request of a batch arrive before any response flows.
  void hold(bool held) noexcept { state_->held = held; }

 private:
  struct State {
    State(asio::io_context& io, const net::tcp::endpoint& at) : acceptor(io, at) {}
    net::tcp::acceptor acceptor;
    std::vector<std::uint8_t> body;
    std::size_t requests = 0;
    bool held = false;
  };

  static net::awaitable<void> accept_loop(std::shared_ptr<State> s) {
    for (;;) {
      auto [ec, sock] = co_await s->acceptor.async_accept(net::use_nothrow);
      if (ec) co_return;
      asio::co_spawn(s->acceptor.get_executor(), serve(s, std::move(sock)), asio::detached);
    }
  }

  static net::awaitable<void> serve(std::shared_ptr<State> s, net::tcp::socket sock) {
    std::string request;
    std::array<char, 1024> buf{};
    while (request.find("\r\n\r\n") == std::string::npos) {
      if (request.size() > 8192) co_return;
      auto [ec, n] = co_await sock.async_read_some(asio::buffer(buf), net::use_nothrow);
      if (ec) co_return;
      request.append(buf.data(), n);
    }
    ++s->requests;
    asio::steady_timer held(sock.get_executor());
    while (s->held) {
      held.expires_after(std::chrono::milliseconds(10));
      (void)co_await held.async_wait(net::use_nothrow);
    }
    std::string head;
    std::vector<asio::const_buffer> out;
    if (request.rfind("GET /file ", 0) == 0) {
      head = "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
             std::to_string(s->body.size()) + "\r\n\r\n";
      out = {asio::buffer(head), asio::buffer(s->body)};
    } else {
      head = "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n";
      out = {asio::buffer(head)};
    }
    (void)co_await asio::async_write(sock, out, net::use_nothrow);
    boost::system::error_code ec;
    sock.shutdown(net::tcp::socket::shutdown_send, ec);
    sock.close(ec);
  }

  std::shared_ptr<State> state_;
};

// A listener that only counts connections: the exit policy must keep the
// exit from ever connecting to it.
class CountingListener {
 public:
  explicit CountingListener(asio::io_context& io) : state_(std::make_shared<State>(io)) {
    asio::co_spawn(io, loop(state_), asio::detached);
  }
  ~CountingListener() {
    boost::system::error_code ec;
    state_->acceptor.close(ec);
  }
  CountingListener(const CountingListener&) = delete;
  CountingListener& operator=(const CountingListener&) = delete;
  [[nodiscard]] std::uint16_t port() const { return state_->acceptor.local_endpoint().port(); }
  [[nodiscard]] std::size_t accepted() const noexcept { return state_->accepted; }

 private:
  struct State {
    explicit State(asio::io_context& io) : acceptor(io, net::tcp::endpoint(kLoopback, 0)) {}
    net::tcp::acceptor acceptor;
    std::size_t accepted = 0;
  };
  static net::awaitable<void> loop(std::shared_ptr<State> s) {
    for (;;) {
      auto [ec, sock] = co_await s->acceptor.async_accept(net::use_nothrow);
      if (ec) co_return;
      ++s->accepted;
    }
  }
  std::shared_ptr<State> state_;
};

// The counters a relay logs on SIGUSR1 ("Heartbeat: N circuits open (C
// created, X closed) ... streams S open ... destroyed by reason: R=K ...").
struct Heartbeat {
  std::uint64_t open = 0, created = 0, closed = 0, streams_open = 0;
  std::map<unsigned, std::uint64_t> destroyed;  // DESTROY reason -> circuits
  [[nodiscard]] std::uint64_t destroyed_for(unsigned reason) const {
    auto it = destroyed.find(reason);
    return it == destroyed.end() ? 0 : it->second;
  }
};

inline std::vector<Heartbeat> heartbeats(const std::string& log) {
  static const std::regex line(
      R"(Heartbeat: (\d+) circuits open \((\d+) created, (\d+) closed\).*streams (\d+) open.*destroyed by reason:([ 0-9=]*))");
  static const std::regex pair(R"((\d+)=(\d+))");
  std::vector<Heartbeat> out;
  for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end; ++it) {
    const auto& m = *it;
    Heartbeat h;
    h.open = std::stoull(m[1]);
    h.created = std::stoull(m[2]);
    h.closed = std::stoull(m[3]);
    h.streams_open = std::stoull(m[4]);
    const std::string reasons = m[5];
    for (std::sregex_iterator p(reasons.begin(), reasons.end(), pair), pend; p != pend; ++p)
      h.destroyed[static_cast<unsigned>(std::stoul((*p)[1]))] = std::stoull((*p)[2]);
    out.push_back(h);
  }
  return out;
}

// Starts a relay fixture (its start(): false when the relay did not come up),
// again when a port found free was taken before the relay bound it (its
// report() says "Could not bind"), at most three times.
template <class Fixture>
void start_relay_retrying(Fixture& f) {
  for (int attempt = 1;; ++attempt) {
    if (f.start()) return;
    INFO(f.report());
    REQUIRE((f.report().find("Could not bind") != std::string::npos && attempt < 3));
    f.proc.reset();
  }
}

// In a fixture's destructor: while a test is failing, the end of what
// `report` gives (the relay's log) on stderr.
inline void print_report_if_failing(const std::function<std::string()>& report) {
  if (std::uncaught_exceptions() == 0) return;
  auto text = report();
  if (text.size() > 8000) text = "..." + text.substr(text.size() - 8000);
  std::fprintf(stderr, "%s\n", text.c_str());
}

}  // namespace conflux::test::procs
