#include "conflux/netspec/torrc.hpp"

#include <algorithm>
#include <cctype>

#include "conflux/netspec/bandwidth_file.hpp"

namespace conflux::netspec {

namespace {

std::string at(const std::string& address, std::uint16_t port) { return address + ":" + std::to_string(port); }

std::string common_lines(const ProcessPlan& p, const TorrcInputs& in) {
  const auto paths = paths_for(in.net_dir, p.name);
  return "# Written by conflux-net for the " + std::string(to_string(p.role)) + " '" + p.name + "'.\n" +
         "DataDirectory " + paths.data_dir.string() + "\nLog notice file " + paths.log.string() +
         (in.log_detail.empty() ? std::string()
                                : "\nLog " + in.log_detail + " file " + (paths.dir / (in.log_detail + ".log")).string()) +
         // Authorities flag fresh relays Guard, Stable and Fast at once, and
         // proxies relax the rules a one-machine network cannot meet.
         "\nTestingTorNetwork 1\n";
}

std::string relay_lines_without_options(const ProcessPlan& p, const TorrcInputs& in) {
  std::string t = common_lines(p, in) + "Nickname " + p.name + "\nORPort " + at(p.address, p.ports.or_port) + "\n";
  if (!p.bandwidth_rate.empty()) {
    // Burst = rate, so the rate holds from the first second (the default
    // 1 GB burst would let a slow bridge run fast for a long while).
    t += "BandwidthRate " + p.bandwidth_rate + "\nBandwidthBurst " + p.bandwidth_rate + "\n";
  }
  return t;
}

std::string relay_lines(const ProcessPlan& p, const TorrcInputs& in) {
  std::string t = relay_lines_without_options(p, in);
  for (const auto& line : in.relay_options) t += line + "\n";
  return t;
}

// The spec's guard candidates, by nickname (every relay's is its name), and
// no others: what the authorities of a test network vote whatever the
// relays advertise.
std::string guard_vote_lines(const TorrcInputs& in) {
  if (in.guard_relays.empty()) return {};
  std::string names;
  for (const auto& n : in.guard_relays) names += (names.empty() ? "" : ",") + n;
  return "TestingDirAuthVoteGuard " + names + "\nTestingDirAuthVoteGuardIsStrict 1\n";
}

// The measurements `up` wrote into the authority's own directory.
std::string bandwidth_file_line(const ProcessPlan& p, const TorrcInputs& in) {
  if (!in.bandwidth_file) return {};
  return "V3BandwidthsFile " + (paths_for(in.net_dir, p.name).dir / kBandwidthFileName).string() + "\n";
}

std::string authority_lines(const ProcessPlan& p, const TorrcInputs& in) {
  if (!in.stock_relays) return relay_lines(p, in) + guard_vote_lines(in) + bandwidth_file_line(p, in);
  const auto params = authority_params_for_stock_relays(in.relay_options);
  std::string t = relay_lines_without_options(p, in);
  for (const auto& line : params.other_options) t += line + "\n";
  return t + params.consensus_params_line + "\n" + guard_vote_lines(in) + bandwidth_file_line(p, in);
}

std::string exit_policy_lines(const TorrcInputs& in) {
  std::string t = "ExitPolicy accept *:" + std::to_string(in.file_port) + "\n";
  for (const auto& line : in.exit_policy) t += "ExitPolicy " + line + "\n";
  return t + "ExitPolicy reject *:*\n";
}

}  // namespace

std::optional<std::string> transport_bridge_line(std::string_view bridgelines, std::string_view transport,
                                                 std::string_view id) {
  const std::string prefix = "Bridge " + std::string(transport) + " ";
  std::size_t at = 0;
  while (at < bridgelines.size()) {
    auto end = bridgelines.find('\n', at);
    if (end == std::string_view::npos) break;  // a line still being written
    auto line = bridgelines.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with(prefix)) continue;
    // "Bridge TRANSPORT ADDR ID [K=V...]": the fourth word.
    auto rest = line.substr(prefix.size());
    const auto sp = rest.find(' ');
    if (sp == std::string_view::npos) continue;
    rest = rest.substr(sp + 1);
    if (rest.substr(0, rest.find(' ')) == id) return std::string(line);
  }
  return std::nullopt;
}

