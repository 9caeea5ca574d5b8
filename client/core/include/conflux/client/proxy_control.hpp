#pragma once
// conflux-proxy's ControlPort (docs/CONTROL.md): the GETINFO keys read from
// the runtime's pools and counters, the events it reports as it builds
// circuits and serves streams (CIRC, STREAM, STATUS_CLIENT; BW and the log
// events come with controlnet::ControlPort), and the SIGNALs it obeys.
// Owned by the runtime; runs on its thread.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/client/circuit_pool.hpp"
#include "conflux/client/conflux_pool.hpp"
#include "conflux/client/path_planner.hpp"
#include "conflux/client/proxy_counters.hpp"
#include "conflux/client/socks_session.hpp"
#include "conflux/config/proxy_options.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/control/control_program.hpp"
#include "conflux/controlnet/control_port.hpp"
#include "conflux/controlnet/network_status_info.hpp"

namespace conflux::client {

class ProxyControl {
 public:
  struct Sources {
    const config::ProxyOptions& options;
    const CircuitPool& pool;
    const ConfluxPool* conflux;  // null without ConfluxEnabled 1
    const ProxyCounters& counters;
    std::function<std::string()> socks_listeners;  // net/listeners/socks's value
    std::function<void()> newnym;                   // new streams get new circuits
    std::function<void()> heartbeat;                // DUMP, HEARTBEAT: the heartbeat line
    std::function<void()> shutdown;                 // SHUTDOWN, HALT: as SIGTERM
    // SETCONF/RESETCONF/LOADCONF: the runtime applies `next` (valid; the
    // options whose lines differ are `changed`) or refuses it whole.
    std::function<control::ConfigOutcome(config::ProxyOptions next, const std::vector<std::string>& changed)>
        reconfigure;
    // CONFLUX_TESTBRIDGES: starts a test of each bridge, whose results come
    // as CONFLUX_BRIDGE event bodies to `report`; "" when started, else why not.
    std::function<std::string(std::function<void(std::string body)> report)> test_bridges;
    std::function<std::vector<GuardReport>()> guards;  // entry-guards, GUARD
    controlnet::NetworkStatusInfo::MicrodescText microdesc;  // md/*: a microdescriptor's text by digest
    // entry-guards/client/NAME (PerClientGuards): nullopt for no such client.
    std::function<std::optional<std::vector<GuardReport>>(std::string_view client)> client_guards;
  };

  ProxyControl(net::asio::io_context& io, Sources sources, std::string version, net::LogSink log);
  ~ProxyControl();
  ProxyControl(const ProxyControl&) = delete;
  ProxyControl& operator=(const ProxyControl&) = delete;

  // Cookie, listeners; false (after logging why) when one fails.
  bool start();
  void stop();

  // status/bootstrap-phase and STATUS_CLIENT (BOOTSTRAP, CIRCUIT_ESTABLISHED).
  void bootstrap(int percent, std::string_view tag, std::string_view summary);
  // A CIRC event (CircuitPool::Hooks::event).
  void circuit(const Circuit& c, std::string_view status, std::string_view why);
  // A STREAM event (SocksContext::on_stream).
  void stream(const StreamReport& r);
  // Once a second (the runtime's tick): CIRC_BW per circuit and STREAM_BW
  // per stream that moved bytes, GUARD as guards change, CONFLUX_LEG and CIRC_MINOR PURPOSE_CHANGED as legs link and close.
  void tick();
  // A new consensus: ns/* answers from it, NEWCONSENSUS tells controllers.
  void consensus(const dir::ConsensusBody& body);
  // An ORCONN event (LinkPool::Hooks::report); orconn-status keeps the
  // links launched and open.
  void orconn(const LinkPool::LinkReport& r);
  // The Conflux pool SETCONF ConfluxEnabled 1 made.
  void set_conflux(const ConfluxPool* conflux) { src_.conflux = conflux; }

 private:
  struct StreamRow {
    std::string status;
    std::uint64_t circuit = 0;
    std::string target;
    std::weak_ptr<const ClientStream> stream;  // once SUCCEEDED
    std::uint64_t sent = 0, received = 0;      // its counts at the last STREAM_BW
  };
  void add_info();
  [[nodiscard]] control::ConfigView config_view();
  // Validates `lines` as --verify-config would, then hands them to the
  // runtime; CONF_CHANGED when they changed something.
  [[nodiscard]] control::ConfigOutcome try_lines(const config::Entries& lines, bool loadconf);
  [[nodiscard]] control::ConfigOutcome save(bool force) const;
  void add_signals();
  [[nodiscard]] std::string circuit_status() const;
  [[nodiscard]] std::string stream_status() const;
  [[nodiscard]] std::string conflux_sets() const;
  [[nodiscard]] std::string circuit_line(const Circuit& c, std::string_view status, std::size_t hops) const;
  void signal_event(std::string_view name);
  void circ_bw(const std::map<std::uint64_t, const Circuit*>& circuits);
  void stream_bw(const std::string& time);
  void stream_bw_one(std::uint64_t id, StreamRow& row, const std::string& time);
  // Now as tor's events write times: 2026-11-26T14:30:00.123456 (UTC).
  [[nodiscard]] static std::string iso_time_usec();
  void guard_events();
  [[nodiscard]] std::string orconn_target(const LinkPool::LinkReport& r) const;
  [[nodiscard]] std::string orconn_status() const;
  void leg_events(const std::map<std::uint64_t, const Circuit*>& circuits);
  [[nodiscard]] std::map<std::uint64_t, const Circuit*> circuits_by_serial() const;

  net::asio::io_context& io_;
  Sources src_;
  std::string version_;
  net::LogSink log_;
  controlnet::NetworkStatusInfo ns_;  // before program_, whose GETINFO table calls it
  control::ControlProgram program_;
  std::unique_ptr<controlnet::ControlPort> port_;
  std::map<std::uint64_t, std::size_t> hops_built_;  // circuits not closed: hops built so far
  std::map<std::uint64_t, std::string> created_;     // circuits not closed: TIME_CREATED
  std::map<std::uint64_t, StreamRow> streams_;       // streams not closed (one per SOCKS connection)
  std::map<std::uint64_t, LinkPool::LinkReport> orconns_;  // links launched or open, for orconn-status
  struct LegRow {
    std::uint64_t set = 0;
    double rtt_ms = 0;
    CircuitBytes bytes{};
  };
  std::map<std::uint64_t, CircuitBytes> circ_bw_last_;  // live circuits: bytes at the last CIRC_BW
  std::map<std::uint64_t, LegRow> legs_linked_;          // linked legs by circuit serial
  std::map<std::string, bool> guards_seen_;               // sampled guards by name: reachable at the last tick
  std::string bootstrap_ = control::bootstrap_status(0, "starting", "Starting");
  bool circuit_established_ = false;
  net::asio::steady_timer shutdown_timer_;
};

// "$FINGERPRINT~nickname" (control-spec LongName), the nickname alone for a
// hop whose RSA identity is unknown (a bridge line without one).
[[nodiscard]] std::string control_long_name(const PathHop& hop);


}  // namespace conflux::client
