#include "conflux/ptnet/managed_transport.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <map>
#include <thread>

#include <boost/asio/posix/stream_descriptor.hpp>

extern char** environ;

namespace conflux::ptnet {
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

namespace {

constexpr std::size_t kMaxStderrLine = 1024;

// Our environment with `extra` set on top of it.
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

}  // namespace

struct ManagedTransport::Process {
  explicit Process(asio::io_context& io) : out(io), err(io) {}
  ~Process() {
    if (in_fd >= 0) ::close(in_fd);
  }
  pid_t pid = -1;
  int in_fd = -1;  // our end of its stdin, kept open while it should run
  asio::posix::stream_descriptor out;
  asio::posix::stream_descriptor err;
  bool reaped = false;
  int status = 0;

  void close_stdin() {
    if (in_fd >= 0) ::close(in_fd);
    in_fd = -1;
  }
  // Reaps it if it has ended; true once reaped.
  bool try_reap() {
    if (reaped || pid <= 0) return true;
    if (::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    return reaped;
  }
};

ManagedTransport::ManagedTransport(asio::io_context& io, ManagedTransportOptions options, net::LogSink log)
    : io_(io), options_(std::move(options)), log_(std::move(log)) {}

ManagedTransport::~ManagedTransport() {
  *alive_ = false;
  stopped_ = true;
  if (!current_ || current_->try_reap()) return;
  // At shutdown: ask, wait a moment, then make sure.
  current_->close_stdin();
  ::kill(current_->pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + options_.kill_after;
  while (!current_->try_reap() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!current_->reaped) {
    ::kill(current_->pid, SIGKILL);
    ::waitpid(current_->pid, &current_->status, 0);
  }
}

void ManagedTransport::start() { asio::co_spawn(io_, supervise(), asio::detached); }

void ManagedTransport::stop() {
  stopped_ = true;
  if (current_ && !current_->reaped) {
    current_->close_stdin();
    ::kill(current_->pid, SIGTERM);
  }
}

std::optional<pt::PtMethod> ManagedTransport::method(std::string_view transport) const {
  if (!ready_) return std::nullopt;
  for (const auto& m : methods_)
    if (m.transport == transport) return m;
  return std::nullopt;
}

void ManagedTransport::changed() {
  if (on_change) on_change();
}

awaitable<void> ManagedTransport::supervise() {
  auto alive = alive_;
  auto backoff = options_.retry_initial;
  asio::steady_timer timer(io_);
  while (*alive && !stopped_) {
    ++launches_;
    std::string why = co_await run_once();
    if (!*alive) co_return;
    const bool was_ready = ready_;
    ready_ = false;
    methods_.clear();
    last_failure_ = why;
    changed();
    if (stopped_) co_return;
    if (was_ready) backoff = options_.retry_initial;
    net::emit(log_, net::LogLevel::Warn,
              "Managed proxy \"" + options_.binary + "\" " + why + "; launching it again in " +
                  std::to_string(backoff.count()) + " ms");
    timer.expires_after(backoff);
    (void)co_await timer.async_wait(use_nothrow);
    if (!*alive) co_return;
    backoff = std::min(backoff * 2, options_.retry_max);
  }
}

// Starts the process with pipes for its stdin, stdout and stderr; an error
// text when it could not be started.
std::optional<std::string> ManagedTransport::spawn(Process& p) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return std::string("could not make a pipe: ") + std::strerror(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return std::string("could not make a pipe: ") + std::strerror(errno);
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return std::string("could not make a pipe: ") + std::strerror(errno);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  std::vector<std::string> argv_s{options_.binary};
  argv_s.insert(argv_s.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  auto env_s = environment_with(options_.env);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int rc = ::posix_spawn(&p.pid, options_.binary.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  for (int fd : {in[0], out[1], err[1]}) ::close(fd);
  if (rc != 0) {
    for (int fd : {in[1], out[0], err[0]}) ::close(fd);
    return "could not be started: " + std::string(std::strerror(rc));
  }
  p.in_fd = in[1];
  p.out.assign(out[0]);
  p.err.assign(err[0]);
  return std::nullopt;
}

// Its stderr, to the log, line by line.
void ManagedTransport::log_stderr(std::shared_ptr<Process> p) {
  asio::co_spawn(io_, [p, alive = alive_, log = log_, name = options_.binary]() -> awaitable<void> {
    std::array<char, 1024> buf{};
    std::string line;
    for (;;) {
      auto [ec, n] = co_await p->err.async_read_some(asio::buffer(buf), use_nothrow);
      if (ec || !*alive) co_return;
      for (std::size_t i = 0; i < n; ++i) {
        if (buf[i] != '\n' && line.size() < kMaxStderrLine) line.push_back(buf[i]);
        if (buf[i] == '\n') {
          net::emit(log, net::LogLevel::Info, "Managed proxy \"" + name + "\" said: " + line);
          line.clear();
        }
      }
    }
  }, asio::detached);
}

// Reaps it once it closed stdout or we killed it; one that keeps running
// with stdout closed gets SIGTERM, then SIGKILL. False when we were
// destroyed meanwhile.
awaitable<bool> ManagedTransport::reap(std::shared_ptr<Process> p) {
  auto alive = alive_;
  asio::steady_timer wait(io_);
  const auto started = std::chrono::steady_clock::now();
  bool termed = false;
  while (!p->try_reap()) {
    const auto waited = std::chrono::steady_clock::now() - started;
    if (!termed && waited > options_.kill_after / 2) {
      ::kill(p->pid, SIGTERM);
      termed = true;
    } else if (waited > options_.kill_after) {
      ::kill(p->pid, SIGKILL);
    }
    wait.expires_after(std::chrono::milliseconds(20));
    (void)co_await wait.async_wait(use_nothrow);
    if (!*alive) co_return false;
  }
  p->close_stdin();
  co_return true;
}

void ManagedTransport::on_message(const pt::PtMessage& m, const pt::PtMessages& messages,
                                  std::set<std::string>& failed) {
  if (const auto* e = std::get_if<pt::PtMethodError>(&m)) {
    failed.insert(e->transport);
    net::emit(log_, net::LogLevel::Warn,
              "Managed proxy \"" + options_.binary + "\": " + e->transport + " failed: " + e->message);
  } else if (const auto* l = std::get_if<pt::PtLog>(&m)) {
    net::emit(log_, net::LogLevel::Info,
              "Managed proxy \"" + options_.binary + "\" logs (" + l->severity + "): " + l->message);
  } else if (std::holds_alternative<pt::PtDone>(m)) {
    methods_.clear();
    for (const auto& meth : messages.methods())
      if (failed.count(meth.transport) == 0) methods_.push_back(meth);
    ready_ = true;
    changed();
  }
}

awaitable<std::string> ManagedTransport::run_once() {
  auto alive = alive_;
  auto p = std::make_shared<Process>(io_);
  if (auto failed = spawn(*p)) co_return *failed;
  current_ = p;
  pid_ = p->pid;
  net::emit(log_, net::LogLevel::Info,
            "Managed proxy \"" + options_.binary + "\" launched (pid " + std::to_string(p->pid) + ")");
  log_stderr(p);
  pt::PtMessages messages(options_.mode, options_.transports);
  std::set<std::string> failed;
  std::string why;
  std::array<std::uint8_t, 4096> buf{};
  for (;;) {
    auto [ec, n] = co_await p->out.async_read_some(asio::buffer(buf), use_nothrow);
    if (!*alive) co_return std::string("stopped");
    if (ec) break;  // it closed stdout: it is ending
    auto read = messages.feed(std::span<const std::uint8_t>(buf.data(), n));
    for (const auto& m : read.messages) on_message(m, messages, failed);
    if (read.error) {
      why = "broke the managed-proxy protocol (" + read.error->message + ")";
      ::kill(p->pid, SIGKILL);
      break;
    }
  }
  if (!co_await reap(p)) co_return std::string("stopped");
  if (why.empty()) why = status_text(p->status);
  co_return why;
}

}  // namespace conflux::ptnet
