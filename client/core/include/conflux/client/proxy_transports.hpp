#pragma once
// conflux-proxy's managed pluggable transports, as tor runs them for a
// client: each ClientTransportPlugin line that a Bridge line needs is
// launched once (ptnet::ManagedTransport: supervised, relaunched with
// back-off, stderr logged, stopped with us); a link to such a bridge connects
// to the transport's SOCKS5 listener and asks it for the bridge with the
// bridge line's k=v arguments as credentials (pt-spec 3.5); TLS and the link
// handshake then run inside the tunnel. A line no bridge needs is not
// launched (tor: "does not provide any needed transports").
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/client/link_pool.hpp"
#include "conflux/config/proxy_options.hpp"
#include "conflux/net/log_sink.hpp"

namespace conflux::ptnet {
class ManagedTransport;
}

namespace conflux::client {

class ProxyTransports {
 public:
  // `options` must outlive this object.
  ProxyTransports(net::asio::io_context& io, const config::ProxyOptions& options, net::LogSink log);
  ~ProxyTransports();
  ProxyTransports(const ProxyTransports&) = delete;
  ProxyTransports& operator=(const ProxyTransports&) = delete;

  void start();
  void stop();
  // SETCONF of Bridge, UseBridges or ClientTransportPlugin: the processes
  // stop and those the options now need start.
  void restart();

  // Some Bridge line in use names a transport.
  [[nodiscard]] bool needed() const noexcept { return !running_.empty(); }
  // Every launched transport reported its listeners (DONE).
  [[nodiscard]] bool ready() const;
  // How a link to the first hop `peer` is made: nullopt for a bridge without
  // a transport (or a relay); `unavailable` set while its transport is down.
  // A Bridge line names its bridge by one identity, either kind.
  [[nodiscard]] std::optional<LinkRoute> route(const LinkPool::Peer& peer) const;

  // A transport came up or went down.
  std::function<void()> on_change;

 private:
  struct Running {
    std::vector<std::string> transports;
    std::unique_ptr<ptnet::ManagedTransport> process;
  };
  [[nodiscard]] const ptnet::ManagedTransport* process_for(const std::string& transport) const;

  net::asio::io_context& io_;
  const config::ProxyOptions& options_;
  net::LogSink log_;
  std::vector<Running> running_;
};

}  // namespace conflux::client
