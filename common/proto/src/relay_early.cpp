#include "conflux/proto/relay_early.hpp"

namespace conflux::proto {

namespace {

bool is_extend(cell::RelayCommand cmd) noexcept {
  return cmd == cell::RelayCommand::Extend || cmd == cell::RelayCommand::Extend2;
}

}  // namespace

const char* to_string(RelayEarlyViolation v) noexcept {
  switch (v) {
    case RelayEarlyViolation::InboundRelayEarly: return "inbound RELAY_EARLY cell";
    case RelayEarlyViolation::TooManyRelayEarly: return "too many RELAY_EARLY cells";
    case RelayEarlyViolation::ExtendNotEarly: return "EXTEND not in a RELAY_EARLY cell";
  }
  return "unknown RELAY_EARLY violation";
}

std::optional<RelayEarlyViolation> RelayEarlyGuard::on_cell(CellDirection dir, bool is_relay_early) noexcept {
  if (!is_relay_early) return std::nullopt;
  if (dir == CellDirection::Inbound) return RelayEarlyViolation::InboundRelayEarly;
  if (remaining_ == 0) return RelayEarlyViolation::TooManyRelayEarly;
  --remaining_;
  return std::nullopt;
}

std::optional<RelayEarlyViolation> RelayEarlyGuard::check_recognized(cell::RelayCommand cmd,
                                                                     bool arrived_in_relay_early) noexcept {
  if (is_extend(cmd) && !arrived_in_relay_early) return RelayEarlyViolation::ExtendNotEarly;
  return std::nullopt;
}

Result<bool, RelayEarlySendError> RelayEarlyBudget::choose(cell::RelayCommand cmd, bool to_first_hop) noexcept {
  const bool wants_early = is_extend(cmd) || !to_first_hop;
  if (wants_early && remaining_ > 0) {
    --remaining_;
    return true;
  }
  if (is_extend(cmd)) return Unexpected{RelayEarlySendError::NoRelayEarlyLeft};
  return false;
}

}  // namespace conflux::proto
