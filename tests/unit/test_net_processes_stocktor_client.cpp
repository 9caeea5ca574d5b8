// A stock tor 0.4.9 client (Debian's /usr/bin/tor) uses a conflux-net
// network of our authorities and relays like a tor network (issue 16):
//  - our authorities' documents in tor's formats (key certificates, microdesc
//    consensus signed by all three, microdescriptors) pass our own parsers,
//    fetched from a DirPort;
//  - tor bootstraps to 100% on its own: it fetches those documents over
//    BEGIN_DIR through our authorities' ORPorts, which needs our CERTS cell
//    as tor checks it (RSA identity, type 2, cross-certifying the Ed25519
//    identity, type 7), then builds circuits with ntor v1 CREATE2 to our
//    guards and middles (NODEID = our RSA fingerprint) and ntor v3 to our exit;
//  - it downloads 50 MiB from the network's file server through our guard,
//    middle and exit with the SHA-256 intact;
//  - with ConfluxEnabled 1 it links Conflux sets at our exit, and the
//    download's circuit is a linked leg (GETINFO circuit-status).
// Second case: a stock tor relay joins such a network (it uploads its
// descriptor to our authorities, which list it), and a stock client's
// circuit goes through it. Third case: our relay's directory cache serves
// tor's ns flavour, to a stock client with UseMicrodescriptors 0.
// One setting works around what our directory does not give yet: the exits
// also accept ports 80 and 443 (our authorities vote Exit only then). tor
// uses its guards as it would anywhere: it samples them among V2Dir relays,
// which our authorities vote for relays with a DirPort, and those serve
// tor's documents as directory caches (docs/DIRECTORY.md).
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
#include <optional>
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

// GET http://127.0.0.1:port/path: the whole reply.
std::string http_reply(std::uint16_t port, const std::string& path) {
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
  return reply;
}

// The body of a 200 reply, else fails.
std::string http_get(std::uint16_t port, const std::string& path) {
  const std::string reply = http_reply(port, path);
  INFO(path << " -> " << reply.substr(0, 200));
  REQUIRE(reply.rfind("HTTP/1.1 200", 0) == 0);
  const auto body = reply.find("\r\n\r\n");
  REQUIRE(body != std::string::npos);
  return reply.substr(body + 4);
}

// The body of a 200 reply, "" for any other.
std::string http_get_or_empty(std::uint16_t port, const std::string& path) {
  const std::string reply = http_reply(port, path);
  const auto body = reply.find("\r\n\r\n");
  if (reply.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos) return {};
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

// The reply to one control-port command (tor without control-port
// authentication configured accepts an empty AUTHENTICATE), up to QUIT's.
std::string control_query(std::uint16_t port, const std::string& command) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string req = "AUTHENTICATE \"\"\r\n" + command + "\r\nQUIT\r\n";
  REQUIRE(::send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size()));
  std::string reply;
  char buf[16384];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) reply.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return reply;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l.empty() || l.back() != '\r' ? l : l.substr(0, l.size() - 1));
  return out;
}

