#include "conflux/client/proxy_control.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdio>

#include "conflux/bytes/hex.hpp"
#include "conflux/client/conflux_tunnel.hpp"
#include "conflux/config/config_edit.hpp"
#include "conflux/config/control_config_view.hpp"
#include "conflux/control/control_reply.hpp"

namespace conflux::client {
namespace {

// Streams remembered for stream-status; past this, new ones are reported in
// events but not listed (each is a SOCKS connection: far fewer in practice).
constexpr std::size_t kMaxStreams = 4096;

std::string user_name() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return std::to_string(::geteuid());
}

std::string millis(std::chrono::microseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(d.count()) / 1000.0);
  return buf;
}

controlnet::ControlPortConfig port_config(const config::ProxyOptions& o, std::string version) {
  controlnet::ControlPortConfig c;
  for (const auto& p : o.control.ports) {
    const auto& a = *p.address;
    boost::system::error_code ec;
    auto addr = net::asio::ip::make_address(a.to_string(), ec);
    if (!ec) c.listen.emplace_back(addr, p.is_auto ? 0 : p.port);
  }
  for (const auto& s : o.control.sockets)
    c.sockets.push_back({s.path, s.group_writable, s.world_writable, s.relax_dir_mode_check});
  c.write_to_file = o.control.port_write_to_file;
  c.cookie_authentication = o.control.cookie_authentication;
  c.cookie_file = o.control.cookie_auth_file.empty() ? o.data_directory + "/control_auth_cookie"
                                                     : o.control.cookie_auth_file;
  c.hashed_passwords = o.control.hashed_passwords;
  c.version = std::move(version);
  return c;
}

std::string_view circ_reason(std::string_view status, std::string_view why) {
  if (why.find("timed out") != std::string_view::npos) return "TIMEOUT";
  return status == "FAILED" ? "DESTROYED" : "FINISHED";
}

}  // namespace

std::string control_long_name(const PathHop& hop) {
  for (const auto& spec : hop.target.link_specs)
    if (const auto* legacy = std::get_if<cell::LinkSpecLegacyId>(&spec))
      return "$" + bytes::to_hex(legacy->id, true) + "~" + hop.nickname;
  return hop.nickname;
}

ProxyControl::ProxyControl(net::asio::io_context& io, Sources sources, std::string version, net::LogSink log)
    : io_(io), src_(std::move(sources)), version_(std::move(version)), log_(std::move(log)),
      program_({"CIRC", "CIRC_MINOR", "CIRC_BW", "CONFLUX_LEG", "CONFLUX_BRIDGE", "STREAM", "STREAM_BW", "ORCONN", "BW",
                "NEWCONSENSUS", "GUARD", "NOTICE", "WARN", "ERR", "SIGNAL", "STATUS_CLIENT", "STATUS_GENERAL",
                "STATUS_SERVER", "CONF_CHANGED"},
               config_view()),
      shutdown_timer_(io) {
  add_info();
  add_signals();
  program_.add_command("CONFLUX_TESTBRIDGES", [this](std::string_view) -> control::ControlAnswer {
    const std::string why = src_.test_bridges ? src_.test_bridges([this](const std::string& body) {
      if (port_) port_->publish("CONFLUX_BRIDGE", body);
    })
                                              : std::string("No bridges to test");
    if (!why.empty()) return {control::control_line(551, why), false};
    return {control::control_line(250, "OK"), false};
  });
}

ProxyControl::~ProxyControl() { stop(); }

bool ProxyControl::start() {
  auto config = port_config(src_.options, version_);
  config.owner_closed = [this] {
    if (src_.shutdown) src_.shutdown();
  };
  port_ = std::make_unique<controlnet::ControlPort>(
      io_, std::move(config), program_,
      [this] { return std::make_pair(src_.counters.bytes_from_network, src_.counters.bytes_to_network); }, log_);
  return port_->start();
}

