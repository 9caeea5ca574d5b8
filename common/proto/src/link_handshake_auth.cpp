#include "conflux/proto/link_handshake_auth.hpp"

#include "conflux/bytes/writer.hpp"
#include "conflux/crypto/ct.hpp"

namespace conflux::proto {

std::vector<std::uint8_t> encode_auth0003_checked(const Auth0003Fields& f) {
  bytes::Writer w(kAuth0003Len);
  for (char c : kAuth0003Type) w.u8(static_cast<std::uint8_t>(c));
  for (const auto* field : {&f.cid, &f.sid, &f.cid_ed, &f.sid_ed, &f.slog, &f.clog, &f.scert, &f.tlssecrets}) {
    w.put(*field);
  }
  return std::move(w).take();
}

std::vector<std::uint8_t> make_auth0003(const Auth0003Fields& f,
                                        const std::array<std::uint8_t, kAuth0003RandLen>& rand,
                                        const crypto::Ed25519Keypair& link_auth_key) {
  std::vector<std::uint8_t> out = encode_auth0003_checked(f);
  out.insert(out.end(), rand.begin(), rand.end());
  const auto sig = link_auth_key.sign(out);
  out.insert(out.end(), sig.begin(), sig.end());
  return out;
}

std::optional<LinkFailure> check_auth0003(bytes::ByteSpan authentication, const Auth0003Fields& expected,
                                          const crypto::Ed25519Public& auth_key) {
  if (authentication.size() < kAuth0003Len) return LinkFailure::BadAuthenticate;
  const auto want = encode_auth0003_checked(expected);
  // TLSSECRETS is key material: compare without an early exit.
  if (!crypto::ct_equal(authentication.first(kAuth0003CheckedLen), want)) return LinkFailure::AuthFieldMismatch;
  const std::size_t signed_len = authentication.size() - 64;
  crypto::Ed25519Signature sig{};
  const auto sig_bytes = authentication.subspan(signed_len);
  std::copy(sig_bytes.begin(), sig_bytes.end(), sig.begin());
  if (!crypto::ed25519_verify(auth_key, authentication.first(signed_len), sig)) return LinkFailure::BadAuthSignature;
  return std::nullopt;
}

}  // namespace conflux::proto
