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
// circuit goes through it. (Our relay's directory cache serving tor's ns
// flavour is test_net_processes_stocktor_ns.cpp.) Each case brings up a
// conflux-net network of its own: each wants another spec.
// One setting works around what our directory does not give yet: the exits
// also accept ports 80 and 443 (our authorities vote Exit only then). tor
// uses its guards as it would anywhere: it samples them among V2Dir relays,
// which our authorities vote for relays with a DirPort, and those serve
// tor's documents as directory caches (docs/DIRECTORY.md).
#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
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
#include "stocktor_client_support.hpp"

using namespace conflux;
using namespace conflux::test::stockclient;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST_CASE("a stock tor client bootstraps from our authorities and downloads through our relays",
          "[stocktor][dir]") {
  if (!fs::exists(kTor)) {
    WARN("no " << kTor << ": nothing to test against");
    return;
  }
  // Exit flag: our authorities vote it for exits that allow ports 80 and 443.
  UpNetwork network("conflux-stocktor-client", R"({"proxies": [], "authorities": 3, "relays": 4, "exits": 1,
      "consensus_interval": 20, "exit_policy": ["accept *:80", "accept *:443"]})");
  INFO(network.up_output);
  const fs::path& root = network.root;
  const netspec::NetworkInfo& info = network.info;

  // tor's DirAuthority lines, one per authority, and an authority's DirPort.
  REQUIRE(info.tor_dir_authorities.size() == 3);
  const std::uint16_t dir_port = network.process("auth1").ports.dir_port;
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
    auto ok = dir::verify_tor_consensus(*c, *certs, network.trusted, now, 5);
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
  const fs::path data = private_dir(root / "tor-data");
  std::string torrc = network.dir_authorities;
  torrc += "DataDirectory " + data.string() + "\nSocksPort 127.0.0.1:auto\nControlPort 127.0.0.1:auto\n" +
           "ControlPortWriteToFile " + (root / "control-port").string() + "\nTestingTorNetwork 1\n" +
           "ClientUseIPv6 0\nConfluxEnabled 1\nLog notice file " +
           (root / "tor-notice.log").string() + "\nLog info file " + (root / "tor-info.log").string() + "\n";
  write_text(root / "torrc", torrc);

  TorProcess tor;
  tor.pid = start_tor(root / "torrc", root / "tor.out");

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
  network.down_and_remove();
}

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
  UpNetwork network("conflux-stocktor-join", R"({"proxies": [], "authorities": 3, "relays": 2, "exits": 1,
      "consensus_interval": 20, "exit_policy": ["accept *:80", "accept *:443"],
      "relay_options": ["ConsensusParams FastFlagMaxThreshold=0"]})");
  INFO(network.up_output);
  const fs::path& root = network.root;
  const netspec::NetworkInfo& info = network.info;
  const std::string& dir_authorities = network.dir_authorities;
  const std::uint16_t dir_port = network.process("auth1").ports.dir_port;
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
    auto ok = dir::verify_tor_consensus(*c, *certs, network.trusted,
                                        static_cast<std::uint64_t>(std::time(nullptr)), 5);
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
  network.down_and_remove();
}

