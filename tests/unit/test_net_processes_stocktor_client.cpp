// A stock tor 0.4.9 client (Debian's /usr/bin/tor) accepts what our
// authorities serve in tor's formats: a conflux-net network's key
// certificates, microdesc consensus (signed by all three authorities) and
// microdescriptors, named by tor's DirAuthority lines from network.json.
//
// How the documents reach tor: the test fetches them from an authority's
// DirPort itself (checking them with our own parsers too) and writes them
// into tor's DataDirectory as tor's own caches (cached-certs,
// cached-microdesc-consensus, cached-microdescs with "@last-listed"), as a
// tor that had fetched them would have; that spares a fetch, not a check:
// tor loads them at start, checks the certificates and the consensus's
// signatures, and decides whether it has enough directory information to
// build circuits (nodelist.c's update_router_have_minimum_dir_info).
//
// Then (issue 16) tor bootstraps to 100% through our relays: its link
// handshake accepts our CERTS (RSA identity, type 2, cross-certifying the
// Ed25519 identity, type 7), its ntor v1 CREATE2 to our guards and middles
// uses our RSA fingerprint as NODEID, and it downloads a test file from the
// network's file server through our guard, middle and exit with the SHA-256
// intact.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_doc.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/netspec/network_file.hpp"

#ifndef CONFLUX_NET_BINARY
#error "CONFLUX_NET_BINARY must name the conflux-net program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr const char* kTor = "/usr/bin/tor";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

// Runs `argv` to completion with output to `out`; its exit status.
int run(std::vector<std::string> argv, const fs::path& out) {
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

// GET http://127.0.0.1:port/path: the body of a 200 reply, else fails.
std::string http_get(std::uint16_t port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  REQUIRE(::send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size()));
  std::string reply;
  char buf[16384];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) reply.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  INFO(path << " -> " << reply.substr(0, 200));
  REQUIRE(reply.rfind("HTTP/1.1 200", 0) == 0);
  const auto body = reply.find("\r\n\r\n");
  REQUIRE(body != std::string::npos);
  return reply.substr(body + 4);
}

crypto::RsaFingerprint v3ident_of(const std::string& line) {
  const auto at = line.find("v3ident=");
  REQUIRE(at != std::string::npos);
  auto b = bytes::from_hex(line.substr(at + 8, 40));
  REQUIRE(b);
  crypto::RsaFingerprint f{};
  std::copy(b->begin(), b->end(), f.begin());
  return f;
}

// "Opened Socks listener connection (ready) on 127.0.0.1:PORT" in tor's log.
std::uint16_t socks_port_of(const std::string& log) {
  const std::string opened = "Opened Socks listener connection (ready) on 127.0.0.1:";
  const auto at = log.find(opened);
  if (at == std::string::npos) return 0;
  return static_cast<std::uint16_t>(std::stoul(log.substr(at + opened.size(), 5)));
}

// Waits up to `limit` for `needle` in the file `p`; the file's text.
std::string wait_for(const fs::path& p, const std::string& needle, std::chrono::seconds limit) {
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

}  // namespace

