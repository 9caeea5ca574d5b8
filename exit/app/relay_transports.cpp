#include "relay_transports.hpp"

#include <filesystem>
#include <fstream>

#include "conflux/log/log.hpp"
#include "conflux/pt/pt_env.hpp"
#include "conflux/ptnet/managed_transport.hpp"

namespace conflux::relay {
namespace {

// SMETHOD ARGS: k=v items joined by ',' (a '\' escapes the next byte); the
// bridge line separates them by spaces and keeps their bytes.
std::string args_as_words(const std::string& args) {
  std::string out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == '\\' && i + 1 < args.size()) {
      out.push_back(args[++i]);
    } else {
      out.push_back(args[i] == ',' ? ' ' : args[i]);
    }
  }
  return out;
}

std::string joined_options(const config::TransportArgs& args) {
  std::string out;
  for (const auto& [k, v] : args) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

}  // namespace

std::string bridge_line_for(const std::string& transport, const std::string& addr_port, const std::string& identity,
                            const std::string& smethod_args) {
  std::string line = "Bridge " + transport + " " + addr_port + " " + identity;
  if (!smethod_args.empty()) line += " " + args_as_words(smethod_args);
  return line;
}

RelayTransports::RelayTransports(net::asio::io_context& io, const config::RelayOptions& options, BridgeIdentity bridge)
    : io_(io), options_(options), bridge_(std::move(bridge)) {}

RelayTransports::~RelayTransports() = default;

void RelayTransports::start(const std::string& orport) {
  if (!running_.empty()) return;
  for (const auto& line : options_.server_transport_plugins) {
    pt::PtServerLaunch l;
    l.transports = line.transports;
    l.state_dir = options_.data_directory + "/pt_state";
    l.orport = orport;
    for (const auto& a : options_.server_transport_listen_addrs)
      if (!l.bind.contains(a.transport)) l.bind[a.transport] = a.address.to_string();
    for (const auto& o : options_.server_transport_options)
      if (!l.options.contains(o.transport)) l.options[o.transport] = joined_options(o.args);
    ptnet::ManagedTransportOptions o;
    o.binary = line.path;
    o.args = line.args;
    o.mode = pt::PtMode::Server;
    o.transports = {line.transports.begin(), line.transports.end()};
    o.env = pt::pt_server_env(l);
    auto process = std::make_unique<ptnet::ManagedTransport>(io_, std::move(o), log::sink("pt"));
    const std::size_t index = running_.size();
    process->on_change = [this, index] { on_change(index); };
    running_.push_back(std::move(process));
    lines_.emplace_back();
  }
  for (auto& p : running_) p->start();
}

void RelayTransports::stop() {
  for (auto& p : running_) p->stop();
}

void RelayTransports::on_change(std::size_t index) {
  auto& p = *running_[index];
  if (!p.ready()) return;  // the supervisor says why and relaunches it
  std::vector<std::string> lines;
  for (const auto& transport : options_.server_transport_plugins[index].transports) {
    auto m = p.method(transport);
    if (!m) continue;
    log::write(log::Severity::Notice, "Registered server transport '" + transport + "' at '" + m->host + ":" +
                                          std::to_string(m->port) + "'");
    std::string host = m->host.find(':') != std::string::npos ? "[" + m->host + "]" : m->host;
    if (m->host == "0.0.0.0" || m->host == "::")
      host = bridge_.address ? bridge_.address->to_string() : std::string("<IP ADDRESS>");  // as tor
    const std::string at = host + ":" + std::to_string(m->port);
    lines.push_back(bridge_line_for(transport, at, bridge_.rsa_fingerprint, m->args));
  }
  lines_[index] = std::move(lines);
  write_bridge_lines();
}

void RelayTransports::write_bridge_lines() {
  std::string text;
  for (const auto& per : lines_)
    for (const auto& l : per) {
      log::write(log::Severity::Notice, "Your bridge line: " + l);
      text += l + "\n";
    }
  const std::string path = options_.data_directory + "/bridgelines";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out) {
      log::write(log::Severity::Warn, "Couldn't save bridge lines to disk (" + path + ")");
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) log::write(log::Severity::Warn, "Couldn't save bridge lines to disk (" + path + "): " + ec.message());
  else log::write(log::Severity::Notice, "Saved bridge lines to disk (" + path + ")");
}

}  // namespace conflux::relay
