#include "conflux/client/proxy_runtime.hpp"

#include <filesystem>

#include "proxy_runtime_impl.hpp"

namespace conflux::client {

ProxyRuntime::ProxyRuntime(net::asio::io_context& io, const net::Clock& clock, config::ProxyOptions options,
                           net::LogSink log)
    : impl_(std::make_unique<Impl>(io, clock, std::move(options), std::move(log))) {}

ProxyRuntime::~ProxyRuntime() { stop(); }

bool ProxyRuntime::start() {
  auto& m = *impl_;
  std::error_code ec;
  std::filesystem::create_directories(m.options.data_directory, ec);
  if (ec) {
    net::emit(m.log, net::LogLevel::Err, "Cannot create DataDirectory " + m.options.data_directory + ": " + ec.message());
    return false;
  }
  std::filesystem::permissions(m.options.data_directory, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace, ec);
  StreamPool* streams = m.conflux ? static_cast<StreamPool*>(m.conflux.get()) : &m.pool;
  m.socks.emplace(SocksContext{streams, m.clock, m.counters, m.log, SocksLimits{}, {}, 1, &m.options.disable_network});
  m.socks->on_stream = [&m](const StreamReport& r) {
    if (m.control) m.control->stream(r);
  };
  if (m.options.per_client_guards)
    m.socks->admit_guard_client = [&m](std::string_view client) { return m.planner.admit_guard_client(client); };
  m.socks->limits.socks_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(m.options.socks_timeout);
  m.metrics.socks_timeout = m.options.socks_timeout;
  m.set_bootstrap(0, "starting", "Starting");
  if (m.conflux)
    net::emit(m.log, net::LogLevel::Notice,
              "ConfluxEnabled 1: streams use Conflux sets of " + std::to_string(m.options.conflux_num_legs) +
                  " legs (ConfluxClientUX " + std::string(config::to_string(m.options.conflux_client_ux)) + ").");
  if (!m.open_listeners() || !m.start_control()) return false;
  if (m.options.disable_network)
    net::emit(m.log, net::LogLevel::Notice, std::string(ProxyRuntime::Impl::kNetworkDisabled));
  else
    m.start_directory();
  m.tick();
  return true;
}

void ProxyRuntime::stop() {
  auto& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  m.tick_timer.cancel();
  for (auto& a : m.acceptors) {
    boost::system::error_code ignored;
    a.acceptor.close(ignored);
  }
  for (auto& server : m.metrics_servers) server->stop();
  if (m.control) m.control->stop();
  if (m.directory) m.directory->stop();
  if (m.bridges) m.bridges->stop();
  m.transports.stop();
  if (m.conflux) m.conflux->shutdown();
  m.pool.shutdown();
  m.links.close_all();
}

int ProxyRuntime::bootstrap_percent() const { return impl_->bootstrap; }

void ProxyRuntime::log_heartbeat() const { impl_->heartbeat(); }

}  // namespace conflux::client
