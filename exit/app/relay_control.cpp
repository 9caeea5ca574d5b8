#include "relay_control.hpp"

#include <pwd.h>
#include <unistd.h>

#include <csignal>

#include "conflux/config/config_edit.hpp"
#include "conflux/config/control_config_view.hpp"
#include "conflux/log/log.hpp"

namespace conflux::relay {
namespace {

std::string user_name() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return std::to_string(::geteuid());
}

controlnet::ControlPortConfig port_config(const config::RelayOptions& o) {
  controlnet::ControlPortConfig c;
  for (const auto& p : o.control.ports) {
    boost::system::error_code ec;
    auto addr = net::asio::ip::make_address(p.address->to_string(), ec);
    if (!ec) c.listen.emplace_back(addr, p.is_auto ? 0 : p.port);
  }
  for (const auto& s : o.control.sockets)
    c.sockets.push_back({s.path, s.group_writable, s.world_writable, s.relax_dir_mode_check});
  c.write_to_file = o.control.port_write_to_file;
  c.cookie_authentication = o.control.cookie_authentication;
  c.cookie_file = o.control.cookie_auth_file.empty() ? o.data_directory + "/control_auth_cookie"
                                                     : o.control.cookie_auth_file;
  c.hashed_passwords = o.control.hashed_passwords;
  c.version = o.control.version;
  return c;
}

}  // namespace

RelayControl::RelayControl(net::asio::io_context& io, Sources sources)
    : io_(io), src_(std::move(sources)),
      program_({"BW", "ORCONN", "NOTICE", "WARN", "ERR", "SIGNAL", "STATUS_CLIENT", "STATUS_GENERAL", "STATUS_SERVER",
                "CONF_CHANGED", "NEWCONSENSUS"},
               config_view()),
      shutdown_timer_(io) {
  add_info();
  add_channel_info();
  add_signals();
}

RelayControl::~RelayControl() { stop(); }

bool RelayControl::start() {
  auto log = [](log::Severity s, std::string_view m) { log::write(s, m); };
  auto config = port_config(src_.options);
  config.owner_closed = [] { std::raise(SIGTERM); };  // main's handler: log, stop, leave the loop
  port_ = std::make_unique<controlnet::ControlPort>(io_, std::move(config), program_, src_.traffic, log);
  return port_->start();
}

void RelayControl::stop() {
  shutdown_timer_.cancel();
  if (port_) port_->stop();
}

void RelayControl::up() {
  bootstrap_ = control::bootstrap_status(100, "done", "Done");
  if (port_) port_->publish("STATUS_CLIENT", "STATUS_CLIENT " + bootstrap_);
}

void RelayControl::server_status(std::string_view severity, const std::string& text) {
  if (port_) port_->publish("STATUS_SERVER", "STATUS_SERVER " + std::string(severity) + " " + text);
}

void RelayControl::add_info() {
  using V = std::optional<std::string>;
  auto& info = program_.info();
  info.add("version", "The current version of Tor.", [this](std::string_view) { return V(src_.options.control.version); });
  info.add("config-file", "Current location of the \"torrc\" file.", [this](std::string_view) {
    return src_.options.control.config_file.empty() ? V() : V(src_.options.control.config_file);
  });
  info.add("config-text", "Return the string that would be written by a saveconf command.",
           [this](std::string_view) {
             return V(config::running_config_text(src_.options.config_lines, src_.options.control.defaults_file));
           });
  // The address the relay's descriptor advertises (Address, else the ORPort's); 551 without one, as
  // tor answers before it has a guess.
  info.add("address", "IP address of this Tor host, if we can guess it.",
           [this](std::string_view) { return src_.address ? src_.address(false) : V(); });
  info.add("address/v4", "IPv4 address of this Tor host, if we can guess it.",
           [this](std::string_view) { return src_.address ? src_.address(false) : V(); });
  info.add("address/v6", "IPv6 address of this Tor host, if we can guess it.",
           [this](std::string_view) { return src_.address ? src_.address(true) : V(); });
  info.add("status/bootstrap-phase", "The last bootstrap phase status event that Tor sent.",
           [this](std::string_view) { return V(bootstrap_); });
  info.add("status/circuit-established", "Whether we think client functionality is working.",
           [](std::string_view) { return V("0"); });
  info.add("circuit-status", "List of current circuits originating here.", [](std::string_view) { return V(""); });
  ns_.install(info);
  info.add("net/listeners/or", "Bound addresses by type.",
           [this](std::string_view) { return V(controlnet::listener_list(src_.or_listeners)); });
  info.add("net/listeners/dir", "Bound addresses by type.",
           [this](std::string_view) { return V(controlnet::listener_list(src_.dir_listeners)); });
  info.add("net/listeners/control", "Bound addresses by type.",
           [this](std::string_view) { return V(port_ ? port_->listeners_text() : std::string()); });
  info.add("fingerprint", "Get hex fingerprint of our identity key.",
           [this](std::string_view) { return V(src_.fingerprint); });
  info.add("traffic/read", "Bytes read since the process was started.",
           [this](std::string_view) { return V(std::to_string(src_.traffic().first)); });
  info.add("traffic/written", "Bytes written since the process was started.",
           [this](std::string_view) { return V(std::to_string(src_.traffic().second)); });
  info.add("process/pid", "Process id belonging to the main tor process.",
           [](std::string_view) { return V(std::to_string(::getpid())); });
  info.add("process/user", "Username under which the tor process is running.",
           [](std::string_view) { return V(user_name()); });
}

void RelayControl::signal_event(std::string_view name) {
  if (port_) port_->publish("SIGNAL", "SIGNAL " + std::string(name));
}

void RelayControl::add_signals() {
  auto stop_later = [this] {
    // The 250 is queued; give it a moment to leave before the listeners close.
    shutdown_timer_.expires_after(std::chrono::milliseconds(200));
    shutdown_timer_.async_wait([](const boost::system::error_code& ec) {
      if (!ec) std::raise(SIGTERM);  // main's handler: log, stop, leave the loop
    });
  };
  for (const char* name : {"SHUTDOWN", "HALT", "INT", "TERM"}) program_.add_signal(name, stop_later);
  for (const char* name : {"RELOAD", "HUP"}) {
    program_.add_signal(name, [this] {
      if (src_.reload) src_.reload();
      signal_event("RELOAD");
    });
  }
  for (const char* name : {"DUMP", "USR1", "HEARTBEAT"}) {
    program_.add_signal(name, [this, name] {
      if (src_.heartbeat) src_.heartbeat();
      signal_event(std::string_view(name) == "USR1" ? "DUMP" : name);
    });
  }
  // A relay has no client circuits to renew: accepted, as tor does.
  program_.add_signal("NEWNYM", [this] { signal_event("NEWNYM"); });
  program_.add_signal("CLEARDNSCACHE", [this] {
    if (src_.clear_dns_cache) src_.clear_dns_cache();
    signal_event("CLEARDNSCACHE");
  });
}

}  // namespace conflux::relay
