#pragma once
// What conflux-proxy's MetricsPort serves (docs/METRICS.md has the list):
// read at scrape time from the counters the runtime keeps anyway.
#include <chrono>
#include <string>

#include "conflux/client/circuit_pool.hpp"
#include "conflux/client/conflux_pool.hpp"
#include "conflux/client/link_pool.hpp"
#include "conflux/client/proxy_counters.hpp"
#include "conflux/metrics/histogram.hpp"

namespace conflux::client {

class ProxyMetrics {
 public:
  // `conflux` is null unless ConfluxEnabled 1.
  ProxyMetrics(const ProxyCounters& counters, const CircuitPool& pool, const LinkPool& links,
               const ConfluxPool* conflux = nullptr);

  void observe_build(std::chrono::milliseconds took);
  // The Conflux pool once SETCONF ConfluxEnabled 1 made one.
  void set_conflux(const ConfluxPool* conflux) { conflux_ = conflux; }
  [[nodiscard]] std::string render() const;

  int bootstrap_percent = 0;
  std::chrono::seconds socks_timeout{120};  // SocksTimeout, exported as a limit

 private:
  const ProxyCounters& counters_;
  const CircuitPool& pool_;
  const LinkPool& links_;
  const ConfluxPool* conflux_;
  metrics::Histogram build_seconds_;
};

}  // namespace conflux::client
