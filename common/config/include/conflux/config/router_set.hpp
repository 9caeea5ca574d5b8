#pragma once
// tor's "routerset" (ExcludeNodes, TestingDirAuthVoteGuard, ...): a comma
// separated list of relays. The part of tor's syntax a test network's
// authority needs is accepted:
//   - an RSA identity fingerprint, 40 hex digits with or without a leading
//     '$', optionally followed by "=NICK" or "~NICK" (which tor, too, ignores
//     when matching);
//   - a nickname, 1-19 letters and digits, matched ignoring case.
// tor's country codes ("{cc}", which need a GeoIP file) and address patterns
// ("10.0.0.0/8", "*", anything with '.', ':' or '*') are refused with an
// error naming the entry, as is anything else tor would call malformed.
#include <string>
#include <string_view>
#include <vector>

#include "conflux/config/option_values.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config {

struct RouterSet {
  std::vector<RsaId> fingerprints;
  std::vector<std::string> nicknames;  // as written; compared ignoring case
  [[nodiscard]] bool empty() const noexcept { return fingerprints.empty() && nicknames.empty(); }
  bool operator==(const RouterSet&) const = default;
};

[[nodiscard]] ValueResult<RouterSet> parse_router_set(std::string_view text);

}  // namespace conflux::config
