#pragma once
// The torrc of every relay and proxy in a conflux-net network. Everything
// listens on 127.0.0.1 only, or in an emulated network on its own address. Options and their meaning: docs/CONFIG.md
// (relays) and the proxy's documentation; the choices are explained in
// torrc.cpp.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "conflux/netspec/plan.hpp"

namespace conflux::netspec {

struct AuthorityRef {
  std::string name;
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  std::string v3ident;          // its tor authority identity, 40 hex digits (empty: none)
  std::string rsa_fingerprint;  // the relay's RSA identity, 40 hex digits (empty: none)
  std::string address = "127.0.0.1";  // ProcessPlan::address
};

struct BridgeRef {
  std::uint16_t or_port = 0;
  // A transport bridge: its own line ("Bridge obfs4 127.0.0.1:PT_PORT RSAFP
  // cert=... iat-mode=0", from its DataDirectory/bridgelines), used as is.
  std::string transport_line{};
  std::string rsa_fingerprint{};  // as in AuthorityRef
  std::string address = "127.0.0.1";  // as in AuthorityRef
};

struct TorrcInputs {
  std::filesystem::path net_dir;
  std::vector<AuthorityRef> authorities;
  std::vector<BridgeRef> bridges;
  std::uint16_t file_port = 0;  // the file server's port, which every exit accepts
  unsigned consensus_interval = 10;
  std::vector<std::string> exit_policy;  // extra lines, before "reject *:*"
  std::vector<std::string> relay_options;  // extra lines for every relay role
  std::string obfs4proxy;                  // ServerTransportPlugin / ClientTransportPlugin obfs4 exec ...
  bool stock_relays = false;               // some relay runs on stock tor (ProcessPlan::stock_tor)
  std::vector<std::string> guard_relays;   // NetSpec::guard_relays: the authorities' Guard votes
  std::string log_detail;                  // NetSpec::log_detail
  // NetSpec::measured_bandwidths: each authority reads DIR/NAME/v3bw
  // (bandwidth_file.hpp) with V3BandwidthsFile.
  bool bandwidth_file = false;
};

// The ConsensusParams line our authorities get when stock tor relays join:
// the relay options' own ConsensusParams with FastFlagMaxThreshold=0 added
// (or that alone), and the relay options without it. A new stock relay
// reports no observed bandwidth ("bandwidth R B 0"), so without this it is
// not Fast, and a client wants every hop of an exit circuit Fast.
struct AuthorityParams {
  std::string consensus_params_line;
  std::vector<std::string> other_options;
};
[[nodiscard]] AuthorityParams authority_params_for_stock_relays(const std::vector<std::string>& relay_options);

// The lines every relay role but bridges, and every proxy, is given (tor's
// form, also what a stock tor pointed at the network's authorities reads):
// "DirAuthority NAME orport=N v3ident=HEX 127.0.0.1:DIRPORT RSAFP" (one per
// authority that has both tor identities; no trailing newline).
[[nodiscard]] std::vector<std::string> tor_dir_authority_lines(const std::vector<AuthorityRef>& authorities);

// The "Bridge TRANSPORT ADDR ID ..." line of a bridge's DataDirectory/
// bridgelines text (what conflux-relay writes once its transport is up, one
// line per transport) that names the bridge by `id`, its RSA fingerprint;
// nullopt until the line is there.
[[nodiscard]] std::optional<std::string> transport_bridge_line(std::string_view bridgelines, std::string_view transport,
                                                               std::string_view id);

// The torrc for `p` (a relay role or a proxy); empty for the file server. A
// stock tor relay (p.stock_tor) gets a torrc for Debian's tor, as tornet
// writes its relays': tor's DirAuthority lines, AssumeReachable (it
// publishes at once), a ControlPort with cookie authentication, every
// connection bound to 127.0.0.1; not the spec's relay_options (those are
// conflux-relay's).
[[nodiscard]] std::string render_torrc(const ProcessPlan& p, const TorrcInputs& in);

}  // namespace conflux::netspec
