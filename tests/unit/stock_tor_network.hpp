#pragma once
// A private network of Debian's stock tor 0.4.9 on 127.0.0.1, our reference
// peer: 3 authorities, 2 guards, 2 middles, 2 exits, 2 stock clients and a
// file server, started by tools/tornet/run.sh --hold once per test binary
// (it takes about 45 s to bootstrap) and stopped when the binary exits.
//
// What a test needs of a relay to build through it comes from the network
// itself, never from its key files: identities and ports from the
// network.json tornet writes, the ntor onion key from the relay's server
// descriptor as an authority's DirPort serves it (/tor/server/all).
// Reading tor's directory for real (microdesc consensus, signatures) is the
// client's job in conflux-proxy; this is only what a test needs to name hops.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/proto/client_circuit_actions.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_TORNET_RUN
#error "CONFLUX_TORNET_RUN must name tools/tornet/run.sh (tests/CMakeLists.txt)"
#endif

namespace conflux::test::stocktor {

namespace fs = std::filesystem;
namespace asio = boost::asio;
using procs::Child;
using procs::TempDir;

// Ports BASE..BASE+410 on 127.0.0.1; away from the ephemeral range, and from
// tornet's default (15000) that a developer may be holding up by hand.
// CONFLUX_STOCKTOR_BASE_PORT moves them, for a developer whose machine
// already runs a stock network there (ctest runs one binary at a time).
inline constexpr int kBasePort = 17000;
inline int base_port() {
  const char* e = std::getenv("CONFLUX_STOCKTOR_BASE_PORT");  // NOLINT(concurrency-mt-unsafe)
  return e != nullptr && *e != '\0' ? std::atoi(e) : kBasePort;
}

struct StockRelay {
  std::string nick;
  std::string role;  // auth, guard, middle, exit
  std::array<std::uint8_t, 20> rsa_id{};
  crypto::Ed25519Public ed_id{};
  crypto::X25519Public ntor_key{};
  std::uint16_t or_port = 0;
  std::uint16_t control_port = 0;
  std::string cookie_path;
};

// One of tornet's two stock clients (clientcfx0: ConfluxEnabled 0, clientcfx1: 1).
struct StockClient {
  std::string nick;
  std::string socks;  // "127.0.0.1:PORT"
  std::uint16_t control_port = 0;
  std::string cookie_path;
};

struct StockFile {
  std::string path;  // "/1MiB"
  std::string sha256_hex;
};

// tor writes keys base64 with '=' padding; ours is the canonical unpadded form.
template <std::size_t N>
bool decode_key(std::string text, std::array<std::uint8_t, N>& out) {
  while (!text.empty() && (text.back() == '=' || text.back() == '\r')) text.pop_back();
  auto raw = bytes::base64_decode(text);
  if (!raw || raw->size() != N) return false;
  std::copy(raw->begin(), raw->end(), out.begin());
  return true;
}

// "master-key-ed25519" -> "ntor-onion-key" of every descriptor in `all`.
inline std::map<std::string, std::string> ntor_keys_by_ed25519(const std::string& all) {
  std::map<std::string, std::string> out;
  std::istringstream in(all);
  std::string line;
  std::string ed;
  std::string ntor;
  auto flush = [&] {
    if (!ed.empty() && !ntor.empty()) out[ed] = ntor;
    ed.clear();
    ntor.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("router ", 0) == 0) flush();
    if (line.rfind("master-key-ed25519 ", 0) == 0) ed = line.substr(19);
    if (line.rfind("ntor-onion-key ", 0) == 0) ntor = line.substr(15);
  }
  flush();
  return out;
}

class StockTorNetwork {
 public:
  // The one network of this test binary, started on first use, with
  // `extra` given to tornet (e.g. "--vote-exit", FP) by that first call.
  static StockTorNetwork& shared(const std::vector<std::string>& extra = {}) {
    static std::unique_ptr<StockTorNetwork> net = [&extra] {
      auto n = std::unique_ptr<StockTorNetwork>(new StockTorNetwork());
      n->start(extra);
      return n;
    }();
    return *net;
  }

  ~StockTorNetwork() {
    // SIGTERM: run.sh stops every tor it started (by PID), then exits.
    driver_->signal(SIGTERM);
    if (!driver_->wait_exit(std::chrono::seconds(40))) driver_->kill_now();
  }
  StockTorNetwork(const StockTorNetwork&) = delete;
  StockTorNetwork& operator=(const StockTorNetwork&) = delete;

  [[nodiscard]] const StockRelay& relay(const std::string& nick) const {
    for (const auto& r : relays_)
      if (r.nick == nick) return r;
    FAIL("no stock relay named " << nick);
    throw std::logic_error("unreachable");
  }
  [[nodiscard]] const std::vector<StockRelay>& relays() const noexcept { return relays_; }
  [[nodiscard]] const StockClient& client(const std::string& nick) const {
    for (const auto& c : clients_)
      if (c.nick == nick) return c;
    FAIL("no stock client named " << nick);
    throw std::logic_error("unreachable");
  }
  [[nodiscard]] std::uint16_t http_port() const noexcept { return http_port_; }
  [[nodiscard]] const StockFile& file(const std::string& name) const { return files_.at(name); }
  [[nodiscard]] const fs::path& work() const noexcept { return work_; }
  // Its authorities as tor's DirAuthority lines, one per line.
  [[nodiscard]] const std::string& dir_authority_lines() const noexcept { return dir_authority_lines_; }

