#pragma once
// The resource lists in tor's directory URLs (dir-spec appendix B), as a
// directory cache reads them: "/tor/keys/fp/F1+F2", "/tor/keys/fp-sk/F-S+F-S",
// "/tor/micro/d/D1-D2", the authority list a client appends to the
// consensus URL ("/tor/status-vote/current/consensus-microdesc/F1+F2", hex
// prefixes of v3idents), and the ".z" that asks for zlib compression.
// Hostile input: every list is bounded, every item checked.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/crypto/rsa.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxUrlListItems = 512;  // items in one request

// `path` without a trailing ".z" (tor's "compress it with zlib" suffix);
// `zlib` says whether it had one.
[[nodiscard]] std::string_view strip_z_suffix(std::string_view path, bool* zlib = nullptr) noexcept;

// "F1+F2+..." of 40 hex digits each (any case); nullopt on a malformed item
// or more than kMaxUrlListItems.
[[nodiscard]] std::optional<std::vector<crypto::RsaFingerprint>> parse_fp_list(std::string_view list);

// "F1-S1+F2-S2+...": v3ident and signing-key digest, 40 hex digits each.
using FpSk = std::pair<crypto::RsaFingerprint, crypto::RsaFingerprint>;
[[nodiscard]] std::optional<std::vector<FpSk>> parse_fp_sk_list(std::string_view list);

// "D1-D2-...": base64 SHA-256 digests as in "m" lines (43 characters, no
// padding); malformed ones are left out, as tor leaves them out; nullopt
// when there are too many.
[[nodiscard]] std::optional<std::vector<std::string>> parse_microdesc_digests(std::string_view list);

// "F1+F2+...": hex prefixes (1 to 40 digits) of authority v3idents, kept
// upper-case; nullopt on a malformed one or too many.
[[nodiscard]] std::optional<std::vector<std::string>> parse_authority_prefixes(std::string_view list);

// tor's client_likes_consensus: whether more than half of `wanted` (hex
// prefixes) each match one of `signers` (v3idents).
[[nodiscard]] bool signed_by_enough(const std::vector<crypto::RsaFingerprint>& signers,
                                    const std::vector<std::string>& wanted);

}  // namespace conflux::dir
