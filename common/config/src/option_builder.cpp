#include "option_builder.hpp"

#include "conflux/config/layers.hpp"

namespace conflux::config {

SourcePos OptionBuilder::pos(std::string_view option) const {
  auto it = seen_.find(option);
  if (it != seen_.end()) return it->second;
  return {main_, 0};
}

void check_dir_authorities(OptionBuilder& b, const std::vector<DirAuthorityLine>& authorities) {
  for (std::size_t i = 0; i < authorities.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const auto& x = authorities[i];
      const auto& y = authorities[j];
      const bool same_id = x.v3ident == y.v3ident || x.rsa_identity == y.rsa_identity;
      if (key_equals(x.nickname, y.nickname) || same_id)
        b.error("DirAuthority", "DirAuthority: two authorities share a nickname or an identity");
    }
}

void warn_public_metrics(const OptionBuilder& b, const std::vector<PortConfig>& ports, ConfigErrors& warnings) {
  for (const auto& m : ports)
    if (!(m.address && m.address->is_loopback()))
      warnings.emplace_back(b.pos("MetricsPort"), "MetricsPort is reachable beyond this host");
}

Entries single_layer(const Entries& entries) {
  const Entries layer[] = {entries};
  return merge_layers(layer);
}

Result<Entries, ConfigErrors> load_layers(const CommandLine& cl, const FileSource& files) {
  ConfigErrors errors;
  auto load = [&](const std::optional<std::string>& path, bool missing_is_error) -> Entries {
    if (!path) return {};
    if (files.kind(*path) == PathKind::Missing && !missing_is_error) return {};
    auto parsed = load_torrc_file(*path, files);
    if (!parsed) {
      errors.push_back(parsed.error());
      return {};
    }
    return std::move(*parsed);
  };
  auto defaults = load(cl.defaults_torrc_path, !cl.ignore_missing_torrc);
  auto torrc = load(cl.torrc_path, cl.torrc_explicit && !cl.ignore_missing_torrc);
  if (!errors.empty()) return Unexpected{std::move(errors)};
  return merge_layers(defaults, torrc, cl.overrides);
}

std::string_view main_source(const CommandLine& cl) noexcept {
  return cl.torrc_path ? std::string_view(*cl.torrc_path) : std::string_view(kCommandLineSource);
}

}  // namespace conflux::config
