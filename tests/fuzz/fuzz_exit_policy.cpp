// Fuzzes exit policy parsing.
//
// Invariants, trapping on violation:
//  - an accepted entry prints with to_string() and re-parses to an equal
//    entry, whose print is identical (canonical form is a fixed point);
//  - the input as a whole ExitPolicy value either fails with an index inside
//    the value, or builds a policy whose rules all print and re-parse, whose
//    summaries start with "accept " or "reject ", and whose port verdicts
//    agree with check() (a port rejected for every address is rejected for
//    any concrete address).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/proto/exit_policy.hpp"
#include "conflux/proto/exit_policy_builder.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

bool has_prefix(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);

  auto e = parse_policy_entry(text);
  if (e) {
    const std::string printed = e->to_string();
    auto again = parse_policy_entry(printed);
    check(again.has_value());
    check(*again == *e);
    check(again->to_string() == printed);
  }

  ExitPolicyOptions opt;
  opt.exit_relay = (size % 2) == 0;
  opt.ipv6_exit = (size % 3) == 0;
  const std::vector<std::string> values{text};
  auto built = build_exit_policy(values, opt);
  if (!built) {
    check(built.error().value_index == 0);
    check(built.error().entry_index < split_policy_value(text).size());
    return 0;
  }
  const ExitPolicy& p = built->policy;
  for (const PolicyRule& r : p.rules()) {
    auto re = parse_policy_entry(r.to_string());
    check(re.has_value());
  }
  for (AddrFamily f : {AddrFamily::Ipv4, AddrFamily::Ipv6}) {
    const std::string s = p.summary(f);
    check(has_prefix(s, "accept ") || has_prefix(s, "reject "));
    check(s.size() <= 1000);
  }
  const cell::RelayIpAddr probes[] = {cell::Ipv4Bytes{8, 8, 8, 8}, cell::Ipv4Bytes{10, 0, 0, 1},
                                      cell::Ipv6Bytes{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
  for (std::uint16_t port : {std::uint16_t{1}, std::uint16_t{25}, std::uint16_t{80}, std::uint16_t{443},
                             std::uint16_t{65535}}) {
    for (const auto& a : probes) {
      const PortVerdict v = p.check_port(port, family_of(a));
      if (v == PortVerdict::Rejected) check(p.check(a, port) == PolicyAction::Reject);
      if (v == PortVerdict::Accepted) check(p.check(a, port) == PolicyAction::Accept);
    }
  }
  return 0;
}
