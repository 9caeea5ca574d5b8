#include "processes.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace conflux::netapp {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

Result<Spawned, std::string> spawn_detached(const fs::path& binary, const std::vector<std::string>& args,
                                            const fs::path& output, const std::string& netns) {
  // Everything the child needs is made before fork: after it, only
  // async-signal-safe calls.
  std::string prog = binary.string();
  std::vector<std::string> argv_store = args;
  std::vector<char*> argv;
  argv.push_back(prog.data());
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);

  int ns = -1;
  if (!netns.empty()) {
    const auto file = "/run/netns/" + netns;
    ns = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0) return Unexpected{"cannot open " + file + ": " + std::strerror(errno)};
  }
  const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (out < 0) {
    if (ns >= 0) ::close(ns);
    return Unexpected{"cannot open " + output.string() + ": " + std::strerror(errno)};
  }
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int report[2];  // the child writes errno here if exec fails; EOF means exec worked
  if (devnull < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    if (ns >= 0) ::close(ns);
    ::close(out);
    if (devnull >= 0) ::close(devnull);
    return Unexpected{std::string("pipe: ") + std::strerror(errno)};
  }

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    if (ns >= 0) ::close(ns);
    ::close(out);
    ::close(devnull);
    ::close(report[0]);
    ::close(report[1]);
    return Unexpected{std::string("fork: ") + std::strerror(err)};
  }
  if (pid == 0) {
    ::setsid();
    // Before close_range below closes the namespace's descriptor.
    int err = 0;
    if (ns >= 0 && ::setns(ns, CLONE_NEWNET) != 0) err = errno;
    sigset_t all;
    ::sigemptyset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    // Keep the report pipe (close-on-exec) past close_range.
    const int keep = ::fcntl(report[1], F_DUPFD_CLOEXEC, 3);
    ::close_range(3, keep > 3 ? static_cast<unsigned>(keep - 1) : 2U, 0);
    if (keep >= 0) ::close_range(static_cast<unsigned>(keep + 1), ~0U, 0);
    if (err == 0) {
      ::execv(argv[0], argv.data());
      err = errno;
    }
    if (keep >= 0) (void)!::write(keep, &err, sizeof err);
    ::_exit(127);
  }
  if (ns >= 0) ::close(ns);
  ::close(out);
  ::close(devnull);
  ::close(report[1]);
  int child_errno = 0;
  ssize_t got = 0;
  do {
    got = ::read(report[0], &child_errno, sizeof child_errno);
  } while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got > 0) {
    ::waitpid(pid, nullptr, 0);
    return Unexpected{"cannot run " + prog + ": " + std::strerror(child_errno)};
  }
  const auto start = process_start_time(pid);
  if (!start) {
    // Already a zombie: it ran and ended before we could look.
    int status = 0;
    const std::string how = ::waitpid(pid, &status, 0) == pid ? describe_wait_status(status) : "ended";
    return Unexpected{how + " as soon as it started (" + prog + ")"};
  }
  return Spawned{pid, *start};
}

Result<int, std::string> run_and_wait(const fs::path& binary, const std::vector<std::string>& args,
                                      const fs::path& output, std::chrono::milliseconds limit) {
  auto s = spawn_detached(binary, args, output);
  if (!s) return Unexpected{s.error()};
  for (const auto until = std::chrono::steady_clock::now() + limit;;) {
    if (auto status = reap_if_ended(s->pid)) return *status;
    if (std::chrono::steady_clock::now() > until) {
      ::kill(s->pid, SIGKILL);
      int status = 0;
      ::waitpid(s->pid, &status, 0);
      return Unexpected{binary.string() + " did not finish within " + std::to_string(limit.count()) + " ms"};
    }
    std::this_thread::sleep_for(20ms);
  }
}

std::optional<std::uint64_t> process_start_time(pid_t pid) {
  if (pid < 2) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // "PID (COMM) STATE ..." where COMM may hold spaces and parentheses: the
  // fields start after the last ')'. starttime is field 22, the 20th after it.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  fields >> state;
  if (state == "Z" || state == "X" || state == "x") return std::nullopt;
  std::string skip;
  for (int i = 0; i < 18; ++i) fields >> skip;
  std::uint64_t start = 0;
  if (!(fields >> start)) return std::nullopt;
  return start;
}

bool is_same_process(pid_t pid, std::uint64_t start_time) {
  const auto now = process_start_time(pid);
  return now && *now == start_time;
}

std::optional<int> reap_if_ended(pid_t pid) {
  int status = 0;
  if (pid > 1 && ::waitpid(pid, &status, WNOHANG) == pid) return status;
  return std::nullopt;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  return "ended (wait status " + std::to_string(status) + ")";
}

StopReport stop_processes(const std::vector<StopTarget>& targets, std::chrono::milliseconds grace) {
  StopReport report;
  std::vector<const StopTarget*> pending;
  for (const auto& t : targets) {
    if (t.pid > 1 && is_same_process(t.pid, t.start_time) && ::kill(t.pid, SIGTERM) == 0) {
      ++report.signalled;
      pending.push_back(&t);
    } else {
      ++report.gone;
    }
  }
  auto still_running = [&] {
    std::vector<const StopTarget*> left;
    for (const auto* t : pending) {
      (void)reap_if_ended(t->pid);
      if (is_same_process(t->pid, t->start_time)) left.push_back(t);
    }
    pending = std::move(left);
    return !pending.empty();
  };
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (still_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  for (const auto* t : pending)
    if (::kill(t->pid, SIGKILL) == 0) ++report.killed;
  const auto kill_deadline = std::chrono::steady_clock::now() + 5s;
  while (still_running() && std::chrono::steady_clock::now() < kill_deadline) std::this_thread::sleep_for(20ms);
  return report;
}

std::string read_file(const fs::path& file, std::size_t limit) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(0);
  std::string text(std::min(size, limit), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::string tail_lines(const fs::path& file, std::size_t n) {
  constexpr std::streamoff kWindow = 64 * 1024;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > kWindow ? size - kWindow : 0;
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), size - from);
  std::size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (std::size_t lines = 0; pos > 0; --pos) {
    if (text[pos - 1] == '\n' && ++lines == n) break;
  }
  return text.substr(pos);
}

bool write_file_atomically(const fs::path& file, const std::string& text) {
  const auto tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  return !ec;
}

}  // namespace conflux::netapp
