#pragma once
// A stock tor relay's keys for conflux-net: tor makes its own (tornet's way,
// `tor --list-fingerprint` with a throw-away configuration), and its
// identities are then read back from the files it wrote.
#include <filesystem>
#include <string>

#include "conflux/bytes/result.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"

namespace conflux::netapp {

struct StockTorIdentity {
  crypto::RsaFingerprint rsa_id{};
  crypto::Ed25519Public ed25519{};
};

// Runs `tor` (at most 60 s) to write the keys of relay `nickname` into
// `data_dir` (created owner-only), its output into `output`; the error says why not.
[[nodiscard]] Result<StockTorIdentity, std::string> make_stock_tor_keys(const std::string& tor,
                                                                        const std::string& nickname,
                                                                        const std::filesystem::path& data_dir,
                                                                        const std::filesystem::path& output);

}  // namespace conflux::netapp