// "KEY=VALUE" (VALUE up to the next space) in a circuit-status line, or "".
std::string field_of(const std::string& line, const std::string& key) {
  const auto at = line.find(" " + key + "=");
  if (at == std::string::npos) return {};
  const auto start = at + key.size() + 2;
  return line.substr(start, line.find(' ', start) - start);
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
  // Exit flag: our authorities vote it for exits that allow ports 80 and 443.
  write_text(root / "spec.json", R"({"proxies": [], "authorities": 3, "relays": 4, "exits": 1,
      "consensus_interval": 20, "exit_policy": ["accept *:80", "accept *:443"]})");
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

  // tor starts from an empty DataDirectory and fetches everything itself.
  const fs::path data = root / "tor-data";
  fs::create_directories(data);
  fs::permissions(data, fs::perms::owner_all, fs::perm_options::replace);
  std::string torrc;
  for (const auto& l : info.tor_dir_authorities) torrc += l + "\n";
  torrc += "DataDirectory " + data.string() + "\nSocksPort 127.0.0.1:auto\nControlPort 127.0.0.1:auto\n" +
           "ControlPortWriteToFile " + (root / "control-port").string() + "\nTestingTorNetwork 1\n" +
           "ClientUseIPv6 0\nConfluxEnabled 1\nLog notice file " +
           (root / "tor-notice.log").string() + "\nLog info file " + (root / "tor-info.log").string() + "\n";
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

  // Bootstrapped over BEGIN_DIR and through our relays.
  const std::string notice = wait_for(root / "tor-notice.log", "Bootstrapped 100% (done)", 180s);
  {
    const std::string log = read_text(root / "tor-info.log");
    const auto bad = log.find("bad CERTS");
    INFO("tor's notices:\n" << notice << "\ninfo (from the first bad CERTS, if any):\n"
                             << log.substr(bad == std::string::npos ? 0 : bad, 4000));
    CHECK(log.find("This microdesc one has 3 (") != std::string::npos);
    CHECK(bad == std::string::npos);
    // tor reads an RSA key from each certificate it sees; ours are RSA.
    CHECK(notice.find("Unhandled OpenSSL errors") == std::string::npos);
    REQUIRE(notice.find("Bootstrapped 100% (done)") != std::string::npos);
  }

  // 50 MiB through guard, middle and exit (all ours), intact.
  const std::uint16_t socks = socks_port_of(notice);
  REQUIRE(socks != 0);
  const netspec::FileRecord* file = nullptr;
  for (const auto& f : info.files)
    if (f.name == "50MiB.bin") file = &f;
  REQUIRE(file != nullptr);
  const fs::path got = root / "download.bin";
  const int rc = run({"/usr/bin/curl", "-sS", "--max-time", "300", "--socks5-hostname",
                      "127.0.0.1:" + std::to_string(socks), "--proxy-user", "stocktor:x", "-o", got.string(), file->url},
                     root / "curl.out");
  INFO("curl: " << read_text(root / "curl.out"));
  REQUIRE(rc == 0);
  {
    const std::string body = read_text(got);
    CHECK(body.size() == file->size);
    const auto digest = crypto::sha256({reinterpret_cast<const std::uint8_t*>(body.data()), body.size()});
    CHECK(bytes::to_hex(digest) == file->sha256);
  }

  // Conflux: the download's circuit is a leg of a set linked at our exit,
  // with at least one more leg in the same set.
  const std::string port_file = read_text(root / "control-port");  // "PORT=127.0.0.1:NNNN"
  const auto colon = port_file.rfind(':');
  REQUIRE(colon != std::string::npos);
  const auto control = static_cast<std::uint16_t>(std::stoul(port_file.substr(colon + 1)));
  const std::string status = control_query(control, "GETINFO circuit-status");
  INFO("circuit-status:\n" << status);
  std::string set;
  for (const auto& l : lines_of(status))
    if (l.find("SOCKS_USERNAME=\"stocktor\"") != std::string::npos && l.find("PURPOSE=CONFLUX_LINKED") != std::string::npos)
      set = field_of(l, "CONFLUX_ID");
  REQUIRE_FALSE(set.empty());
  int legs = 0;
  for (const auto& l : lines_of(status)) {
    if (field_of(l, "CONFLUX_ID") != set || l.find(" BUILT ") == std::string::npos) continue;
    ++legs;
    CHECK(l.find("~exit1 ") != std::string::npos);  // every leg ends at our exit
  }
  CHECK(legs >= 2);

  tor.stop();
  net.down();
  std::error_code ec;
  fs::remove_all(root, ec);
}