void ProxyControl::stop() {
  shutdown_timer_.cancel();
  if (port_) port_->stop();
}

void ProxyControl::add_info() {
  using V = std::optional<std::string>;
  auto& info = program_.info();
  info.add("version", "The current version of Tor.", [this](std::string_view) { return V(version_); });
  info.add("config-file", "Current location of the \"torrc\" file.", [this](std::string_view) {
    return src_.options.control.config_file.empty() ? V() : V(src_.options.control.config_file);
  });
  info.add("config-text", "Return the string that would be written by a saveconf command.",
           [this](std::string_view) {
             return V(config::running_config_text(src_.options.config_lines, src_.options.control.defaults_file));
           });
  info.add("status/bootstrap-phase", "The last bootstrap phase status event that Tor sent.",
           [this](std::string_view) { return V(bootstrap_); });
  info.add("status/circuit-established", "Whether we think client functionality is working.",
           [this](std::string_view) { return V(circuit_established_ ? "1" : "0"); });
  info.add("circuit-status", "List of current circuits originating here.",
           [this](std::string_view) { return V(circuit_status()); });
  info.add("stream-status", "List of current streams.", [this](std::string_view) { return V(stream_status()); });
  info.add("orconn-status", "A list of current OR connections.",
           [this](std::string_view) { return V(orconn_status()); });
  info.add("traffic/read", "Bytes read since the process was started.",
           [this](std::string_view) { return V(std::to_string(src_.counters.bytes_from_network)); });
  info.add("traffic/written", "Bytes written since the process was started.",
           [this](std::string_view) { return V(std::to_string(src_.counters.bytes_to_network)); });
  info.add("net/listeners/socks", "Bound addresses by type.",
           [this](std::string_view) { return V(src_.socks_listeners ? src_.socks_listeners() : std::string()); });
  info.add("net/listeners/control", "Bound addresses by type.",
           [this](std::string_view) { return V(port_ ? port_->listeners_text() : std::string()); });
  info.add("process/pid", "Process id belonging to the main tor process.",
           [](std::string_view) { return V(std::to_string(::getpid())); });
  info.add("process/user", "Username under which the tor process is running.",
           [](std::string_view) { return V(user_name()); });
  ns_.install(info);
  ns_.install_microdescs(info, src_.microdesc);
  info.add("entry-guards", "Which nodes are we using as entry guards?", [this](std::string_view) {
    std::string out;
    if (src_.guards)
      for (const auto& g : src_.guards()) out += g.name + " " + g.status + "\n";
    return V(out);
  });
  // Ours (PerClientGuards): one client's guards, in entry-guards' form.
  info.add_prefix(
      "entry-guards/client/", "entry-guards/client/<SOCKS username up to its first '/'>",
      [this](std::string_view client) -> V {
        if (!src_.client_guards) return V();
        auto list = src_.client_guards(client);
        if (!list) return V();
        std::string out;
        for (const auto& g : *list) out += g.name + " " + g.status + "\n";
        return V(out);
      },
      control::ControlInfo::Missing::Unrecognized);
  info.add("conflux/sets", "Conflux sets and their legs: RTT, window, share of the cells sent, bytes (CONTROL.md).",
           [this](std::string_view) { return V(conflux_sets()); });
}

void ProxyControl::consensus(const dir::ConsensusBody& body) { ns_.update(body, port_.get()); }

void ProxyControl::signal_event(std::string_view name) {
  if (port_) port_->publish("SIGNAL", "SIGNAL " + std::string(name));
}

