#pragma once
// conflux-relay's ControlPort (docs/CONTROL.md): GETINFO about the relay
// (fingerprint, traffic, bootstrap), GETCONF of its options, the SIGNALs
// SIGHUP/SIGUSR1/SIGTERM stand for, and BW and log events
// (controlnet::ControlPort). A relay builds no circuits of its own:
// circuit-status is empty and there are no CIRC or STREAM events, as in tor.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "conflux/config/relay_options.hpp"
#include "conflux/control/control_program.hpp"
#include "conflux/control/reachability_status.hpp"
#include "conflux/controlnet/control_port.hpp"
#include "conflux/controlnet/network_status_info.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/net/channel_manager.hpp"

namespace conflux::relay {

class RelayControl {
 public:
  struct Sources {
    const config::RelayOptions& options;  // the running ones (SIGHUP may change them)
    std::string fingerprint;              // 40 hex digits
    std::function<std::pair<std::uint64_t, std::uint64_t>()> traffic;  // bytes read, written
    std::function<void()> reload;         // RELOAD, HUP
    std::function<void()> heartbeat;      // DUMP, HEARTBEAT
    std::function<void()> clear_dns_cache;  // CLEARDNSCACHE
    std::vector<net::tcp::endpoint> or_listeners;   // as bound
    std::vector<net::tcp::endpoint> dir_listeners;  // the DirPort, when there is one
    // SETCONF/RESETCONF/LOADCONF: the relay applies `next` (valid; the
    // options whose lines differ are `changed`) or refuses it whole.
    std::function<control::ConfigOutcome(config::RelayOptions next, const std::vector<std::string>& changed)>
        reconfigure;
    // GETINFO address, address/v4 (false), address/v6 (true): the advertised one, if any.
    std::function<std::optional<std::string>(bool ipv6)> address;
    // orconn-status: every channel now, inbound and outbound.
    std::function<std::vector<net::ChannelReport>()> channels;
    // status/reachability-succeeded*: the ORPort self-test; null while the
    // relay has no address to advertise (then it is never found, as in tor).
    std::function<const control::ReachabilityStatus*()> reachability;
  };

  RelayControl(net::asio::io_context& io, Sources sources);
  ~RelayControl();
  RelayControl(const RelayControl&) = delete;
  RelayControl& operator=(const RelayControl&) = delete;

  bool start();
  void stop();
  // The relay is up: status/bootstrap-phase says done (STATUS_CLIENT too).
  void up();
  // A STATUS_SERVER event: `650 STATUS_SERVER SEVERITY TEXT` (control-spec
  // 4.1.10), e.g. ("NOTICE", "GOOD_SERVER_DESCRIPTOR").
  void server_status(std::string_view severity, const std::string& text);
  // A consensus the relay accepted: ns/* answers from it, NEWCONSENSUS.
  void consensus(const dir::ConsensusBody& body) { ns_.update(body, port_.get()); }
  // An ORCONN event (net::ChannelObserver; relay_control_channels.cpp).
  void orconn(const net::ChannelReport& r);

 private:
  void add_info();
  void add_channel_info();  // orconn-status, status/reachability-succeeded*
  [[nodiscard]] std::string orconn_target(const net::ChannelReport& r) const;
  [[nodiscard]] control::ConfigView config_view();
  [[nodiscard]] control::ConfigOutcome try_lines(const config::Entries& lines, bool loadconf);
  void add_signals();
  void signal_event(std::string_view name);

  net::asio::io_context& io_;
  Sources src_;
  controlnet::NetworkStatusInfo ns_;  // before program_, whose GETINFO table calls it
  control::ControlProgram program_;
  std::unique_ptr<controlnet::ControlPort> port_;
  std::string bootstrap_ = control::bootstrap_status(0, "starting", "Starting");
  net::asio::steady_timer shutdown_timer_;
};

}  // namespace conflux::relay
