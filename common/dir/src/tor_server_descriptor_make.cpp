#include "conflux/dir/tor_server_descriptor_make.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/ed25519_from_x25519_secret.hpp"
#include "conflux/crypto/pem.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

constexpr std::string_view kEdSigPrefix = "Tor router descriptor signature v1";

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// An argument list tor tokenizes as one line: printable, no newline.
void check_line(std::string_view what, std::string_view s) {
  for (char c : s)
    if (c == '\n' || c == '\r' || c == '\0') throw std::invalid_argument(std::string(what) + ": a line break");
}

std::string dotted(const std::array<std::uint8_t, 4>& a) {
  return std::to_string(a[0]) + "." + std::to_string(a[1]) + "." + std::to_string(a[2]) + "." + std::to_string(a[3]);
}

// "7F4F E299 ...": the RSA fingerprint in groups of four.
std::string spaced_fingerprint(const crypto::RsaFingerprint& fp) {
  const std::string hex = bytes::to_hex(fp, true);
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 4) out += (i == 0 ? "" : " ") + hex.substr(i, 4);
  return out;
}

// The type-10 certificate of the Ed25519 identity, signed by the Ed25519
// form of the ntor onion key (tor's make_ntor_onion_key_crosscert); the
// sign bit goes on the item's line.
std::string ntor_crosscert(const TorDescriptorKeys& k) {
  const crypto::Ed25519FromX25519 onion(k.ntor_onion_key);
  cell::Ed25519CertBody body;
  body.cert_type = cell::CertType::NtorOnionCrossCert;
  body.expiration_hours = cell::cert_expiration_hours(k.crosscert_expires);
  body.key_type = cell::CertKeyType::Ed25519;
  body.certified_key = k.ed25519_identity;
  auto signed_part = cell::encode_ed25519_cert_body(body);
  if (!signed_part) throw std::invalid_argument("ntor-onion-key-crosscert");
  cell::Ed25519Cert cert{std::move(body), onion.sign(*signed_part)};
  auto encoded = cell::encode_ed25519_cert(cert);
  if (!encoded) throw std::invalid_argument("ntor-onion-key-crosscert");
  return "ntor-onion-key-crosscert " + std::to_string(onion.sign_bit()) + "\n" +
         crypto::pem_encode(*encoded, "ED25519 CERT");
}

// The TAP onion key's signature of the RSA fingerprint and the Ed25519
// identity (tor's make_tap_onion_key_crosscert).
std::string tap_crosscert(const TorDescriptorKeys& k) {
  std::vector<std::uint8_t> signed_data(k.rsa_identity.public_key().fingerprint().begin(),
                                        k.rsa_identity.public_key().fingerprint().end());
  signed_data.insert(signed_data.end(), k.ed25519_identity.begin(), k.ed25519_identity.end());
  return "onion-key-crosscert\n" + crypto::pem_encode(k.tap_onion_key.sign_digest(signed_data), "CROSSCERT");
}

// From "router" through "bandwidth".
std::string head(const TorDescriptorFacts& f, const TorDescriptorKeys& k) {
  if (!valid_nickname(f.nickname)) throw std::invalid_argument("nickname");
  if (f.or_port == 0) throw std::invalid_argument("ORPort");
  check_line("platform", f.platform);
  check_line("proto", f.protocols);
  std::string t = "router " + f.nickname + " " + dotted(f.ipv4) + " " + std::to_string(f.or_port) + " 0 " +
                  std::to_string(f.dir_port) + "\n";
  t += "identity-ed25519\n" + crypto::pem_encode(k.signing_cert, "ED25519 CERT");
  t += "master-key-ed25519 " + bytes::base64_encode(k.ed25519_identity) + "\n";
  if (!f.platform.empty()) t += "platform " + f.platform + "\n";
  t += "proto " + f.protocols + "\n";
  t += "published " + tordoc::format_time(f.published) + "\n";
  t += "fingerprint " + spaced_fingerprint(k.rsa_identity.public_key().fingerprint()) + "\n";
  t += "uptime " + std::to_string(f.uptime) + "\n";
  t += "bandwidth " + std::to_string(f.bandwidth_rate) + " " + std::to_string(f.bandwidth_burst) + " " +
       std::to_string(f.bandwidth_observed) + "\n";
  return t;
}

// From "onion-key" through "tunnelled-dir-server".
std::string keys_and_policy(const TorDescriptorFacts& f, const TorDescriptorKeys& k) {
  std::string t = "onion-key\n" + crypto::rsa_public_pem(k.tap_onion_key.public_key());
  t += "signing-key\n" + crypto::rsa_public_pem(k.rsa_identity.public_key());
  t += tap_crosscert(k);
  t += ntor_crosscert(k);
  if (!f.contact.empty()) {
    check_line("contact", f.contact);
    t += "contact " + f.contact + "\n";
  }
  if (!f.family.empty()) {
    t += "family";
    for (const auto& m : f.family) {
      check_line("family", m);
      t += " " + m;
    }
    t += "\n";
  }
  t += "ntor-onion-key " + bytes::base64_encode(k.ntor_onion_key.public_key()) + "\n";
  for (const auto& p : f.exit_policy) {
    check_line("exit policy", p);
    if (!p.starts_with("accept ") && !p.starts_with("reject ")) throw std::invalid_argument("exit policy: " + p);
    t += p + "\n";
  }
  if (f.tunnelled_dir_server) t += "tunnelled-dir-server\n";
  return t;
}

}  // namespace

std::string make_tor_server_descriptor(const TorDescriptorFacts& facts, const TorDescriptorKeys& keys) {
  std::string t = head(facts, keys) + keys_and_policy(facts, keys);
  t += "router-sig-ed25519 ";
  crypto::Sha256 h;
  h.update(bytes_of(kEdSigPrefix));
  h.update(bytes_of(t));
  const auto digest = h.peek();
  t += bytes::base64_encode(keys.signing.sign(digest)) + "\n";
  t += "router-signature\n";
  t += crypto::pem_encode(keys.rsa_identity.sign_digest(crypto::sha1(bytes_of(t))), "SIGNATURE");
  return t;
}

}  // namespace conflux::dir
