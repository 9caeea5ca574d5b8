// conflux-net as a user runs it: `up` of a small network without a proxy
// (1 authority, 3 relays of which 1 exit, 1 bridge, a file server), then
// status, the file server, a refused second `up`, a process that dies,
// `down` sparing a process whose pid matches but whose start time does not,
// and a spec error. Real processes on 127.0.0.1 only.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/netspec/network_file.hpp"

#ifndef CONFLUX_NET_BINARY
#error "CONFLUX_NET_BINARY must name the conflux-net program (tests/CMakeLists.txt)"
#endif

using namespace conflux::netspec;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Run {
  int status = -1;  // exit status, or -1
  std::string output;
};

// Runs conflux-net with `args` to completion; stdout and stderr captured.
Run conflux_net(const std::vector<std::string>& args, const fs::path& out_file) {
  std::vector<std::string> store = args;
  std::vector<char*> argv;
  std::string prog = CONFLUX_NET_BINARY;
  argv.push_back(prog.data());
  for (auto& a : store) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = out_file.string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) ::_exit(125);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  std::ifstream in(out);
  std::ostringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool alive(std::int64_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

// A blocking HTTP/1.0 GET on 127.0.0.1 (bounded by a receive timeout); the
// whole response, head and body.
std::string http_get(std::uint16_t port, const std::string& target, const std::string& extra = {}) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const std::string req = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
  REQUIRE(::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size()));
  std::string resp;
  char buf[65536];
  for (;;) {
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    resp.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return resp;
}

struct TempDir {
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "conflux-net-test-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  ~TempDir() {
    if (std::getenv("CONFLUX_KEEP_TEST_DIR") != nullptr) return;
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// The "s" line of the relay `nick` in a consensus (" Exit Fast ... "), with
// a space at each end; empty when the relay is not listed.
std::string status_flags(const std::string& consensus, const std::string& nick) {
  const auto r = consensus.find("\nr " + nick + " ");
  if (r == std::string::npos) return {};
  const auto s = consensus.find("\ns ", r);
  if (s == std::string::npos) return {};
  return consensus.substr(s + 2, consensus.find('\n', s + 1) - s - 2) + " ";
}

// The "w" line of the relay `nick` in a consensus ("Bandwidth=N ..."); empty
// when the relay is not listed.
std::string weight_line(const std::string& consensus, const std::string& nick) {
  const auto r = consensus.find("\nr " + nick + " ");
  if (r == std::string::npos) return {};
  const auto w = consensus.find("\nw ", r);
  if (w == std::string::npos) return {};
  return consensus.substr(w + 3, consensus.find('\n', w + 1) - w - 3);
}

NetworkInfo load(const fs::path& dir) {
  auto info = decode_network(read_text(dir / "network.json"));
  INFO((info ? std::string() : info.error()));
  REQUIRE(info.has_value());
  return *info;
}

// `conflux-net down` for DIR when it goes: whatever a test case does after
// `up`, nothing outlives it.
struct DownAtEnd {
  fs::path dir, out;
  ~DownAtEnd() { (void)conflux_net({"down", "--dir", dir.string()}, out); }
};

}  // namespace

