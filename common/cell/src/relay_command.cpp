#include "conflux/cell/relay_command.hpp"

namespace conflux::cell {

std::string_view to_string(RelayCommand cmd) noexcept {
  switch (cmd) {
    case RelayCommand::Begin: return "BEGIN";
    case RelayCommand::Data: return "DATA";
    case RelayCommand::End: return "END";
    case RelayCommand::Connected: return "CONNECTED";
    case RelayCommand::Sendme: return "SENDME";
    case RelayCommand::Extend: return "EXTEND";
    case RelayCommand::Extended: return "EXTENDED";
    case RelayCommand::Truncate: return "TRUNCATE";
    case RelayCommand::Truncated: return "TRUNCATED";
    case RelayCommand::Drop: return "DROP";
    case RelayCommand::Resolve: return "RESOLVE";
    case RelayCommand::Resolved: return "RESOLVED";
    case RelayCommand::BeginDir: return "BEGIN_DIR";
    case RelayCommand::Extend2: return "EXTEND2";
    case RelayCommand::Extended2: return "EXTENDED2";
    case RelayCommand::ConfluxLink: return "CONFLUX_LINK";
    case RelayCommand::ConfluxLinked: return "CONFLUX_LINKED";
    case RelayCommand::ConfluxLinkedAck: return "CONFLUX_LINKED_ACK";
    case RelayCommand::ConfluxSwitch: return "CONFLUX_SWITCH";
    case RelayCommand::EstablishIntro: return "ESTABLISH_INTRO";
    case RelayCommand::EstablishRendezvous: return "ESTABLISH_RENDEZVOUS";
    case RelayCommand::Introduce1: return "INTRODUCE1";
    case RelayCommand::Introduce2: return "INTRODUCE2";
    case RelayCommand::Rendezvous1: return "RENDEZVOUS1";
    case RelayCommand::Rendezvous2: return "RENDEZVOUS2";
    case RelayCommand::IntroEstablished: return "INTRO_ESTABLISHED";
    case RelayCommand::RendezvousEstablished: return "RENDEZVOUS_ESTABLISHED";
    case RelayCommand::IntroduceAck: return "INTRODUCE_ACK";
    case RelayCommand::PaddingNegotiate: return "PADDING_NEGOTIATE";
    case RelayCommand::PaddingNegotiated: return "PADDING_NEGOTIATED";
    case RelayCommand::Xoff: return "XOFF";
    case RelayCommand::Xon: return "XON";
  }
  return "UNKNOWN";
}

}  // namespace conflux::cell
