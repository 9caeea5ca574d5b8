#include "conflux/cell/cell_command.hpp"

namespace conflux::cell {

std::string_view to_string(CellCommand cmd) noexcept {
  switch (cmd) {
    case CellCommand::Padding: return "PADDING";
    case CellCommand::Create: return "CREATE";
    case CellCommand::Created: return "CREATED";
    case CellCommand::Relay: return "RELAY";
    case CellCommand::Destroy: return "DESTROY";
    case CellCommand::CreateFast: return "CREATE_FAST";
    case CellCommand::CreatedFast: return "CREATED_FAST";
    case CellCommand::Versions: return "VERSIONS";
    case CellCommand::Netinfo: return "NETINFO";
    case CellCommand::RelayEarly: return "RELAY_EARLY";
    case CellCommand::Create2: return "CREATE2";
    case CellCommand::Created2: return "CREATED2";
    case CellCommand::PaddingNegotiate: return "PADDING_NEGOTIATE";
    case CellCommand::VPadding: return "VPADDING";
    case CellCommand::Certs: return "CERTS";
    case CellCommand::AuthChallenge: return "AUTH_CHALLENGE";
    case CellCommand::Authenticate: return "AUTHENTICATE";
    case CellCommand::Authorize: return "AUTHORIZE";
  }
  return "UNKNOWN";
}

}  // namespace conflux::cell