AuthorityParams authority_params_for_stock_relays(const std::vector<std::string>& relay_options) {
  static constexpr std::string_view kKey = "ConsensusParams";
  AuthorityParams out;
  std::string params;
  for (const auto& line : relay_options) {
    // tor's option names are case-insensitive; the last line wins, as in a torrc.
    const bool is_params = line.size() > kKey.size() && (line[kKey.size()] == ' ' || line[kKey.size()] == '\t') &&
                           std::equal(kKey.begin(), kKey.end(), line.begin(), [](char a, char b) {
                             return std::tolower(static_cast<unsigned char>(a)) ==
                                    std::tolower(static_cast<unsigned char>(b));
                           });
    if (is_params)
      params = line.substr(kKey.size() + 1);
    else
      out.other_options.push_back(line);
  }
  if (params.find("FastFlagMaxThreshold=") == std::string::npos)
    params += (params.empty() ? "" : " ") + std::string("FastFlagMaxThreshold=0");
  out.consensus_params_line = std::string(kKey) + " " + params;
  return out;
}

std::vector<std::string> tor_dir_authority_lines(const std::vector<AuthorityRef>& authorities) {
  std::vector<std::string> out;
  for (const auto& a : authorities)
    if (!a.v3ident.empty() && !a.rsa_fingerprint.empty())
      out.push_back("DirAuthority " + a.name + " orport=" + std::to_string(a.or_port) + " v3ident=" + a.v3ident + " " +
                    at(a.address, a.dir_port) + " " + a.rsa_fingerprint);
  return out;
}

namespace {

// What a relay, a proxy or an authority is told: tor's lines (the
// authorities named by v3ident and RSA fingerprint).
std::string client_dir_lines(const TorrcInputs& in) {
  std::string t;
  for (const auto& l : tor_dir_authority_lines(in.authorities)) t += l + "\n";
  return t;
}

// Debian's tor as a relay or exit of this network (tools/tornet's relays,
// with this network's names, ports and exit policy).
std::string stock_relay_torrc(const ProcessPlan& p, const TorrcInputs& in) {
  std::string t = relay_lines_without_options(p, in) + client_dir_lines(in) +
                  "SocksPort 0\nAddress " + p.address + "\nContactInfo " + p.name +
                  "@conflux-net.invalid\n"
                  // No self-test of the ORPort: it publishes at once, and our
                  // authorities test it as they test ours.
                  "AssumeReachable 1\n"
                  // Every connection it opens (OR, directory, exit) leaves
                  // from its own address: 127.0.0.1, which the kernel cannot
                  // route elsewhere, or its address in an emulated network.
                  "OutboundBindAddress " + p.address + "\n"
                  // On its own address, so that `up` and experiments reach it
                  // from the machine in an emulated network too.
                  "ControlPort " + at(p.address, p.ports.control_port) + "\nCookieAuthentication 1\n"
                  "RunAsDaemon 0\nSandbox 0\nShutdownWaitLength 0\nAvoidDiskWrites 1\n";
  if (p.role != Role::Exit) return t + "ExitRelay 0\nExitPolicy reject *:*\n";
  // As for ours (below); tor also rejects its own addresses unless told not
  // to, and needs no resolver: clients connect to IP literals.
  return t + "ExitRelay 1\nExitPolicyRejectPrivate 0\nExitPolicyRejectLocalInterfaces 0\n"
             "OutboundBindAddressExit " + p.address + "\nIPv6Exit 0\nServerDNSResolvConfFile /dev/null\n"
             "ServerDNSDetectHijacking 0\nServerDNSTestAddresses\n" + exit_policy_lines(in);
}

// Debian's tor as a client of this network: the proxy's SocksPort (tor
// isolates by SOCKS username by default, as ours does), a ControlPort for
// its circuits, guards and byte counts, and tor's own Conflux.
std::string stock_proxy_torrc(const ProcessPlan& p, const TorrcInputs& in) {
  std::string t = common_lines(p, in) + client_dir_lines(in) + "SocksPort " + at(p.address, p.ports.socks_port) +
                  "\nControlPort " + at(p.address, p.ports.control_port) +
                  "\nCookieAuthentication 1\nClientUseIPv6 0\nRunAsDaemon 0\nSandbox 0\n"
                  // As ours (below): one machine, or one /24, for every relay.
                  "EnforceDistinctSubnets 0\nConfluxEnabled " + std::string(p.conflux ? "1" : "0") + "\n";
  for (const auto& line : p.options) t += line + "\n";
  return t;
}

}  // namespace