void ProxyControl::add_signals() {
  auto stop_later = [this] {
    // The 250 is queued; give it a moment to leave before the listeners close.
    shutdown_timer_.expires_after(std::chrono::milliseconds(200));
    shutdown_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec && src_.shutdown) src_.shutdown();
    });
  };
  for (const char* name : {"SHUTDOWN", "HALT", "INT", "TERM"}) program_.add_signal(name, stop_later);
  for (const char* name : {"DUMP", "USR1", "HEARTBEAT"}) {
    program_.add_signal(name, [this, name] {
      if (src_.heartbeat) src_.heartbeat();
      signal_event(std::string_view(name) == "USR1" ? "DUMP" : name);
    });
  }
  for (const char* name : {"RELOAD", "HUP"}) {
    program_.add_signal(name, [this] {
      net::emit(log_, net::LogLevel::Warn,
                "Received reload signal (control port); conflux-proxy cannot reload its configuration yet: "
                "restart it to apply changes.");
      signal_event("RELOAD");
    });
  }
  program_.add_signal("NEWNYM", [this] {
    if (src_.newnym) src_.newnym();
    net::emit(log_, net::LogLevel::Notice, "NEWNYM: new streams will use new circuits.");
    signal_event("NEWNYM");
  });
  // No DNS cache on this side: answers come from the exits every time.
  program_.add_signal("CLEARDNSCACHE", [this] { signal_event("CLEARDNSCACHE"); });
}

void ProxyControl::bootstrap(int percent, std::string_view tag, std::string_view summary) {
  bootstrap_ = control::bootstrap_status(percent, tag, summary);
  if (port_) port_->publish("STATUS_CLIENT", "STATUS_CLIENT " + bootstrap_);
  if (percent >= 100 && !circuit_established_) {
    circuit_established_ = true;
    if (port_) port_->publish("STATUS_CLIENT", "STATUS_CLIENT NOTICE CIRCUIT_ESTABLISHED");
  }
}

std::string ProxyControl::circuit_line(const Circuit& c, std::string_view status, std::size_t hops) const {
  std::string line = std::to_string(c.info().serial) + " " + std::string(status);
  std::string path;
  for (std::size_t i = 0; i < hops && i < c.info().path.size(); ++i)
    path += (path.empty() ? "" : ",") + control_long_name(c.info().path[i]);
  if (!path.empty()) line += " " + path;
  line += c.info().path.size() == 1 ? " BUILD_FLAGS=ONEHOP_TUNNEL,IS_INTERNAL" : " BUILD_FLAGS=NEED_CAPACITY";
  if (c.is_leg()) {
    line += legs_linked_.count(c.info().serial) != 0 ? " PURPOSE=CONFLUX_LINKED" : " PURPOSE=CONFLUX_UNLINKED";
  } else {
    line += " PURPOSE=GENERAL";
  }
  // nyx reads every circuit's age from it (it fails without one).
  const auto created = created_.find(c.info().serial);
  line += " TIME_CREATED=" + (created != created_.end() ? created->second : iso_time_usec());
  return line;
}

void ProxyControl::circuit(const Circuit& c, std::string_view status, std::string_view why) {
  const auto serial = c.info().serial;
  std::size_t hops = 0;
  if (status == "LAUNCHED") {
    hops_built_[serial] = 0;
    created_[serial] = iso_time_usec();
  }
  if (status == "EXTENDED") hops = ++hops_built_[serial];
  if (status == "BUILT") hops = hops_built_[serial] = c.info().path.size();
  if (status == "FAILED" || status == "CLOSED") {
    auto it = hops_built_.find(serial);
    hops = it != hops_built_.end() ? it->second : 0;
    hops_built_.erase(serial);
  }
  if (!port_) return;
  std::string body = "CIRC " + circuit_line(c, status, hops);
  if (status == "FAILED" || status == "CLOSED") {
    body += " REASON=" + std::string(circ_reason(status, why));
    created_.erase(serial);
  }
  port_->publish("CIRC", body);
}

