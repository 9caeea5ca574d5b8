// The key file format: a one-line ASCII header, then raw payload bytes
// (documented in key_file.hpp).
#include <charconv>
#include <string>

#include "conflux/crypto/secret.hpp"
#include "conflux/keys/key_file.hpp"

namespace conflux::keys {
namespace {

constexpr std::string_view kMagic = "conflux-key-v1";
constexpr std::size_t kMinCertLen = 104;  // cell::kEd25519CertMinLen
constexpr std::size_t kMaxCertLen = 4096;

bool payload_len_ok(KeyKind kind, std::size_t len) noexcept {
  if (kind == KeyKind::Ed25519Cert) return len >= kMinCertLen && len <= kMaxCertLen;
  return len == 32;
}

std::optional<KeyKind> kind_from_string(std::string_view s) noexcept {
  for (KeyKind k : {KeyKind::Ed25519Seed, KeyKind::Ed25519Public, KeyKind::Ed25519Cert,
                    KeyKind::X25519Secret}) {
    if (to_string(k) == s) return k;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(KeyKind k) noexcept {
  switch (k) {
    case KeyKind::Ed25519Seed: return "ed25519-seed";
    case KeyKind::Ed25519Public: return "ed25519-public";
    case KeyKind::Ed25519Cert: return "ed25519-cert";
    case KeyKind::X25519Secret: return "x25519-secret";
  }
  return "unknown";
}

bool is_secret(KeyKind k) noexcept { return k == KeyKind::Ed25519Seed || k == KeyKind::X25519Secret; }

KeyFileContents::~KeyFileContents() { crypto::secure_wipe(payload.data(), payload.size()); }

std::vector<std::uint8_t> encode_key_file(KeyKind kind, std::uint64_t created,
                                          std::span<const std::uint8_t> payload) {
  if (!payload_len_ok(kind, payload.size())) return {};
  std::string header(kMagic);
  header += ' ';
  header += to_string(kind);
  header += ' ';
  header += std::to_string(created);
  header += '\n';
  std::vector<std::uint8_t> out(header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

std::optional<KeyFileContents> decode_key_file(std::span<const std::uint8_t> file, KeyKind expected) {
  if (file.size() > kMaxKeyFileLen) return std::nullopt;
  std::size_t nl = 0;
  // The header is short; do not scan secret payload bytes for a newline.
  constexpr std::size_t kMaxHeader = 80;
  while (nl < file.size() && nl < kMaxHeader && file[nl] != '\n') ++nl;
  if (nl >= file.size() || file[nl] != '\n') return std::nullopt;
  const std::string header(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(nl));
  const std::string_view h(header);

  const std::size_t sp1 = h.find(' ');
  if (sp1 == std::string_view::npos || h.substr(0, sp1) != kMagic) return std::nullopt;
  const std::size_t sp2 = h.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return std::nullopt;
  const auto kind = kind_from_string(h.substr(sp1 + 1, sp2 - sp1 - 1));
  if (!kind || *kind != expected) return std::nullopt;
  const std::string_view num = h.substr(sp2 + 1);
  std::uint64_t created = 0;
  const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), created);
  if (ec != std::errc{} || end != num.data() + num.size() || num.empty()) return std::nullopt;

  const auto payload = file.subspan(nl + 1);
  if (!payload_len_ok(*kind, payload.size())) return std::nullopt;
  KeyFileContents out;
  out.kind = *kind;
  out.created = created;
  out.payload.assign(payload.begin(), payload.end());
  return out;
}

}  // namespace conflux::keys