std::string render_torrc(const ProcessPlan& p, const TorrcInputs& in) {
  if (p.stock_tor && (p.role == Role::Relay || p.role == Role::Exit)) return stock_relay_torrc(p, in);
  if (p.stock_tor && p.role == Role::Proxy) return stock_proxy_torrc(p, in);
  switch (p.role) {
    case Role::FileServer:
    case Role::Router:
      return {};
    case Role::Authority:
      // The authorities, too, are named as tor names them: they then sign
      // tor's consensus alone (docs/DIRECTORY.md).
      return authority_lines(p, in) + "DirPort " + at(p.address, p.ports.dir_port) +
             "\nAuthoritativeDirectory 1\nConsensusInterval " + std::to_string(in.consensus_interval) +
             " seconds\n" + client_dir_lines(in);
    case Role::Relay:
      return relay_lines(p, in) + client_dir_lines(in);
    case Role::Exit: {
      // Clients choose an exit by its policy summary, which counts only
      // rules for every address ("accept *:PORT"); private addresses such
      // as 127.0.0.1 are rejected first unless ExitPolicyRejectPrivate is 0.
      // So: the file server's port, for any address (on a loopback network
      // that is the file server), what the spec adds, and nothing else.
      return relay_lines(p, in) + client_dir_lines(in) + "ExitRelay 1\nExitPolicyRejectPrivate 0\n" +
             exit_policy_lines(in);
    }
    case Role::Bridge:
      // A bridge publishes to no authority; clients fetch its descriptor
      // from its own DirPort (tunnelled with BEGIN_DIR).
      // An obfs4 bridge: obfs4proxy in front of the ORPort, listening on its
      // own port; it prints the bridge line clients need (with its cert=).
      return relay_lines(p, in) + "BridgeRelay 1\nDirPort " + at(p.address, p.ports.dir_port) + "\n" +
             (p.transport.empty() ? std::string()
                                  : "ServerTransportPlugin " + p.transport + " exec " + in.obfs4proxy +
                                        "\nServerTransportListenAddr " + p.transport + " " +
                                        at(p.address, p.ports.pt_port) + "\n");
    case Role::Proxy: {
      std::string t = common_lines(p, in) + "SocksPort " + at(p.address, p.ports.socks_port) + "\nMetricsPort " +
                      at(p.address, p.ports.metrics_port) + "\n" + client_dir_lines(in) +
                      "UseBridges " + (p.use_bridges ? "1" : "0") + "\n";
      if (p.use_bridges) {
        bool transports = false;
        for (const auto& b : in.bridges) {
          t += (b.transport_line.empty() ? "Bridge " + at(b.address, b.or_port) + " " + b.rsa_fingerprint
                                         : b.transport_line) +
               "\n";
          transports = transports || !b.transport_line.empty();
        }
        if (transports) t += "ClientTransportPlugin obfs4 exec " + in.obfs4proxy + "\n";
      }
      // Every relay shares 127.0.0.1: the one-relay-per-/16 rule would leave
      // no path at all.
      t += "EnforceDistinctSubnets 0\nConfluxEnabled " + std::string(p.conflux ? "1" : "0") + "\n";
      for (const auto& line : p.options) t += line + "\n";
      return t;
    }
  }
  return {};
}

}  // namespace conflux::netspec