std::string ProxyControl::circuit_status() const {
  std::string out;
  for (const Circuit* c : src_.pool.all_circuits()) {
    const bool open = c->phase() == Circuit::Phase::Open;
    auto it = hops_built_.find(c->info().serial);
    const std::size_t hops = open ? c->info().path.size() : (it != hops_built_.end() ? it->second : 0);
    const std::string_view status = open ? "BUILT" : (hops > 0 ? "EXTENDED" : "LAUNCHED");
    out += (out.empty() ? "" : "\n") + circuit_line(*c, status, hops);
  }
  return out;
}

void ProxyControl::stream(const StreamReport& r) {
  if (r.status == "CLOSED" || r.status == "FAILED") {
    // Its last bytes first, so that a controller's STREAM_BW sum is the stream's.
    if (auto it = streams_.find(r.id); it != streams_.end()) stream_bw_one(r.id, it->second, iso_time_usec());
    streams_.erase(r.id);
  } else if (streams_.count(r.id) != 0 || streams_.size() < kMaxStreams) {
    StreamRow& row = streams_[r.id];
    row.status = std::string(r.status);
    row.circuit = r.circuit;
    row.target = r.target;
    if (!r.stream.expired()) row.stream = r.stream;
  }
  if (!port_) return;
  std::string body = "STREAM " + std::to_string(r.id) + " " + std::string(r.status) + " " +
                     std::to_string(r.circuit) + " " + r.target;
  if (!r.reason.empty()) body += " REASON=" + std::string(r.reason);
  port_->publish("STREAM", body);
}

std::string ProxyControl::stream_status() const {
  std::string out;
  for (const auto& [id, s] : streams_)
    out += (out.empty() ? "" : "\n") + std::to_string(id) + " " + s.status + " " + std::to_string(s.circuit) + " " +
           s.target;
  return out;
}

namespace {

// One line per live leg: "SET=N STATE=OPEN|LINKING CIRC=serial SRTT_MS=x
// MIN_RTT_MS=x CWND=n INFLIGHT=n SHARE=f READ=n WRITTEN=n" (the leg
// circuit's bytes, CircuitBytes); a set without live legs yet is
// "SET=N STATE=LINKING LEGS=0".
std::string conflux_sets_text(const ConfluxPool& pool, const std::map<std::uint64_t, const Circuit*>& circuits) {
  std::string out;
  auto add = [&out](const std::string& line) { out += (out.empty() ? "" : "\n") + line; };
  for (const ConfluxTunnel* t : pool.sets()) {
    const std::string head = "SET=" + std::to_string(t->serial()) +
                             (t->state() == ConfluxTunnel::State::Open ? " STATE=OPEN" : " STATE=LINKING");
    const proto::ConfluxSet* set = t->set();
    const auto legs = set != nullptr ? set->legs() : std::vector<proto::ConfluxLegInfo>{};
    if (legs.empty()) {
      add(head + " LEGS=0");
      continue;
    }
    std::uint64_t total = 0;
    for (const auto& l : legs) total += l.cells_sent;
    for (const auto& l : legs) {
      char share[32];
      std::snprintf(share, sizeof share, "%.3f",
                    total == 0 ? 0.0 : static_cast<double>(l.cells_sent) / static_cast<double>(total));
      const std::uint64_t serial = t->leg_serial(l.id);
      auto it = circuits.find(serial);
      const CircuitBytes b = it != circuits.end() ? it->second->bytes() : CircuitBytes{};
      add(head + " CIRC=" + std::to_string(serial) + " SRTT_MS=" + millis(l.srtt) + " MIN_RTT_MS=" + millis(l.min_rtt) +
          " CWND=" + std::to_string(l.cwnd) + " INFLIGHT=" + std::to_string(l.inflight) + " SHARE=" + share +
          " READ=" + std::to_string(b.read) + " WRITTEN=" + std::to_string(b.written));
    }
  }
  return out;
}

}  // namespace

std::string ProxyControl::conflux_sets() const {
  return src_.conflux ? conflux_sets_text(*src_.conflux, circuits_by_serial()) : std::string();
}

}  // namespace conflux::client
