#pragma once
// A tor microdesc consensus and its microdescriptors as the consensus our
// path selection reads (consensus.hpp): one RouterEntry per relay that has
// its microdescriptor and an Ed25519 identity (every relay since tor 0.3.x
// has one; entries without are skipped and counted), keyed and sorted by
// that identity, with the RSA identity kept for EXTEND2.
#include <cstddef>
#include <vector>

#include "conflux/dir/consensus.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_microdesc.hpp"

namespace conflux::dir {

struct TorConversion {
  ConsensusBody body;
  std::size_t missing_microdesc = 0;  // "m" digests we were not given
  std::size_t missing_ed25519 = 0;    // microdescriptors without "id ed25519"
};

// Flags as tor's client reads them: BadExit clears Exit. Family members
// named by "$FINGERPRINT" map to those relays' Ed25519 identities;
// nickname-only members (which tor no longer honours) are dropped.
[[nodiscard]] TorConversion consensus_from_tor(const TorConsensus& c, const std::vector<TorMicrodesc>& microdescs);

}  // namespace conflux::dir