namespace {

// A loopback port nobody listens on now (bound, read, closed).
std::uint16_t free_loopback_port() {
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

pid_t start_tor(const fs::path& torrc, const fs::path& out) {
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

fs::path private_dir(const fs::path& p) {
  fs::create_directories(p);
  fs::permissions(p, fs::perms::owner_all, fs::perm_options::replace);
  return p;
}

}  // namespace

// Issue 15/16: a stock tor relay joins a conflux-net network. It uploads its
// server descriptor to our authorities (POST /tor/), they test its ORPort and
// list it in the consensus all three sign; a stock client then builds its
// circuit through it (MiddleNodes) and downloads intact. The stock relay has
// measured no bandwidth yet ("bandwidth ... 0"): tor's own
// FastFlagMaxThreshold parameter, which our authorities apply as tor's do,
// lets it be Fast, which a client wants of every hop of an exit circuit.
TEST_CASE("a stock tor relay joins our network through our authorities and carries a stock client's circuit",
          "[stocktor][dir]") {
  if (!fs::exists(kTor)) {
    WARN("no " << kTor << ": nothing to test against");
    return;
  }
  std::string tmpl = (fs::temp_directory_path() / "conflux-stocktor-join-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  const fs::path root = tmpl;
  write_text(root / "spec.json", R"({"proxies": [], "authorities": 3, "relays": 2, "exits": 1,
      "consensus_interval": 20, "exit_policy": ["accept *:80", "accept *:443"],
      "relay_options": ["ConsensusParams FastFlagMaxThreshold=0"]})");
  Network net;
  net.dir = root / "net";
  const int up = run({CONFLUX_NET_BINARY, "up", "--dir", net.dir.string(), "--spec", (root / "spec.json").string()},
                     root / "up.out");
  INFO(read_text(root / "up.out"));
  net.up = true;
  auto decoded = netspec::decode_network(read_text(net.dir / netspec::kNetworkFileName));
  REQUIRE(decoded);
  const netspec::NetworkInfo& info = *decoded;
  REQUIRE(up == 0);
  std::vector<crypto::RsaFingerprint> trusted;
  std::string dir_authorities;
  for (const auto& l : info.tor_dir_authorities) {
    trusted.push_back(v3ident_of(l));
    dir_authorities += l + "\n";
  }
  std::uint16_t dir_port = 0;
  for (const auto& p : info.processes)
    if (p.name == "auth1") dir_port = p.ports.dir_port;
  REQUIRE(dir_port != 0);

  // The stock relay: a middle, publishing at once (AssumeReachable, as tornet's relays).
  const fs::path relay_data = private_dir(root / "relay-data");
  write_text(root / "relay-torrc", "DataDirectory " + relay_data.string() +
                                       "\nNickname stockmid\nTestingTorNetwork 1\nSocksPort 0\nORPort 127.0.0.1:" +
                                       std::to_string(free_loopback_port()) +
                                       "\nAddress 127.0.0.1\nAssumeReachable 1\nExitRelay 0\nExitPolicy reject *:*\n"
                                       "ContactInfo stockmid@conflux.invalid\nOutboundBindAddress 127.0.0.1\n"
                                       "Log notice file " + (root / "relay-notice.log").string() + "\n" +
                                       dir_authorities);
  TorProcess relay;
  relay.pid = start_tor(root / "relay-torrc", root / "relay.out");
  const std::string fp_line = wait_for(relay_data / "fingerprint", "stockmid ", 60s);  // "stockmid HEX\n"
  REQUIRE(fp_line.rfind("stockmid ", 0) == 0);
  const std::string fp = fp_line.substr(9, 40);

  // Accepted by our authority (tor's answer in the stock relay's log is at
  // info level), then listed in the consensus all three authorities sign.
  std::string uploaded;
  for (auto until = std::chrono::steady_clock::now() + 90s; std::chrono::steady_clock::now() < until;) {
    uploaded = http_get_or_empty(dir_port, "/tor/server/all");
    if (uploaded.find("router stockmid ") != std::string::npos) break;
    std::this_thread::sleep_for(1s);
  }
  INFO("stock relay's log:\n" << read_text(root / "relay-notice.log"));
  REQUIRE(uploaded.find("router stockmid ") != std::string::npos);
  std::optional<dir::TorRouterStatus> listed;
  std::size_t signatures = 0;
  for (auto until = std::chrono::steady_clock::now() + 120s; !listed && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(2s);
    auto certs = dir::parse_key_certs(http_get(dir_port, "/tor/keys/all"));
    auto c = dir::parse_tor_consensus(http_get(dir_port, "/tor/status-vote/current/consensus-microdesc"));
    REQUIRE(certs);
    REQUIRE(c);
    auto ok = dir::verify_tor_consensus(*c, *certs, trusted, static_cast<std::uint64_t>(std::time(nullptr)), 5);
    REQUIRE(ok);
    signatures = *ok;
    for (const auto& r : c->routers)
      if (r.nickname == "stockmid" && signatures == 3) listed = r;
  }
  REQUIRE(listed);
  CHECK(bytes::to_hex(listed->identity, true) == fp);
  CHECK(listed->has_flag("Running"));
  CHECK(listed->has_flag("Valid"));
  CHECK(listed->has_flag("Fast"));
  CHECK_FALSE(listed->has_flag("Exit"));

  // A stock client through it: our guard, the stock middle, our exit.
  // EntryNodes too: with MiddleNodes alone tor 0.4.9 estimates its guards
  // among the MiddleNodes (compute_frac_paths_available) and, with no Guard
  // there, never bootstraps. Our authorities are our guards (Guard, V2Dir).
  std::string entry_nodes;
  for (const auto& l : info.tor_dir_authorities) entry_nodes += (entry_nodes.empty() ? "$" : ",$") + l.substr(l.rfind(' ') + 1);
  const fs::path data = private_dir(root / "tor-data");
  write_text(root / "torrc", dir_authorities + "DataDirectory " + data.string() +
                                 "\nSocksPort 127.0.0.1:auto\nControlPort 127.0.0.1:auto\nControlPortWriteToFile " +
                                 (root / "control-port").string() +
                                 "\nTestingTorNetwork 1\nClientUseIPv6 0\nConfluxEnabled 0\nMiddleNodes $" + fp + "\nEntryNodes " + entry_nodes +
                                 "\nLog notice file " + (root / "tor-notice.log").string() + "\n");
  TorProcess tor;
  tor.pid = start_tor(root / "torrc", root / "tor.out");
  const std::string notice = wait_for(root / "tor-notice.log", "Bootstrapped 100% (done)", 180s);
  INFO("tor's notices:\n" << notice);
  REQUIRE(notice.find("Bootstrapped 100% (done)") != std::string::npos);
  const std::uint16_t socks = socks_port_of(notice);
  REQUIRE(socks != 0);
  const netspec::FileRecord* file = nullptr;
  for (const auto& f : info.files)
    if (f.name == "1MiB.bin") file = &f;
  REQUIRE(file != nullptr);
  const fs::path got = root / "download.bin";
  const int rc = run({"/usr/bin/curl", "-sS", "--max-time", "120", "--socks5-hostname",
                      "127.0.0.1:" + std::to_string(socks), "--proxy-user", "viastock:x", "-o", got.string(), file->url},
                     root / "curl.out");
  INFO("curl: " << read_text(root / "curl.out"));
  REQUIRE(rc == 0);
  const std::string body = read_text(got);
  CHECK(body.size() == file->size);
  CHECK(bytes::to_hex(crypto::sha256({reinterpret_cast<const std::uint8_t*>(body.data()), body.size()})) ==
        file->sha256);

  const std::string port_file = read_text(root / "control-port");
  const auto colon = port_file.rfind(':');
  REQUIRE(colon != std::string::npos);
  const std::string status =
      control_query(static_cast<std::uint16_t>(std::stoul(port_file.substr(colon + 1))), "GETINFO circuit-status");
  INFO("circuit-status:\n" << status);
  bool through = false;
  for (const auto& l : lines_of(status))
    if (l.find("SOCKS_USERNAME=\"viastock\"") != std::string::npos && l.find(" BUILT $") != std::string::npos)
      through = through || (l.find("$" + fp + "~stockmid,") != std::string::npos && l.find("~exit1 ") != std::string::npos);
  CHECK(through);

  tor.stop();
  relay.stop();
  net.down();
  std::error_code ec;
  fs::remove_all(root, ec);
}

// Issue 16: our relays' directory caches serve tor's ns flavour. A relay
// of ours keeps (DataDirectory/cached-consensus, cached-descriptors), byte
// for byte, the ns consensus our authorities signed and every server
// descriptor it names, as an authority serves them (what stock relays, and
// clients with UseMicrodescriptors 0, ask a cache for). Then a stock client
// whose only directory source is that relay (its bridge: a bridge user asks
// nobody else; over BEGIN_DIR, as our relays here have no DirPort) and
// which wants the ns flavour loads its whole directory from it: the ns
// consensus with all three signatures checked, and every descriptor.
TEST_CASE("a stock tor client on the ns flavour bootstraps from our relay's directory cache", "[stocktor][dir][ns]") {
  if (!fs::exists(kTor)) {
    WARN("no " << kTor << ": nothing to test against");
    return;
  }
  std::string tmpl = (fs::temp_directory_path() / "conflux-stocktor-ns-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  const fs::path root = tmpl;
  write_text(root / "spec.json", R"({"proxies": [], "authorities": 3, "relays": 3, "exits": 1,
      "consensus_interval": 20, "exit_policy": ["accept *:80", "accept *:443"]})");
  Network net;
  net.dir = root / "net";
  const int up = run({CONFLUX_NET_BINARY, "up", "--dir", net.dir.string(), "--spec", (root / "spec.json").string()},
                     root / "up.out");
  INFO(read_text(root / "up.out"));
  net.up = true;
  auto decoded = netspec::decode_network(read_text(net.dir / netspec::kNetworkFileName));
  REQUIRE(decoded);
  const netspec::NetworkInfo& info = *decoded;
  REQUIRE(up == 0);
  std::vector<crypto::RsaFingerprint> trusted;
  std::string dir_authorities;
  for (const auto& l : info.tor_dir_authorities) {
    trusted.push_back(v3ident_of(l));
    dir_authorities += l + "\n";
  }
  const netspec::ProcessRecord* auth = nullptr;
  const netspec::ProcessRecord* cache = nullptr;
  for (const auto& p : info.processes) {
    if (p.name == "auth1") auth = &p;
    if (p.name == "relay1") cache = &p;
  }
  REQUIRE(auth != nullptr);
  REQUIRE(cache != nullptr);
  REQUIRE(auth->ports.dir_port != 0);
  REQUIRE(cache->rsa_fingerprint.size() == 40);
  const fs::path cache_data = cache->data_dir;

  // The same ns consensus at the authority and at our cache, signed by all
  // three and listing every relay (the cache may lag a round: ask again).
  std::string at_auth, at_cache;
  std::optional<dir::TorConsensus> ns;
  for (auto until = std::chrono::steady_clock::now() + 120s; !ns && std::chrono::steady_clock::now() < until;) {
    at_auth = http_get_or_empty(auth->ports.dir_port, "/tor/status-vote/current/consensus");
    at_cache = read_text(cache_data / "cached-consensus");
    auto certs = dir::parse_key_certs(http_get(auth->ports.dir_port, "/tor/keys/all"));
    auto c = dir::parse_tor_consensus(at_cache);
    if (!at_cache.empty() && at_cache == at_auth && certs && c && c->flavor == dir::ConsensusFlavor::Ns &&
        c->routers.size() == 6) {
      auto ok = dir::verify_tor_consensus(*c, *certs, trusted, static_cast<std::uint64_t>(std::time(nullptr)), 5);
      if (ok && *ok == 3) ns = std::move(*c);
    }
    if (!ns) std::this_thread::sleep_for(1s);
  }
  INFO("authority's ns consensus:\n" << at_auth.substr(0, 600) << "\ncache's:\n" << at_cache.substr(0, 600));
  REQUIRE(ns);
  // Every descriptor it names, byte for byte as the authority serves it.
  const std::string held = read_text(cache_data / "cached-descriptors");
  for (const auto& r : ns->routers) {
    const std::string from_auth = http_get(auth->ports.dir_port, "/tor/server/d/" + bytes::to_hex(r.descriptor_digest, true));
    CHECK(from_auth.find("router " + r.nickname + " ") == 0);
    CHECK(held.find(from_auth) != std::string::npos);
  }
  CHECK(read_text(cache->log).find("Directory cache: serving the ns consensus valid after") != std::string::npos);

  // The stock client: our relay its bridge (so its only directory source,
  // over BEGIN_DIR), the ns flavour. tor 0.4.9 loads that directory but
  // builds no circuit with UseBridges and UseMicrodescriptors 0 together:
  // router_can_choose_node refuses every first hop then (a bridge's
  // descriptor has the bridge purpose, the others the general one, and with
  // UseBridges it wants the first, then the second), so its log says "Not
  // enough acceptable routers (0/3 direct ...)" and it stays at 75%. That
  // is as far as a stock client can go on the ns flavour through a bridge.
  const fs::path data = private_dir(root / "tor-data");
  write_text(root / "torrc", dir_authorities + "DataDirectory " + data.string() +
                                 "\nSocksPort 127.0.0.1:auto\nTestingTorNetwork 1\nClientUseIPv6 0\nConfluxEnabled 0\n"
                                 "UseMicrodescriptors 0\nUseBridges 1\nBridge 127.0.0.1:" +
                                 std::to_string(cache->ports.or_port) + " " + cache->rsa_fingerprint +
                                 "\nLog notice file " + (root / "tor-notice.log").string() + "\nLog info file " +
                                 (root / "tor-info.log").string() + "\n");
  TorProcess tor;
  tor.pid = start_tor(root / "torrc", root / "tor.out");
  const std::string at_port = "127.0.0.1:" + std::to_string(cache->ports.or_port);
  const std::string all_descs = "Received 5/5 router descriptors requested from " + at_port;  // the 6 but the bridge
  const std::string info_log = wait_for(root / "tor-info.log", all_descs, 180s);
  const std::string notice = read_text(root / "tor-notice.log");
  INFO("tor's notices:\n" << notice);
  CHECK(notice.find("Bootstrapped 75% (enough_dirinfo)") != std::string::npos);
  CHECK(notice.find("Received http status code") == std::string::npos);  // nothing it asked our relay was refused
  CHECK(info_log.find(all_descs) != std::string::npos);
  {
    // Its consensus is the ns flavour, from our relay, every signature checked.
    const std::string from = "Received consensus directory (body size ";
    const auto at = info_log.find(from);
    REQUIRE(at != std::string::npos);
    const std::string line = info_log.substr(at, info_log.find('\n', at) - at);
    INFO(line);
    CHECK(line.find("from server " + at_port) != std::string::npos);
    CHECK(info_log.find("This ns one has 3 (") != std::string::npos);
    CHECK_FALSE(fs::exists(data / "cached-microdesc-consensus"));
    auto kept = dir::parse_tor_consensus(read_text(data / "cached-consensus"));
    REQUIRE(kept);
    CHECK(kept->flavor == dir::ConsensusFlavor::Ns);
    CHECK(kept->routers.size() == 6);
  }

  tor.stop();
  net.down();
  std::error_code ec;
  fs::remove_all(root, ec);
}
