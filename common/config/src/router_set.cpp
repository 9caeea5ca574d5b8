#include "conflux/config/router_set.hpp"

#include <algorithm>
#include <optional>

#include "conflux/bytes/hex.hpp"
#include "shown_value.hpp"

namespace conflux::config {
namespace {

bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// tor's is_legal_hexdigest: "$"? HEX40 ("=" | "~") NICK?
std::optional<RsaId> fingerprint_of(std::string_view item) {
  if (item.starts_with('$')) item.remove_prefix(1);
  if (item.size() < 40 || !std::all_of(item.begin(), item.begin() + 40, is_hex_digit)) return std::nullopt;
  const auto rest = item.substr(40);
  if (!rest.empty() && !((rest.front() == '=' || rest.front() == '~') && is_valid_nickname(rest.substr(1))))
    return std::nullopt;
  auto raw = bytes::from_hex(item.substr(0, 40));
  if (!raw || raw->size() != 20) return std::nullopt;
  RsaId id{};
  std::copy(raw->begin(), raw->end(), id.begin());
  return id;
}

constexpr const char kNameThem[] = "name relays by $FINGERPRINT or nickname";

}  // namespace

ValueResult<RouterSet> parse_router_set(std::string_view text) {
  RouterSet out;
  for (const auto& item : split_list(text)) {
    if (auto fp = fingerprint_of(item)) {
      out.fingerprints.push_back(*fp);
    } else if (is_valid_nickname(item)) {
      out.nicknames.push_back(item);
    } else if (item.size() >= 4 && item.front() == '{' && item[3] == '}') {
      return Unexpected{"country codes ('" + shown(item) + "') are not supported: " + kNameThem};
    } else if (item.find_first_of(".:*") != std::string::npos) {
      return Unexpected{"address patterns ('" + shown(item) + "') are not supported: " + kNameThem};
    } else {
      return Unexpected{"malformed entry '" + shown(item) + "' (a $FINGERPRINT of 40 hex digits or a nickname)"};
    }
  }
  return out;
}

}  // namespace conflux::config
