#include "conflux/client/proxy_transports.hpp"

#include <algorithm>

#include "conflux/client/socks_prelude.hpp"
#include "conflux/pt/pt_env.hpp"
#include "conflux/ptnet/managed_transport.hpp"

namespace conflux::client {
namespace {

bool lists(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

socks::Address socks_address(const config::IpAddress& ip) {
  if (ip.is_v4()) return socks::Address{socks::Ipv4{ip.bytes[0], ip.bytes[1], ip.bytes[2], ip.bytes[3]}};
  socks::Ipv6 v6{};
  std::copy_n(ip.bytes.begin(), 16, v6.begin());
  return socks::Address{v6};
}

}  // namespace

ProxyTransports::ProxyTransports(net::asio::io_context& io, const config::ProxyOptions& options, net::LogSink log)
    : io_(io), options_(options), log_(std::move(log)) {}

ProxyTransports::~ProxyTransports() = default;

void ProxyTransports::start() {
  if (!options_.use_bridges || !running_.empty()) return;
  for (const auto& line : options_.client_transport_plugins) {
    const bool needed = std::any_of(options_.bridges.begin(), options_.bridges.end(), [&](const config::BridgeLine& b) {
      return !b.transport.empty() && lists(line.transports, b.transport);
    });
    if (!needed) {
      net::emit(log_, net::LogLevel::Info, "Pluggable transport proxy (" + line.path +
                                               ") does not provide any needed transports and will not be launched.");
      continue;
    }
    ptnet::ManagedTransportOptions o;
    o.binary = line.path;
    o.args = line.args;
    o.mode = pt::PtMode::Client;
    o.transports = {line.transports.begin(), line.transports.end()};
    o.env = pt::pt_client_env(pt::PtClientLaunch{line.transports, options_.data_directory + "/pt_state", std::nullopt});
    Running r{line.transports, std::make_unique<ptnet::ManagedTransport>(io_, std::move(o), log_)};
    r.process->on_change = [this] {
      if (on_change) on_change();
    };
    running_.push_back(std::move(r));
  }
  for (auto& r : running_) r.process->start();
}

void ProxyTransports::stop() {
  for (auto& r : running_) r.process->stop();
}

void ProxyTransports::restart() {
  stop();
  running_.clear();
  start();
}

bool ProxyTransports::ready() const {
  return std::all_of(running_.begin(), running_.end(), [](const Running& r) { return r.process->ready(); });
}

const ptnet::ManagedTransport* ProxyTransports::process_for(const std::string& transport) const {
  for (const auto& r : running_)
    if (lists(r.transports, transport)) return r.process.get();  // tor: the first line that names it
  return nullptr;
}

std::optional<LinkRoute> ProxyTransports::route(const LinkPool::Peer& peer) const {
  if (!options_.use_bridges) return std::nullopt;  // Bridge lines are ignored then
  auto b = std::find_if(options_.bridges.begin(), options_.bridges.end(), [&](const config::BridgeLine& l) {
    return peer.rsa == l.rsa_fingerprint;
  });
  if (b == options_.bridges.end() || b->transport.empty()) return std::nullopt;
  LinkRoute route;
  const auto* process = process_for(b->transport);
  auto method = process != nullptr ? process->method(b->transport) : std::nullopt;
  if (!method || method->protocol != "socks5") {
    route.unavailable = "the " + b->transport + " transport is not ready" +
                        (method ? " (it offers " + method->protocol + ", not socks5)" : std::string());
    return route;
  }
  boost::system::error_code ec;
  auto host = net::asio::ip::make_address(method->host, ec);
  if (ec) {
    route.unavailable = "the " + b->transport + " transport's address is unusable";
    return route;
  }
  socks::ClientRequest request{socks_address(b->address.addr), b->address.port, std::nullopt, std::nullopt};
  if (!b->args.empty()) {
    auto creds = pt::pt_socks_credentials(b->args);
    if (!creds) {
      route.unavailable = "the bridge's transport arguments do not fit in SOCKS5 credentials";
      return route;
    }
    request.username = creds->username;
    request.password = creds->password;
  }
  route.connect_to = {net::tcp::endpoint(host, method->port)};
  route.prelude = socks5_prelude(std::move(request));
  return route;
}

}  // namespace conflux::client
