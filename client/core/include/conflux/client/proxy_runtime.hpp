#pragma once
// conflux-proxy's runtime: everything between the SOCKS listeners and the
// network, on one io_context. It bootstraps (consensus, bridge
// descriptors), keeps circuits ready, serves SOCKS, exports metrics and logs
// what a person running it needs to follow along (tor's "Bootstrapped N%"
// lines included).
#include <memory>
#include <string>
#include <vector>

#include "conflux/config/proxy_options.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/log_sink.hpp"

namespace conflux::client {

class ProxyRuntime {
 public:
  ProxyRuntime(net::asio::io_context& io, const net::Clock& clock, config::ProxyOptions options, net::LogSink log);
  ~ProxyRuntime();
  ProxyRuntime(const ProxyRuntime&) = delete;
  ProxyRuntime& operator=(const ProxyRuntime&) = delete;

  // Binds the listeners and starts bootstrapping; false (after logging why)
  // when a listener cannot be bound or the data directory is unusable.
  bool start();
  void stop();

  [[nodiscard]] int bootstrap_percent() const;
  // Circuits, streams, bytes: one notice line (SIGUSR1 and the heartbeat).
  void log_heartbeat() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace conflux::client
