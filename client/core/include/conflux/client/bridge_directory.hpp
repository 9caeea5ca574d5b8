#pragma once
// The descriptors of the configured bridges, fetched from each bridge
// itself as tor does: a one-hop circuit made with CREATE_FAST (the TLS link
// already proved the bridge's identity; its onion key is what we are
// fetching), a BEGIN_DIR stream on it, and an HTTP GET of the bridge's own
// descriptor. A descriptor is used only if it verifies and names the
// identity of the Bridge line. Failures are kept per bridge so the proxy can
// say which bridges it could not reach.
// A bridge (named by RSA fingerprint, tor's Bridge line) serves tor's server
// descriptor at /tor/server/authority (tor's bridge descriptor fetch); its
// RSA fingerprint must be the line's. Its Ed25519 identity and ntor onion
// key then come from it, so the path uses it as any other first hop.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conflux/client/link_pool.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"

namespace conflux::client {

struct BridgeTarget {
  net::tcp::endpoint at;
  crypto::Ed25519Public identity{};  // all zero until its first descriptor gave it
  crypto::RsaFingerprint rsa{};      // the Bridge line's
};

struct BridgeStatus {
  BridgeTarget target;
  std::optional<dir::TorServerDescriptor> descriptor;  // the newest that verified
  std::string last_error;                     // empty when the last fetch worked
  std::uint64_t attempts = 0;
};

class BridgeDirectory {
 public:
  struct Options {
    std::chrono::seconds retry_initial{5};
    std::chrono::seconds retry_max{300};
    std::chrono::seconds refresh{3600};
    std::chrono::seconds fetch_timeout{30};
  };

  BridgeDirectory(net::asio::io_context& io, LinkPool& links, const net::Clock& clock, std::vector<BridgeTarget> bridges,
                  Options options, net::LogSink log);
  ~BridgeDirectory();
  BridgeDirectory(const BridgeDirectory&) = delete;
  BridgeDirectory& operator=(const BridgeDirectory&) = delete;

  void start();
  void stop();

  [[nodiscard]] const std::vector<BridgeStatus>& bridges() const noexcept { return bridges_; }
  [[nodiscard]] std::size_t usable() const;
  // A controller's "test the bridges now" (CONFLUX_TESTBRIDGES): one
  // descriptor fetch from each bridge at once, over the channel to it
  // (opened, through its transport, when there is none), each reported to
  // `done` with how long it took and why it failed (nullopt: it worked).
  using ProbeDone =
      std::function<void(const BridgeTarget&, std::chrono::milliseconds took, const std::optional<std::string>& error)>;
  void probe(ProbeDone done);
  // Called whenever a bridge's descriptor arrives.
  std::function<void()> on_change;

 private:
  net::awaitable<void> keep_fresh(std::size_t index);
  net::awaitable<void> probe_one(std::size_t index, ProbeDone done);
  net::awaitable<std::optional<std::string>> fetch_once(std::size_t index);

  std::shared_ptr<int> life_ = std::make_shared<int>(0);
  net::asio::io_context& io_;
  LinkPool& links_;
  const net::Clock& clock_;
  std::vector<BridgeStatus> bridges_;
  Options options_;
  net::LogSink log_;
  bool stopped_ = false;
};

}  // namespace conflux::client