TEST_CASE("a stock tor client bootstraps from our authorities and downloads through our relays",
          "[stocktor][dir]") {
  if (!fs::exists(kTor)) {
    WARN("no " << kTor << ": nothing to test against");
    return;
  }
  std::string tmpl = (fs::temp_directory_path() / "conflux-stocktor-client-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  const fs::path root = tmpl;
  write_text(root / "spec.json", R"({"proxies": [], "authorities": 3, "relays": 4, "exits": 1, "consensus_interval": 20})");
  Network net;
  net.dir = root / "net";
  const int up = run({CONFLUX_NET_BINARY, "up", "--dir", net.dir.string(), "--spec", (root / "spec.json").string()},
                     root / "up.out");
  INFO(read_text(root / "up.out"));
  net.up = true;  // whatever happened, `down` what did start
  auto decoded = netspec::decode_network(read_text(net.dir / netspec::kNetworkFileName));
  REQUIRE(decoded);
  const netspec::NetworkInfo& info = *decoded;
  REQUIRE(up == 0);

  // tor's DirAuthority lines, one per authority, and an authority's DirPort.
  REQUIRE(info.tor_dir_authorities.size() == 3);
  std::vector<crypto::RsaFingerprint> trusted;
  for (const auto& l : info.tor_dir_authorities) trusted.push_back(v3ident_of(l));
  std::uint16_t dir_port = 0;
  for (const auto& p : info.processes)
    if (p.name == "auth1") dir_port = p.ports.dir_port;
  REQUIRE(dir_port != 0);

  // The documents, at tor's paths; our own parsers accept them first. The
  // consensus is published once all three signatures are in (a majority
  // first, so wait for the full set: the client is told to want 2 of 3).
  std::string certs_text, consensus_text;
  std::optional<dir::TorConsensus> consensus;
  const auto deadline = std::chrono::steady_clock::now() + 90s;
  while (std::chrono::steady_clock::now() < deadline) {
    certs_text = http_get(dir_port, "/tor/keys/all");
    auto certs = dir::parse_key_certs(certs_text);
    REQUIRE(certs);
    consensus_text = http_get(dir_port, "/tor/status-vote/current/consensus-microdesc");
    auto c = dir::parse_tor_consensus(consensus_text);
    REQUIRE(c);
    const auto now = static_cast<std::uint64_t>(std::time(nullptr));
    auto ok = dir::verify_tor_consensus(*c, *certs, trusted, now, 5);
    INFO((ok ? "" : dir::to_string(ok.error().code)));
    REQUIRE(ok);
    if (certs->size() == 3 && *ok == 3 && c->routers.size() >= 5) {
      consensus = std::move(*c);
      break;
    }
    std::this_thread::sleep_for(2s);
  }
  REQUIRE(consensus);
  std::string digests;
  for (const auto& r : consensus->routers) {
    digests += (digests.empty() ? "" : "-") + std::string(bytes::base64_encode(r.microdesc_digest));
  }
  const std::string mds_text = http_get(dir_port, "/tor/micro/d/" + digests);
  auto mds = dir::parse_tor_microdescs(mds_text);
  REQUIRE(mds);
  REQUIRE(mds->size() == consensus->routers.size());

  // tor's caches, as tor writes them (each microdescriptor with when it was last listed).
  const fs::path data = root / "tor-data";
  fs::create_directories(data);
  fs::permissions(data, fs::perms::owner_all, fs::perm_options::replace);
  write_text(data / "cached-certs", certs_text);
  write_text(data / "cached-microdesc-consensus", consensus_text);
  std::string cached;
  for (const auto& md : *mds) cached += "@last-listed " + dir::tordoc::format_time(consensus->valid_after) + "\n" + md.text;
  write_text(data / "cached-microdescs", cached);
  std::string torrc;
  for (const auto& l : info.tor_dir_authorities) torrc += l + "\n";
  torrc += "DataDirectory " + data.string() + "\nSocksPort 127.0.0.1:auto\nTestingTorNetwork 1\n"
           "ClientUseIPv6 0\nLog notice file " + (root / "tor-notice.log").string() + "\nLog info file " +
           (root / "tor-info.log").string() + "\n";
  write_text(root / "torrc", torrc);

  TorProcess tor;
  tor.pid = ::fork();
  REQUIRE(tor.pid >= 0);
  if (tor.pid == 0) {
    const std::string out = (root / "tor.out").string();
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    const std::string conf = (root / "torrc").string();
    ::execl(kTor, kTor, "-f", conf.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string enough = "We now have enough directory information to build circuits.";
  const std::string accepted = "This microdesc one has 3 (";
  std::string log = wait_for(root / "tor-info.log", enough, 60s);
  {
    INFO("tor's log:\n" << log.substr(0, 6000));
    CHECK(log.find(accepted) != std::string::npos);
    CHECK(log.find("Reloaded microdescriptor cache. Found " + std::to_string(mds->size()) + " descriptors.") !=
          std::string::npos);
    REQUIRE(log.find(enough) != std::string::npos);
  }

  // Bootstrapped through our relays: link handshakes (CERTS with the RSA
  // identity) and ntor v1 CREATE2 with our RSA fingerprint as NODEID.
  const std::string notice = wait_for(root / "tor-notice.log", "Bootstrapped 100% (done)", 120s);
  {
    log = read_text(root / "tor-info.log");
    const auto bad = log.find("bad CERTS");
    INFO("tor's notices:\n" << notice << "\ninfo (from the first bad CERTS, if any):\n"
                             << log.substr(bad == std::string::npos ? 0 : bad, 4000));
    REQUIRE(notice.find("Bootstrapped 100% (done)") != std::string::npos);
  }

  // A file through guard, middle and exit (all ours), intact.
  const std::uint16_t socks = socks_port_of(notice);
  REQUIRE(socks != 0);
  const netspec::FileRecord* file = nullptr;
  for (const auto& f : info.files)
    if (f.name == "5MiB.bin") file = &f;
  REQUIRE(file != nullptr);
  const fs::path got = root / "download.bin";
  const int rc = run({"/usr/bin/curl", "-sS", "--max-time", "180", "--socks5-hostname",
                      "127.0.0.1:" + std::to_string(socks), "--proxy-user", "stocktor:x", "-o", got.string(), file->url},
                     root / "curl.out");
  INFO("curl: " << read_text(root / "curl.out"));
  REQUIRE(rc == 0);
  const std::string body = read_text(got);
  CHECK(body.size() == file->size);
  const auto digest = crypto::sha256({reinterpret_cast<const std::uint8_t*>(body.data()), body.size()});
  CHECK(bytes::to_hex(digest) == file->sha256);

  tor.stop();
  net.down();
  std::error_code ec;
  fs::remove_all(root, ec);
}
