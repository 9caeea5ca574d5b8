#pragma once
// A program's control port, one owner for all of it: the cookie file
// (CookieAuthentication: 32 random bytes, mode 0600, written at start), a
// ControlServer per ControlPort, ControlPortWriteToFile, and the events
// every program has: BW once a second (the program's byte totals), and
// NOTICE/WARN/ERR from the log. SIGNAL actions run after their 250 is queued
// (posted to the io_context). stop() closes every controller and removes the
// log observer.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/control/control_program.hpp"
#include "conflux/controlnet/control_server.hpp"
#include "conflux/log/sink.hpp"

namespace conflux::controlnet {

// ControlSocket PATH [flags] (tor's): the socket file's mode is 0600, 0660
// with GroupWritable, 0666 with WorldWritable; its directory must belong to
// the user and be closed to others (to the group too unless GroupWritable),
// as tor checks, unless RelaxDirModeCheck. A stale socket there is replaced;
// the file is removed at stop.
struct ControlSocketConfig {
  std::string path;
  bool group_writable = false;
  bool world_writable = false;
  bool relax_dir_mode_check = false;
};

struct ControlPortConfig {
  std::vector<tcp::endpoint> listen;  // port 0: the OS picks one (ControlPort auto)
  std::vector<ControlSocketConfig> sockets;
  std::string write_to_file;          // ControlPortWriteToFile; empty: none
  bool cookie_authentication = false;
  std::string cookie_file;            // where the cookie goes (required with the cookie)
  std::vector<std::string> hashed_passwords;
  std::string version;                // PROTOCOLINFO's VERSION Tor=
  // A controller that sent TAKEOWNERSHIP closed its connection: the program
  // ends (tor's lost_owning_controller); logged first.
  std::function<void()> owner_closed;
};

class ControlPort {
 public:
  // Bytes read and written so far by the program (BW events are their deltas).
  using Traffic = std::function<std::pair<std::uint64_t, std::uint64_t>()>;

  ControlPort(net::asio::io_context& io, ControlPortConfig config, control::ControlProgram& program, Traffic traffic,
              log::Sink log);
  ~ControlPort();
  ControlPort(const ControlPort&) = delete;
  ControlPort& operator=(const ControlPort&) = delete;

  // Writes the cookie, binds every ControlPort, writes the port file; false
  // (after logging why) when one of those fails.
  bool start();
  void stop();
  // `body` is the event without "650 " ("CIRC 5 BUILT ..."); sent to the
  // controllers that asked for `event`.
  void publish(std::string_view event, std::string_view body);
  // A multi-line event (CONF_CHANGED): "650-" before each line but the
  // last, "650 " before it.
  void publish_lines(std::string_view event, const std::vector<std::string>& lines);
  // An event with a data block (NEWCONSENSUS): "650+event", `body`'s lines,
  // ".", "650 OK".
  void publish_data(std::string_view event, std::string_view body);

  // The TCP listeners' addresses (not the sockets').
  [[nodiscard]] std::vector<tcp::endpoint> endpoints() const;
  // GETINFO net/listeners/control: every listener, TCP and unix sockets
  // ("unix:PATH"), as listener_list writes them.
  [[nodiscard]] std::string listeners_text() const;

 private:
  bool write_cookie();
  [[nodiscard]] ControlServer::SessionFactory session_factory();
  void serve(const std::shared_ptr<ControlServer>& server, const std::string& where);
  // control_socket.cpp
  bool open_socket(const ControlSocketConfig& s);
  void remove_sockets();
  bool write_port_file();
  void arm_bw();
  void observe_log();

  net::asio::io_context& io_;
  ControlPortConfig config_;
  control::ControlProgram& program_;
  Traffic traffic_;
  log::Sink log_;
  control::ControlAuthConfig auth_;
  std::vector<std::shared_ptr<ControlServer>> servers_;
  std::vector<std::string> socket_paths_;  // ControlSocket files we made, removed at stop
  net::asio::steady_timer bw_timer_;
  std::pair<std::uint64_t, std::uint64_t> last_traffic_{};
  std::shared_ptr<int> life_ = std::make_shared<int>(0);
  bool observing_ = false;  // the log observer is ours (one per process)
  bool stopped_ = false;
};

// GETINFO net/listeners/*'s value (control-spec 3.9): each address quoted,
// "ADDR:PORT" or "[IPv6]:PORT", separated by spaces.
[[nodiscard]] std::string listener_list(const std::vector<tcp::endpoint>& endpoints);

}  // namespace conflux::controlnet
