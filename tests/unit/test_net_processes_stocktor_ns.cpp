// Issue 16: our relays' directory caches serve tor's ns flavour, to a stock
// tor 0.4.9 client (Debian's /usr/bin/tor) with UseMicrodescriptors 0. Its
// own binary beside test_net_processes_stocktor_client.cpp, whose cases
// bring up their own conflux-net networks as this one does.
#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_doc.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/netspec/network_file.hpp"
#include "stocktor_client_support.hpp"

using namespace conflux;
using namespace conflux::test::stockclient;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

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
  UpNetwork network("conflux-stocktor-ns", R"({"proxies": [], "authorities": 3, "relays": 3, "exits": 1,
      "consensus_interval": 20, "exit_policy": ["accept *:80", "accept *:443"]})");
  INFO(network.up_output);
  const fs::path& root = network.root;
  const netspec::ProcessRecord& auth = network.process("auth1");
  const netspec::ProcessRecord& cache = network.process("relay1");
  REQUIRE(auth.ports.dir_port != 0);
  REQUIRE(cache.rsa_fingerprint.size() == 40);
  const fs::path cache_data = cache.data_dir;

  // The same ns consensus at the authority and at our cache, signed by all
  // three and listing every relay (the cache may lag a round: ask again).
  std::string at_auth, at_cache;
  std::optional<dir::TorConsensus> ns;
  for (auto until = std::chrono::steady_clock::now() + 120s; !ns && std::chrono::steady_clock::now() < until;) {
    at_auth = http_get_or_empty(auth.ports.dir_port, "/tor/status-vote/current/consensus");
    at_cache = read_text(cache_data / "cached-consensus");
    auto certs = dir::parse_key_certs(http_get(auth.ports.dir_port, "/tor/keys/all"));
    auto c = dir::parse_tor_consensus(at_cache);
    if (!at_cache.empty() && at_cache == at_auth && certs && c && c->flavor == dir::ConsensusFlavor::Ns &&
        c->routers.size() == 6) {
      auto ok = dir::verify_tor_consensus(*c, *certs, network.trusted,
                                          static_cast<std::uint64_t>(std::time(nullptr)), 5);
      if (ok && *ok == 3) ns = std::move(*c);
    }
    if (!ns) std::this_thread::sleep_for(1s);
  }
  INFO("authority's ns consensus:\n" << at_auth.substr(0, 600) << "\ncache's:\n" << at_cache.substr(0, 600));
  REQUIRE(ns);
  // Every descriptor it names, byte for byte as the authority serves it.
  const std::string held = read_text(cache_data / "cached-descriptors");
  for (const auto& r : ns->routers) {
    const std::string from_auth = http_get(auth.ports.dir_port, "/tor/server/d/" + bytes::to_hex(r.descriptor_digest, true));
    CHECK(from_auth.find("router " + r.nickname + " ") == 0);
    CHECK(held.find(from_auth) != std::string::npos);
  }
  CHECK(read_text(cache.log).find("Directory cache: serving the ns consensus valid after") != std::string::npos);

  // The stock client: our relay its bridge (so its only directory source,
  // over BEGIN_DIR), the ns flavour. tor 0.4.9 loads that directory but
  // builds no circuit with UseBridges and UseMicrodescriptors 0 together:
  // router_can_choose_node refuses every first hop then (a bridge's
  // descriptor has the bridge purpose, the others the general one, and with
  // UseBridges it wants the first, then the second), so its log says "Not
  // enough acceptable routers (0/3 direct ...)" and it stays at 75%. That
  // is as far as a stock client can go on the ns flavour through a bridge.
  const fs::path data = private_dir(root / "tor-data");
  write_text(root / "torrc", network.dir_authorities + "DataDirectory " + data.string() +
                                 "\nSocksPort 127.0.0.1:auto\nTestingTorNetwork 1\nClientUseIPv6 0\nConfluxEnabled 0\n"
                                 "UseMicrodescriptors 0\nUseBridges 1\nBridge 127.0.0.1:" +
                                 std::to_string(cache.ports.or_port) + " " + cache.rsa_fingerprint +
                                 "\nLog notice file " + (root / "tor-notice.log").string() + "\nLog info file " +
                                 (root / "tor-info.log").string() + "\n");
  TorProcess tor;
  tor.pid = start_tor(root / "torrc", root / "tor.out");
  const std::string at_port = "127.0.0.1:" + std::to_string(cache.ports.or_port);
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
  network.down_and_remove();
}
