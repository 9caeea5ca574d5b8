#include "conflux/control/control_session.hpp"

#include <algorithm>
#include <cctype>

#include "conflux/control/control_args.hpp"
#include "conflux/control/control_reply.hpp"

namespace conflux::control {

ControlOutput ControlSession::on_bytes(std::span<const std::uint8_t> bytes) {
  ControlOutput out;
  if (closed_) return out;
  ControlRead read = reader_.feed(bytes);
  for (const auto& cmd : read.commands) {
    ControlAnswer a;
    if (auto gate = auth_.on_command(cmd)) {
      a = ControlAnswer{std::move(gate->reply), gate->close};
    } else if (cmd.keyword == "SETEVENTS") {
      a = setevents(cmd);
    } else if (cmd.keyword == "TAKEOWNERSHIP" || cmd.keyword == "DROPOWNERSHIP") {
      owner_ = cmd.keyword == "TAKEOWNERSHIP";
      a = {control_line(250, "OK"), false};
    } else {
      a = commands_.on_command(cmd);
    }
    out.bytes += a.reply;
    if (a.close) {
      closed_ = true;
      out.close = true;
      return out;
    }
  }
  if (read.error) {
    // tor closes a connection whose command it cannot read; say why first.
    out.bytes += control_line(read.error == ControlReadError::BadKeyword ? 510 : 552,
                              std::string(to_string(*read.error)));
    closed_ = true;
    out.close = true;
  }
  return out;
}

ControlAnswer ControlSession::setevents(const ControlCommand& cmd) {
  auto args = parse_control_args(cmd.args);
  if (!args) return {control_line(512, "Bad arguments to SETEVENTS"), false};
  std::set<std::string, std::less<>> wanted;
  for (const auto& a : *args) {
    std::string name = a.key ? *a.key + "=" + a.value : a.value;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
    if (name == "EXTENDED") continue;  // always on since tor 0.2.2
    if (a.key || commands_.event_names().count(name) == 0)
      return {control_line(552, "Unrecognized event \"" + name + "\""), false};
    wanted.insert(std::move(name));
  }
  // All or nothing, as tor: an unknown name leaves the old subscription.
  events_ = std::move(wanted);
  return {control_line(250, "OK"), false};
}

bool ControlSession::wants(std::string_view event) const {
  return !closed_ && auth_.authenticated() && events_.find(event) != events_.end();
}

}  // namespace conflux::control
