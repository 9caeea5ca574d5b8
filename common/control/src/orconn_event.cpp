#include "conflux/control/orconn_event.hpp"

#include "conflux/bytes/hex.hpp"

namespace conflux::control {

std::string_view orconn_status_word(OrConnStatus s) {
  switch (s) {
    case OrConnStatus::New: return "NEW";
    case OrConnStatus::Launched: return "LAUNCHED";
    case OrConnStatus::Connected: return "CONNECTED";
    case OrConnStatus::Failed: return "FAILED";
    case OrConnStatus::Closed: return "CLOSED";
  }
  return "CLOSED";
}

std::string orconn_target_name(const OrConnTarget& t) {
  if (t.rsa) {
    std::string name = "$" + bytes::to_hex(*t.rsa, true);
    if (t.nickname && !t.nickname->empty()) name += "~" + *t.nickname;
    return name;
  }
  return t.address;
}

std::string orconn_event(std::string_view target, OrConnStatus s, std::string_view reason, std::size_t circuits,
                         std::uint64_t id) {
  std::string body = "ORCONN " + std::string(target) + " " + std::string(orconn_status_word(s));
  if (!reason.empty()) body += " REASON=" + std::string(reason);
  if (circuits > 0 && (s == OrConnStatus::Failed || s == OrConnStatus::Closed))
    body += " NCIRCS=" + std::to_string(circuits);
  return body + " ID=" + std::to_string(id);
}

std::string orconn_status_line(std::string_view target, OrConnStatus s) {
  return std::string(target) + " " + std::string(orconn_status_word(s));
}

}  // namespace conflux::control
