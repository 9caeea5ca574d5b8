#include "netns.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace conflux::netapp {

std::optional<std::string> run_ip(const std::vector<std::string>& args) {
  std::vector<std::string> store = args;
  std::vector<char*> argv;
  static char ip[] = "ip";
  argv.push_back(ip);
  for (auto& a : store) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::execvp("ip", argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string said;
  char buf[512];
  ssize_t n = 0;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && said.size() < 4096) said.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return "ip did not finish in 10 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  std::string command = "ip";
  for (const auto& a : args) command += " " + a;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return command + ": cannot run ip (is iproute2 installed?)";
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return command + ": " + said;
}

std::optional<std::string> set_up_hosts(const netspec::RouterConfig& config) {
  const std::string mtu = std::to_string(config.mtu);
  for (const auto& h : config.hosts) {
    const auto address = netspec::ipv4_text(h.address) + "/24";
    if (h.netns.empty()) {
      if (auto e = run_ip({"addr", "add", address, "dev", h.device})) return e;
      if (auto e = run_ip({"link", "set", h.device, "mtu", mtu, "up"})) return e;
      continue;
    }
    (void)run_ip({"netns", "del", h.netns});  // a leftover of an earlier attempt
    if (auto e = run_ip({"netns", "add", h.netns})) return e;
    if (auto e = run_ip({"-n", h.netns, "link", "set", "lo", "up"})) return e;
    if (auto e = run_ip({"link", "set", h.device, "netns", h.netns})) return e;
    if (auto e = run_ip({"-n", h.netns, "addr", "add", address, "dev", h.device})) return e;
    if (auto e = run_ip({"-n", h.netns, "link", "set", h.device, "mtu", mtu, "up"})) return e;
    // The name is checked (a-z, 0-9, _), so the shell sees no metacharacter;
    // /proc/sys/net is the namespace's own when opened from inside it.
    if (!config.tcp_congestion_control.empty())
      if (auto e = run_ip({"netns", "exec", h.netns, "sh", "-c",
                           "echo " + config.tcp_congestion_control + " > /proc/sys/net/ipv4/tcp_congestion_control"}))
        return *e + " (a namespace takes only the machine's net.ipv4.tcp_allowed_congestion_control)";
  }
  return std::nullopt;
}

void remove_namespaces(const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (n.starts_with("cfx-") && n.find('/') == std::string::npos) (void)run_ip({"netns", "del", n});
}

}  // namespace conflux::netapp
