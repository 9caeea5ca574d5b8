#pragma once
// One control connection, sans-I/O: bytes in, reply bytes out. It reads
// commands (ControlReader), lets the authentication gate (ControlAuth)
// answer what is its, keeps the connection's SETEVENTS subscription, and
// answers TAKEOWNERSHIP and DROPOWNERSHIP (the connection's own state), and
// hands every other command of an authenticated controller to the
// program's ControlCommands. The runtime writes what it returns, and
// closes when it says so. Async events reach a session through wants() and
// the runtime's queue (control-spec 4.1: "650" lines).
#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "conflux/control/control_auth.hpp"
#include "conflux/control/control_reader.hpp"

namespace conflux::control {

// What the program answers (GETINFO, GETCONF, SIGNAL, ...). A reply is one
// or more whole lines (control_reply.hpp); `close` ends the connection
// after it.
struct ControlAnswer {
  std::string reply;
  bool close = false;
};

class ControlCommands {
 public:
  virtual ~ControlCommands() = default;
  [[nodiscard]] virtual ControlAnswer on_command(const ControlCommand& cmd) = 0;
  // The event names SETEVENTS accepts (upper case).
  [[nodiscard]] virtual const std::set<std::string>& event_names() const = 0;
};

struct ControlOutput {
  std::string bytes;
  bool close = false;
};

class ControlSession {
 public:
  // `commands` must outlive the session.
  ControlSession(ControlAuthConfig auth, std::function<ControlCookie()> random, ControlCommands& commands,
                 ControlReaderLimits limits = {})
      : reader_(limits), auth_(std::move(auth), std::move(random)), commands_(commands) {}

  [[nodiscard]] ControlOutput on_bytes(std::span<const std::uint8_t> bytes);
  // Subscribed to `event` (SETEVENTS), and authenticated.
  [[nodiscard]] bool wants(std::string_view event) const;
  [[nodiscard]] bool authenticated() const noexcept { return auth_.authenticated(); }
  // TAKEOWNERSHIP was sent (and no DROPOWNERSHIP after it): the program
  // ends when this connection closes, as tor.
  [[nodiscard]] bool owner() const noexcept { return owner_; }

 private:
  [[nodiscard]] ControlAnswer setevents(const ControlCommand& cmd);

  ControlReader reader_;
  ControlAuth auth_;
  ControlCommands& commands_;
  std::set<std::string, std::less<>> events_;
  bool closed_ = false;
  bool owner_ = false;
};

}  // namespace conflux::control
