#pragma once
// tor's TestingDirAuthVoteGuard and TestingDirAuthVoteExit (with their
// ...IsStrict options): an authority of a test network votes Guard or Exit
// for the relays an experiment names, whatever its bandwidth, uptime and exit
// policy rules say, and with IsStrict for no other relay (tor's
// dirserv_set_routerstatus_testing, applied after every other flag rule).
// Only a test network's authority applies them (AuthorityParams).
#include <string>
#include <vector>

#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/consensus.hpp"

namespace conflux::dir {

// Relays named as tor's routerset names them (the subset our configuration
// accepts): by RSA identity, or by nickname ignoring case.
struct RelaySet {
  std::vector<crypto::RsaFingerprint> fingerprints;
  std::vector<std::string> nicknames;
  [[nodiscard]] bool contains(const RouterEntry& e) const;
  friend bool operator==(const RelaySet&, const RelaySet&) = default;
};

struct ForcedFlag {
  RelaySet relays;
  bool strict = false;  // ...IsStrict: the flag for no relay outside `relays`
  friend bool operator==(const ForcedFlag&, const ForcedFlag&) = default;
};

struct TestingVotes {
  ForcedFlag guard;  // TestingDirAuthVoteGuard[IsStrict]
  ForcedFlag exit;   // TestingDirAuthVoteExit[IsStrict]
  friend bool operator==(const TestingVotes&, const TestingVotes&) = default;
};

// Sets or clears e's Guard and Exit flags as tor's testing authority does.
void apply_testing_votes(const TestingVotes& votes, RouterEntry& e);

}  // namespace conflux::dir
