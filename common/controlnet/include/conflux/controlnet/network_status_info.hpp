#pragma once
// GETINFO ns/all, ns/id/<fp> and ns/name/<nickname> from the consensus a
// program last accepted, and the NEWCONSENSUS event when a new one comes
// (control-spec 3.9 and 4.1.12; dir::control_router_status's format). The
// proxy and the relay each own one, declared before the ControlProgram
// whose GETINFO table holds its providers.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "conflux/control/control_getinfo.hpp"
#include "conflux/controlnet/control_port.hpp"
#include "conflux/dir/consensus.hpp"

namespace conflux::controlnet {

class NetworkStatusInfo {
 public:
  // Registers the ns/* keys; before the first consensus each answers
  // empty, as tor's do.
  void install(control::ControlInfo& info);
  // GETINFO md/all, md/id/<fp>, md/name/<nickname> (tor's getinfo_helper_dir):
  // the microdescriptor the consensus names for the relay, its text as
  // served, from `text_of` (by RouterEntry::descriptor_digest); a relay not
  // listed, or whose microdescriptor is not held, is 551.
  using MicrodescText = std::function<std::optional<std::string>(const std::array<std::uint8_t, 32>& digest)>;
  void install_microdescs(control::ControlInfo& info, MicrodescText text_of);
  // A new consensus: kept for GETINFO, and sent to `port`'s NEWCONSENSUS
  // listeners when there is a port.
  void update(const dir::ConsensusBody& body, ControlPort* port);
  // The consensus nickname of the relay with this RSA identity, if listed.
  [[nodiscard]] std::optional<std::string> nickname_of(const crypto::RsaFingerprint& id) const;

 private:
  std::optional<dir::ConsensusBody> body_;
};

}  // namespace conflux::controlnet
