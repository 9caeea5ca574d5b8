#pragma once
// Support for the tests in which Debian's stock tor (/usr/bin/tor) uses a
// conflux-net network of our authorities and relays: a network brought `up`
// from a spec in a temporary directory (taken `down` whatever happens), tor
// processes the test owns, and the HTTP, control-port and log reads those
// tests check tor by. Everything listens on 127.0.0.1; conflux-net picks free
// ports, so these networks need no base port.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/netspec/network_file.hpp"

#ifndef CONFLUX_NET_BINARY
#error "CONFLUX_NET_BINARY must name the conflux-net program (tests/CMakeLists.txt)"
#endif

namespace conflux::test::stockclient {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline constexpr const char* kTor = "/usr/bin/tor";

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

// Runs `argv` to completion with output to `out`; its exit status.
inline int run(std::vector<std::string> argv, const fs::path& out) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const std::string out_path = out.string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) ::_exit(125);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Sends `request` to 127.0.0.1:port; everything the peer sends until it closes.
inline std::string loopback_exchange(std::uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string reply;
  char buf[16384];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) reply.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return reply;
}

// GET http://127.0.0.1:port/path: the whole reply.
inline std::string http_reply(std::uint16_t port, const std::string& path) {
  return loopback_exchange(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

// The body of a 200 reply, else fails.
inline std::string http_get(std::uint16_t port, const std::string& path) {
  const std::string reply = http_reply(port, path);
  INFO(path << " -> " << reply.substr(0, 200));
  REQUIRE(reply.rfind("HTTP/1.1 200", 0) == 0);
  const auto body = reply.find("\r\n\r\n");
  REQUIRE(body != std::string::npos);
  return reply.substr(body + 4);
}

// The body of a 200 reply, "" for any other.
inline std::string http_get_or_empty(std::uint16_t port, const std::string& path) {
  const std::string reply = http_reply(port, path);
  const auto body = reply.find("\r\n\r\n");
  if (reply.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos) return {};
  return reply.substr(body + 4);
}

inline crypto::RsaFingerprint v3ident_of(const std::string& line) {
  const auto at = line.find("v3ident=");
  REQUIRE(at != std::string::npos);
  auto b = bytes::from_hex(line.substr(at + 8, 40));
  REQUIRE(b);
  crypto::RsaFingerprint f{};
  std::copy(b->begin(), b->end(), f.begin());
  return f;
}

// "Opened Socks listener connection (ready) on 127.0.0.1:PORT" in tor's log.
inline std::uint16_t socks_port_of(const std::string& log) {
  const std::string opened = "Opened Socks listener connection (ready) on 127.0.0.1:";
  const auto at = log.find(opened);
  if (at == std::string::npos) return 0;
  return static_cast<std::uint16_t>(std::stoul(log.substr(at + opened.size(), 5)));
}

// The reply to one control-port command (tor without control-port
// authentication configured accepts an empty AUTHENTICATE), up to QUIT's.
inline std::string control_query(std::uint16_t port, const std::string& command) {
  return loopback_exchange(port, "AUTHENTICATE \"\"\r\n" + command + "\r\nQUIT\r\n");
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l.empty() || l.back() != '\r' ? l : l.substr(0, l.size() - 1));
  return out;
}

// "KEY=VALUE" (VALUE up to the next space) in a circuit-status line, or "".
inline std::string field_of(const std::string& line, const std::string& key) {
  const auto at = line.find(" " + key + "=");
  if (at == std::string::npos) return {};
  const auto start = at + key.size() + 2;
  return line.substr(start, line.find(' ', start) - start);
}

// Waits up to `limit` for `needle` in the file `p`; the file's text.
inline std::string wait_for(const fs::path& p, const std::string& needle, std::chrono::seconds limit) {
  std::string text;
  for (auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;) {
    text = read_text(p);
    if (text.find(needle) != std::string::npos) break;
    std::this_thread::sleep_for(500ms);
  }
  return text;
}

struct Network {
  fs::path dir;
  bool up = false;
  void down() {
    if (!up) return;
    up = false;
    (void)run({CONFLUX_NET_BINARY, "down", "--dir", dir.string()}, dir / "down.out");
  }
  ~Network() { down(); }
};

struct TorProcess {
  pid_t pid = -1;
  ~TorProcess() { stop(); }
  void stop() {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) std::this_thread::sleep_for(100ms);
    if (::waitpid(pid, &status, WNOHANG) == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    pid = -1;
  }
};


// A loopback port nobody listens on now (bound, read, closed).
inline std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

inline pid_t start_tor(const fs::path& torrc, const fs::path& out) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    ::execl(kTor, kTor, "-f", torrc.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

inline fs::path private_dir(const fs::path& p) {
  fs::create_directories(p);
  fs::permissions(p, fs::perms::owner_all, fs::perm_options::replace);
  return p;
}


// A conflux-net network `up` from `spec` in a new temporary directory whose
// name starts with `prefix`; `down` when this goes, also when a REQUIRE in
// the constructor fails (`net`, a member, is whole by then). The temporary
// directory stays unless the test calls down_and_remove(), so a failed
// test's logs are there to read.
class UpNetwork {
 public:
  UpNetwork(const std::string& prefix, const std::string& spec) {
    std::string tmpl = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root = tmpl;
    write_text(root / "spec.json", spec);
    net.dir = root / "net";
    const int up = run({CONFLUX_NET_BINARY, "up", "--dir", net.dir.string(), "--spec", (root / "spec.json").string()},
                       root / "up.out");
    up_output = read_text(root / "up.out");
    INFO(up_output);
    net.up = true;  // whatever happened, `down` what did start
    auto decoded = netspec::decode_network(read_text(net.dir / netspec::kNetworkFileName));
    REQUIRE(decoded);
    info = std::move(*decoded);
    REQUIRE(up == 0);
    for (const auto& l : info.tor_dir_authorities) {
      trusted.push_back(v3ident_of(l));
      dir_authorities += l + "\n";
    }
  }
  UpNetwork(const UpNetwork&) = delete;
  UpNetwork& operator=(const UpNetwork&) = delete;

  // The process `name` ("auth1", "relay1", ...) of network.json.
  [[nodiscard]] const netspec::ProcessRecord& process(const std::string& name) const {
    const auto it = std::find_if(info.processes.begin(), info.processes.end(),
                                 [&](const netspec::ProcessRecord& p) { return p.name == name; });
    INFO("no process " << name << " in network.json");
    REQUIRE(it != info.processes.end());
    return *it;
  }

  void down_and_remove() {
    net.down();
    std::error_code ec;
    fs::remove_all(root, ec);
  }

  fs::path root;  // the spec, conflux-net's output and the network, beside the test's own files
  std::string up_output;  // what `conflux-net up` said, for the test's INFO
  netspec::NetworkInfo info;
  std::vector<crypto::RsaFingerprint> trusted;  // the authorities' v3idents
  std::string dir_authorities;                  // tor's DirAuthority lines, one a line

 private:
  Network net;
};

}  // namespace conflux::test::stockclient
