#include "conflux/controlnet/network_status_info.hpp"

#include <string>

#include "conflux/dir/control_router_status.hpp"

namespace conflux::controlnet {

void NetworkStatusInfo::install(control::ControlInfo& info) {
  using V = std::optional<std::string>;
  info.add("ns/all", "Brief summary of router status (v2 directory format)",
           [this](std::string_view) { return V(body_ ? dir::control_router_statuses(*body_) : std::string()); });
  info.add_prefix("ns/id/", "Brief summary of router status by ID (v2 directory format).", [this](std::string_view fp) {
    return body_ ? dir::control_router_status_by_id(*body_, fp) : V(std::string());
  });
  info.add_prefix("ns/name/", "Brief summary of router status by nickname (v2 directory format).",
                  [this](std::string_view nick) {
                    return body_ ? dir::control_router_status_by_name(*body_, nick) : V(std::string());
                  });
}

void NetworkStatusInfo::update(const dir::ConsensusBody& body, ControlPort* port) {
  body_ = body;
  if (port != nullptr) port->publish_data("NEWCONSENSUS", dir::control_router_statuses(*body_));
}

std::optional<std::string> NetworkStatusInfo::nickname_of(const crypto::RsaFingerprint& id) const {
  if (!body_) return std::nullopt;
  for (const auto& r : body_->routers)
    if (r.rsa_identity == id) return r.nickname;
  return std::nullopt;
}

}  // namespace conflux::controlnet
