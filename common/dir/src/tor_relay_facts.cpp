#include "conflux/dir/tor_relay_facts.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/proto/exit_policy.hpp"

namespace conflux::dir {
namespace {

using tordoc::Item;
using Items = std::span<const Item>;

std::optional<std::uint64_t> number_of(std::string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<DirError> read_bandwidth(Items items, TorRelayFacts& f) {
  auto item = tordoc::find_once(items.data(), items.data() + items.size(), "bandwidth", true);
  if (!item) return item.error();
  const Item& b = **item;
  if (b.args.size() < 3 || b.object) return DirError{DirErrc::BadValue, "bandwidth"};
  std::array<std::uint64_t, 3> v{};
  for (std::size_t i = 0; i < 3; ++i) {
    auto n = number_of(b.args[i]);
    if (!n) return DirError{DirErrc::BadValue, "bandwidth"};
    v[i] = std::min(*n, kMaxBandwidth);
  }
  f.bandwidth_rate = v[0];
  f.bandwidth_burst = v[1];
  f.bandwidth_observed = v[2];
  return std::nullopt;
}

std::optional<DirError> read_ipv6(Items items, std::uint16_t or_port, TorRelayFacts& f) {
  for (const Item& i : items) {
    if (i.keyword != "or-address") continue;
    if (i.args.size() != 1 || i.object) return DirError{DirErrc::BadValue, "or-address"};
    if (!i.args[0].starts_with("[")) continue;  // an IPv4 or-address: not listed, as in tor
    std::pair<std::array<std::uint8_t, 16>, std::uint16_t> a;
    if (!tordoc::ipv6_orport(i.args[0], a)) return DirError{DirErrc::BadValue, "or-address"};
    if (a.second == or_port && !f.ipv6) f.ipv6 = a.first;
  }
  return std::nullopt;
}

std::optional<DirError> read_policy(Items items, TorRelayFacts& f) {
  std::vector<proto::PolicyEntry> entries;
  for (const Item& i : items) {
    if (i.keyword != "accept" && i.keyword != "reject") continue;
    if (i.args.size() != 1 || i.object) return DirError{DirErrc::BadValue, "accept/reject"};
    auto e = proto::parse_policy_entry(std::string(i.keyword) + " " + std::string(i.args[0]));
    if (!e) return DirError{DirErrc::BadValue, "accept/reject"};
    entries.push_back(*e);
  }
  if (entries.empty()) return std::nullopt;
  // A descriptor's "*" means IPv4 only (IPv6 has its own "ipv6-policy");
  // the summary reads only the IPv4 rules either way.
  f.exit_policy = proto::ExitPolicy::from_entries(entries).summary(proto::AddrFamily::Ipv4);
  if (!parse_policy_summary(f.exit_policy)) f.exit_policy = "reject 1-65535";
  return std::nullopt;
}

// tor's K_FAMILY is "at most once"; members it cannot use are skipped, not
// errors (tor keeps nicknames, which we cannot list).
std::optional<DirError> read_family(Items items, TorRelayFacts& f) {
  auto item = tordoc::find_once(items.data(), items.data() + items.size(), "family", false);
  if (!item) return item.error();
  if (*item == nullptr) return std::nullopt;
  if ((*item)->object) return DirError{DirErrc::BadValue, "family"};
  for (auto member : (*item)->args)
    if (auto fp = family_member_fingerprint(member)) f.family.push_back(*fp);
  std::sort(f.family.begin(), f.family.end());
  f.family.erase(std::unique(f.family.begin(), f.family.end()), f.family.end());
  if (f.family.size() > kMaxFamily) f.family.resize(kMaxFamily);
  return std::nullopt;
}

}  // namespace

std::optional<crypto::RsaFingerprint> family_member_fingerprint(std::string_view member) {
  if (member.size() < 41 || member[0] != '$') return std::nullopt;
  if (member.size() > 41 && member[41] != '=' && member[41] != '~') return std::nullopt;
  auto b = bytes::from_hex(member.substr(1, 40));
  if (!b) return std::nullopt;
  crypto::RsaFingerprint f{};
  std::copy(b->begin(), b->end(), f.begin());
  return f;
}

DirResult<TorRelayFacts> read_tor_relay_facts(std::span<const Item> items, std::uint16_t or_port) {
  TorRelayFacts f;
  if (auto e = read_bandwidth(items, f)) return Unexpected<DirError>{*e};
  if (auto e = read_ipv6(items, or_port, f)) return Unexpected<DirError>{*e};
  if (auto e = read_policy(items, f)) return Unexpected<DirError>{*e};
  if (auto e = read_family(items, f)) return Unexpected<DirError>{*e};
  return f;
}

DirResult<TorRelayFacts> parse_tor_relay_facts(std::string_view text, std::uint16_t or_port) {
  if (text.size() > kMaxTorServerDescriptorSize) return dir_fail(DirErrc::TooLarge);
  auto items = tordoc::tokenize(text);
  if (!items) return dir_pass(items);
  return read_tor_relay_facts(*items, or_port);
}

}  // namespace conflux::dir