  // How a client names `nick` as a hop: its identities, onion key and
  // address, the RSA identity included (stock relays refuse an EXTEND2
  // without it).
  [[nodiscard]] proto::HopTarget hop(const std::string& nick) const {
    const auto& r = relay(nick);
    proto::HopTarget t;
    t.identity = r.ed_id;
    t.onion_key = r.ntor_key;
    t.link_specs = {cell::LinkSpecIpv4{{127, 0, 0, 1}, r.or_port}, cell::LinkSpecLegacyId{r.rsa_id}};
    return t;
  }
  [[nodiscard]] net::tcp::endpoint or_endpoint(const std::string& nick) const {
    return {procs::kLoopback, relay(nick).or_port};
  }

 private:
  StockTorNetwork() = default;

  void start(const std::vector<std::string>& extra) {
    work_ = dir_.path() / "tornet";
    const fs::path log = dir_.path() / "tornet.log";
    std::vector<std::string> args{"TORNET_NETNS=0", "TORNET_WORK=" + work_.string(),
                                  "BASE_PORT=" + std::to_string(base_port()), "SIZES=1MiB,5MiB,50MiB", "N=1",
                                  "MAX_SECONDS=3600", "PYTHON=/usr/bin/python3", CONFLUX_TORNET_RUN,
                                  (dir_.path() / "tornet.json").string(), "--hold", "3500"};
    args.insert(args.end(), extra.begin(), extra.end());
    driver_ = std::make_unique<Child>("tornet", "/usr/bin/env", std::move(args), log, SIGTERM);
    driver_->start();
    const fs::path described = work_ / "network.json";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (!fs::exists(described)) {
      INFO("tools/tornet/run.sh says:\n" << procs::read_text(log));
      REQUIRE(driver_->running());
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    read_description(nlohmann::json::parse(procs::read_text(described)));
    read_onion_keys();
  }

  void read_description(const nlohmann::json& d) {
    for (const auto& r : d.at("relays")) {
      StockRelay s;
      s.nick = r.at("nick").get<std::string>();
      s.role = r.at("role").get<std::string>();
      auto rsa = bytes::from_hex(r.at("rsa_fingerprint").get<std::string>());
      REQUIRE((rsa && rsa->size() == 20));
      std::copy(rsa->begin(), rsa->end(), s.rsa_id.begin());
      REQUIRE(decode_key(r.at("ed25519_id").get<std::string>(), s.ed_id));
      s.or_port = r.at("orport").get<std::uint16_t>();
      s.control_port = r.at("control_port").get<std::uint16_t>();
      s.cookie_path = r.at("cookie").get<std::string>();
      relays_.push_back(std::move(s));
    }
    for (const auto& c : d.at("clients"))
      clients_.push_back({c.at("nick").get<std::string>(), c.at("socks").get<std::string>(),
                          c.at("control_port").get<std::uint16_t>(), c.at("cookie").get<std::string>()});
    for (const auto& line : d.at("dirauthority_lines")) dir_authority_lines_ += line.get<std::string>() + "\n";
    const std::string server = d.at("file_server").get<std::string>();  // http://127.0.0.1:PORT/
    http_port_ = static_cast<std::uint16_t>(std::stoi(server.substr(server.rfind(':') + 1)));
    for (const auto& f : d.at("files"))
      files_[f.at("name").get<std::string>()] = {"/" + f.at("name").get<std::string>(),
                                                 f.at("sha256").get<std::string>()};
  }

  void read_onion_keys() {
    asio::io_context io;
    const auto& auth = relay("auth0");
    // An authority's DirPort is BASE+100+i as its ORPort is BASE+i.
    const net::tcp::endpoint dirport(procs::kLoopback, static_cast<std::uint16_t>(auth.or_port + 100));
    dirnet::HttpLimits limits;
    limits.max_body = 4 << 20;
    std::optional<dirnet::HttpResult<dirnet::HttpResponse>> got;
    asio::co_spawn(
        io, [&]() -> net::awaitable<void> { got.emplace(co_await dirnet::http_get(dirport, "/tor/server/all", limits)); },
        asio::detached);
    io.run();
    REQUIRE(got.has_value());
    REQUIRE(got->has_value());
    REQUIRE((*got)->status == 200);
    const auto keys = ntor_keys_by_ed25519((*got)->body);
    for (auto& r : relays_) {
      const auto it = keys.find(bytes::base64_encode(r.ed_id));
      INFO("no server descriptor with an ntor key for " << r.nick);
      REQUIRE(it != keys.end());
      REQUIRE(decode_key(it->second, r.ntor_key));
    }
  }

  TempDir dir_;
  fs::path work_;
  std::string dir_authority_lines_;
  std::unique_ptr<Child> driver_;
  std::vector<StockRelay> relays_;
  std::vector<StockClient> clients_;
  std::uint16_t http_port_ = 0;
  std::map<std::string, StockFile> files_;
};

}  // namespace conflux::test::stocktor