TEST_CASE("conflux-net up, status, file server, down", "[conflux_net][processes]") {
  TempDir tmp;
  const auto dir = tmp.path / "net";
  const auto spec = tmp.path / "spec.json";
  std::ofstream(spec) << R"({"relays": 3, "exits": 1, "bridges": [{"name": "slowbridge", "bandwidth_rate": "100 KBytes"}],
    "proxies": [], "files": [{"name": "small.bin", "size": 70000}, {"name": "big.bin", "size": "3 MB"}], "file_seed": 5,
    "guard_relays": ["relay1"]})";

  const auto t0 = std::chrono::steady_clock::now();
  auto up = conflux_net({"up", "--dir", dir.string(), "--spec", spec.string(), "--timeout", "60"}, tmp.path / "up.out");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(up.output);
  const DownAtEnd down_at_end{dir, tmp.path / "down-at-end.out"};
  REQUIRE(up.status == 0);
  std::printf("test_conflux_net_processes: up in %.1f s\n", secs);
  CHECK(up.output.find("network up in") != std::string::npos);

  auto info = load(dir);
  CHECK(info.state == "ready");
  CHECK_FALSE(info.proxy.has_value());
  REQUIRE(info.processes.size() == 6);  // fileserver, auth1, relay1, relay2, exit1, slowbridge
  for (const auto& p : info.processes) {
    CHECK(p.started);
    CHECK(alive(p.pid));
  }
  CHECK(read_text(dir / "slowbridge" / "torrc").find("BandwidthRate 100 KBytes") != std::string::npos);
  CHECK(read_text(dir / "exit1" / "torrc").find("ExitPolicy accept *:") != std::string::npos);

  // guard_relays: the authority's consensus gives Guard to relay1 alone,
  // where by bandwidth (10 MB/s each) every relay would have it.
  REQUIRE(info.processes[1].name == "auth1");
  const auto consensus = http_get(info.processes[1].ports.dir_port, "/tor/status-vote/current/consensus");
  INFO(consensus.substr(0, 3000));
  CHECK(consensus.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(status_flags(consensus, "relay1").find(" Guard ") != std::string::npos);
  for (const char* other : {"auth1", "relay2", "exit1"}) {
    CHECK(status_flags(consensus, other).find(" Fast ") != std::string::npos);  // listed
    CHECK(status_flags(consensus, other).find(" Guard ") == std::string::npos);
  }

  SECTION("status, the file server and down") {
    auto st = conflux_net({"status", "--dir", dir.string()}, tmp.path / "status.out");
    CHECK(st.status == 0);
    CHECK(st.output.find("6 of 6 started processes running") != std::string::npos);

    // Files: what network.json says, byte for byte.
    REQUIRE(info.files.size() == 2);
    const auto port = info.processes[0].ports.http_port;
    for (const auto& f : info.files) {
      const auto resp = http_get(port, "/" + f.name);
      const auto body_at = resp.find("\r\n\r\n");
      REQUIRE(body_at != std::string::npos);
      CHECK(resp.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
      const auto body = resp.substr(body_at + 4);
      REQUIRE(body.size() == f.size);
      CHECK(conflux::bytes::to_hex(conflux::crypto::sha256(
                {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()})) == f.sha256);
    }
    CHECK(http_get(port, "/small.bin", "Range: bytes=10-19\r\n").find("Content-Range: bytes 10-19/70000") !=
          std::string::npos);
    CHECK(http_get(port, "/../network.json").rfind("HTTP/1.1 404", 0) == 0);
    CHECK(http_get(port, "/").find("<title>conflux-net test page</title>") != std::string::npos);

    // A second network in the same directory is refused while this one runs.
    auto again = conflux_net({"up", "--dir", dir.string(), "--spec", spec.string()}, tmp.path / "again.out");
    CHECK(again.status == 1);
    CHECK(again.output.find("a network is running") != std::string::npos);

    // A process that dies shows in status.
    const auto relay1 = info.processes[2];
    REQUIRE(relay1.name == "relay1");
    REQUIRE(::kill(static_cast<pid_t>(relay1.pid), SIGKILL) == 0);
    for (int i = 0; i < 100 && alive(relay1.pid); ++i) std::this_thread::sleep_for(20ms);
    auto st2 = conflux_net({"status", "--dir", dir.string()}, tmp.path / "status2.out");
    CHECK(st2.status == 1);
    CHECK(st2.output.find("relay1 is gone") != std::string::npos);

    // down stops only what up started: a live process under a recorded pid
    // with another start time (a reused pid) is left alone.
    const pid_t stranger = ::fork();
    REQUIRE(stranger >= 0);
    if (stranger == 0) {
      ::pause();
      ::_exit(0);
    }
    auto edited = info;
    edited.processes[2].pid = stranger;  // relay1's record, start time unchanged
    REQUIRE(std::ofstream(dir / "network.json") << encode_network(edited));
    auto down = conflux_net({"down", "--dir", dir.string()}, tmp.path / "down.out");
    CHECK(down.status == 0);
    for (const auto& p : info.processes)
      if (p.name != "relay1") CHECK_FALSE(alive(p.pid));
    CHECK(alive(stranger));
    ::kill(stranger, SIGKILL);
    ::waitpid(stranger, nullptr, 0);
    CHECK(load(dir).state == "stopped");
    CHECK(conflux_net({"status", "--dir", dir.string()}, tmp.path / "status3.out").status == 1);
  }
}

TEST_CASE("conflux-net measured_bandwidths: the consensus weighs relays by the bandwidth file", "[conflux_net][processes]") {
  TempDir tmp;
  const auto dir = tmp.path / "net";
  const auto spec = tmp.path / "spec.json";
  // Every relay advertises 10 MB/s on loopback; the file says otherwise.
  std::ofstream(spec) << R"({"relays": 3, "exits": 1, "bridges": [], "proxies": [], "files": [],
    "measured_bandwidths": {"auth1": "2 MBytes", "relay1": "16 MBytes", "relay2": "1 MByte", "exit1": "4 MBytes"}})";
  auto up = conflux_net({"up", "--dir", dir.string(), "--spec", spec.string(), "--timeout", "60"}, tmp.path / "up.out");
  INFO(up.output);
  const DownAtEnd down_at_end{dir, tmp.path / "down-at-end.out"};
  REQUIRE(up.status == 0);

  const auto torrc = read_text(dir / "auth1" / "torrc");
  CHECK(torrc.find("V3BandwidthsFile " + (dir / "auth1" / "v3bw").string() + "\n") != std::string::npos);
  const auto file = read_text(dir / "auth1" / "v3bw");
  CHECK(file.find("\nversion=1.4.0\n") != std::string::npos);
  auto info = load(dir);
  REQUIRE(info.processes[2].name == "relay1");
  CHECK(file.find("node_id=$" + info.processes[2].rsa_fingerprint + " bw=16777 nick=relay1\n") != std::string::npos);

  // tor's units are 1024-based, the consensus's kilobytes 1000 bytes.
  const auto consensus = http_get(info.processes[1].ports.dir_port, "/tor/status-vote/current/consensus");
  INFO(consensus.substr(0, 3000));
  CHECK(weight_line(consensus, "auth1") == "Bandwidth=2097");
  CHECK(weight_line(consensus, "relay1") == "Bandwidth=16777");
  CHECK(weight_line(consensus, "relay2") == "Bandwidth=1048");
  CHECK(weight_line(consensus, "exit1") == "Bandwidth=4194");
  CHECK(consensus.find("Unmeasured=1") == std::string::npos);
}

