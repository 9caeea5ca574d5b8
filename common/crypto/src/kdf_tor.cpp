#include "conflux/crypto/kdf_tor.hpp"

#include <algorithm>
#include <stdexcept>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/secret.hpp"

namespace conflux::crypto {

std::vector<std::uint8_t> kdf_tor(std::span<const std::uint8_t> k0, std::size_t len) {
  if (len == 0 || len > kKdfTorMaxLen) throw std::invalid_argument("kdf_tor: len out of range");
  std::vector<std::uint8_t> out;
  out.reserve(len);  // no reallocation leaves an unwiped copy behind
  // Absorb K0 once; each block continues from a checkpoint of that state.
  Sha1 base;
  base.update(k0);
  Sha1 block = base;
  for (std::size_t i = 0; out.size() < len; ++i) {
    block.restore(base);
    const std::uint8_t counter = static_cast<std::uint8_t>(i);
    block.update(std::span<const std::uint8_t>(&counter, 1));
    auto digest = block.peek();
    const std::size_t take = std::min(digest.size(), len - out.size());
    out.insert(out.end(), digest.begin(), digest.begin() + static_cast<std::ptrdiff_t>(take));
    secure_wipe(digest.data(), digest.size());
  }
  return out;
}

}  // namespace conflux::crypto
