#include "conflux/controlnet/network_status_info.hpp"

#include <string>

#include "conflux/dir/control_router_status.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::controlnet {

void NetworkStatusInfo::install(control::ControlInfo& info) {
  using V = std::optional<std::string>;
  info.add("ns/all", "Brief summary of router status (v2 directory format)",
           [this](std::string_view) { return V(body_ ? dir::control_router_statuses(*body_) : std::string()); });
  // As tor's getinfo_helper_networkstatus: with no consensus every ns/ key
  // is empty; a relay it does not list leaves the answer empty without an
  // error, which handle_control_getinfo answers 552 Unrecognized key; an
  // id that is not 40 hex digits ('$' optional) fails with its message, 551.
  constexpr auto unknown = control::ControlInfo::Missing::Unrecognized;
  info.add_prefix(
      "ns/id/", "Brief summary of router status by ID (v2 directory format).",
      [this](std::string_view fp) { return body_ ? dir::control_router_status_by_id(*body_, fp) : V(std::string()); },
      unknown,
      [this](std::string_view fp) -> V {
        if (fp.starts_with('$')) fp.remove_prefix(1);
        if (!body_ || dir::parse_hex_fingerprint(fp)) return std::nullopt;
        return "Data not decodeable as hex";
      });
  info.add_prefix(
      "ns/name/", "Brief summary of router status by nickname (v2 directory format).",
      [this](std::string_view nick) { return body_ ? dir::control_router_status_by_name(*body_, nick) : V(std::string()); },
      unknown);
}

void NetworkStatusInfo::install_microdescs(control::ControlInfo& info, MicrodescText text_of) {
  using V = std::optional<std::string>;
  const auto md_of = [text_of](const dir::RouterEntry* r) -> V {
    if (r == nullptr || !r->rsa_identity || !text_of) return std::nullopt;
    return text_of(r->descriptor_digest);
  };
  info.add("md/all", "All known microdescriptors.", [this, text_of](std::string_view) {
    std::string out;
    if (body_ && text_of)
      for (const auto& r : body_->routers)
        if (auto t = r.rsa_identity ? text_of(r.descriptor_digest) : V()) out += *t;
    return V(out);
  });
  // tor's getinfo_helper_dir leaves the answer empty for a relay it has no
  // microdescriptor of, which its GETINFO turns into 552 Unrecognized key.
  constexpr auto unknown = control::ControlInfo::Missing::Unrecognized;
  info.add_prefix(
      "md/id/", "Microdescriptors by ID",
      [this, md_of](std::string_view fp) -> V {
        if (fp.starts_with('$')) fp.remove_prefix(1);
        const auto id = dir::parse_hex_fingerprint(fp);
        if (!body_ || !id) return std::nullopt;
        for (const auto& r : body_->routers)
          if (r.rsa_identity == id) return md_of(&r);
        return std::nullopt;
      },
      unknown);
  info.add_prefix(
      "md/name/", "Microdescriptors by name",
      [this, md_of](std::string_view nick) -> V {
        if (!body_) return std::nullopt;
        for (const auto& r : body_->routers)
          if (r.nickname == nick && r.rsa_identity) return md_of(&r);
        return std::nullopt;
      },
      unknown);
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