TEST_CASE("conflux-net refuses bad specs and foreign directories", "[conflux_net][processes]") {
  TempDir tmp;
  const auto spec = tmp.path / "bad.json";
  std::ofstream(spec) << "{\n  \"relays\": 3,\n  \"exits\": \"one\"\n}\n";
  auto r = conflux_net({"up", "--dir", (tmp.path / "net").string(), "--spec", spec.string()}, tmp.path / "out");
  CHECK(r.status == 1);
  CHECK(r.output.find(spec.string() + ":3: /exits: expected a whole number") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp.path / "net" / "network.json"));

  // A directory with someone else's files is not ours to clear.
  fs::create_directories(tmp.path / "other");
  std::ofstream(tmp.path / "other" / "keep.txt") << "mine";
  const auto no_proxy = tmp.path / "no-proxy.json";
  std::ofstream(no_proxy) << R"({"proxies": []})";
  auto o = conflux_net({"up", "--dir", (tmp.path / "other").string(), "--spec", no_proxy.string()}, tmp.path / "out2");
  CHECK(o.status == 1);
  CHECK(o.output.find("not empty") != std::string::npos);
  CHECK(fs::exists(tmp.path / "other" / "keep.txt"));

  CHECK(conflux_net({"status", "--dir", (tmp.path / "none").string()}, tmp.path / "out3").status == 2);
  CHECK(conflux_net({"down", "--dir", (tmp.path / "none").string()}, tmp.path / "out4").status == 0);
  CHECK(conflux_net({"up"}, tmp.path / "out5").status == 2);
  CHECK(conflux_net({"up", "--dir", "x", "--bogus"}, tmp.path / "out6").status == 2);
}

TEST_CASE("a process that fails makes up stop everything and say why", "[conflux_net][processes]") {
  TempDir tmp;
  // A conflux-relay that refuses to start.
  const auto bin = tmp.path / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "conflux-relay") << "#!/bin/sh\necho 'fake relay: refusing to start' >&2\nexit 3\n";
  fs::permissions(bin / "conflux-relay", fs::perms::owner_all);
  const auto spec = tmp.path / "spec.json";
  std::ofstream(spec) << R"({"relays": 1, "exits": 0, "bridges": [], "proxies": [], "files": []})";
  const auto dir = tmp.path / "net";
  auto r = conflux_net({"up", "--dir", dir.string(), "--spec", spec.string(), "--bin-dir", bin.string()},
                       tmp.path / "out");
  INFO(r.output);
  CHECK(r.status == 1);
  // Both relays fail; whichever is seen first is named.
  CHECK((r.output.find("up failed: auth1: ") != std::string::npos ||
         r.output.find("up failed: relay1: ") != std::string::npos));
  CHECK(r.output.find("exited with status 3") != std::string::npos);
  CHECK(r.output.find("fake relay: refusing to start") != std::string::npos);
  const auto info = load(dir);
  CHECK(info.state == "failed");
  for (const auto& p : info.processes)
    if (p.started) CHECK_FALSE(alive(p.pid));  // the file server was stopped again
}
