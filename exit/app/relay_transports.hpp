#pragma once
// conflux-relay as a pluggable-transport bridge, as tor runs one: each
// ServerTransportPlugin line launched (ptnet::ManagedTransport, supervised)
// with TOR_PT_ORPORT at our plain ORPort (obfs4 needs no ExtORPort),
// ServerTransportListenAddr as TOR_PT_SERVER_BINDADDR and
// ServerTransportOptions as TOR_PT_SERVER_TRANSPORT_OPTIONS; once it reports
// its listeners, the bridge line to hand out ("Bridge obfs4 IP:PORT ID
// cert=... iat-mode=0") is logged at notice and written to
// DataDirectory/bridgelines (tor's file name), one line per transport in
// tor's form, ID our RSA fingerprint (stock tor clients and conflux-proxy
// take it; conflux-net hands it out).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/config/relay_options.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::ptnet {
class ManagedTransport;
}

namespace conflux::relay {

struct BridgeIdentity {
  std::optional<config::IpAddress> address;  // advertised IPv4, if any: replaces a 0.0.0.0 listener
  std::string rsa_fingerprint;               // 40 upper-case hex digits
};

class RelayTransports {
 public:
  RelayTransports(net::asio::io_context& io, const config::RelayOptions& options, BridgeIdentity bridge);
  ~RelayTransports();
  RelayTransports(const RelayTransports&) = delete;
  RelayTransports& operator=(const RelayTransports&) = delete;

  // Launches every ServerTransportPlugin line in front of the ORPort at
  // `orport` ("127.0.0.1:9001", as TOR_PT_ORPORT).
  void start(const std::string& orport);
  void stop();

 private:
  void on_change(std::size_t index);
  void write_bridge_lines();

  net::asio::io_context& io_;
  const config::RelayOptions& options_;
  BridgeIdentity bridge_;
  std::vector<std::unique_ptr<ptnet::ManagedTransport>> running_;
  std::vector<std::vector<std::string>> lines_;  // per running transport process: its bridge lines
};

// "Bridge TRANSPORT ADDR:PORT ID K=V..." from an SMETHOD's address and its
// ARGS (k=v separated by commas, with '\' escaping, pt-spec 3.3.3).
[[nodiscard]] std::string bridge_line_for(const std::string& transport, const std::string& addr_port,
                                          const std::string& identity, const std::string& smethod_args);

}  // namespace conflux::relay
