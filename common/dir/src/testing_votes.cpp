#include "conflux/dir/testing_votes.hpp"

#include <algorithm>
#include <cctype>

namespace conflux::dir {
namespace {

bool same_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

void force(const ForcedFlag& f, const RouterEntry& e, bool& flag) {
  if (f.relays.contains(e))
    flag = true;
  else if (f.strict)
    flag = false;
}

}  // namespace

bool RelaySet::contains(const RouterEntry& e) const {
  // tor's routerset_contains: the nickname first, then the identity digest.
  const auto named = [&](const std::string& n) { return same_ignoring_case(n, e.nickname); };
  if (std::any_of(nicknames.begin(), nicknames.end(), named)) return true;
  return e.rsa_identity && std::find(fingerprints.begin(), fingerprints.end(), *e.rsa_identity) != fingerprints.end();
}

void apply_testing_votes(const TestingVotes& votes, RouterEntry& e) {
  force(votes.exit, e, e.flags.exit);
  force(votes.guard, e, e.flags.guard);
}

}  // namespace conflux::dir
