#include "conflux/dir/descriptor.hpp"

#include <algorithm>

#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/bytes/base64.hpp"
#include "conflux/dir/signing_cert.hpp"
#include "json_doc.hpp"

namespace conflux::dir {
namespace {

constexpr std::size_t kMaxRsaIdentityDer = 200;       // a 1024-bit key takes 140 bytes
constexpr std::size_t kRsaIdentitySignatureLen = 128;  // 1024 bits

using detail::Json;

std::vector<crypto::Ed25519Public> normalized_family(std::vector<crypto::Ed25519Public> f) {
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  return f;
}

Json unsigned_json(const Descriptor& d) {
  Json j = Json::object();
  j["nickname"] = d.nickname;
  j["identity"] = bytes::base64_encode(d.identity);
  j["signing_cert"] = bytes::base64_encode(d.signing_cert);
  j["ntor_onion_key"] = bytes::base64_encode(d.ntor_onion_key);
  j["ipv4"] = format_ipv4(d.ipv4);
  if (d.ipv6) j["ipv6"] = format_ipv6(*d.ipv6);
  j["or_port"] = d.or_port;
  j["dir_port"] = d.dir_port;
  j["bandwidth"] = Json{{"rate", d.bandwidth.rate}, {"burst", d.bandwidth.burst},
                        {"observed", d.bandwidth.observed}};
  j["exit_policy"] = d.exit_policy;
  Json fam = Json::array();
  for (const auto& k : normalized_family(d.family)) fam.push_back(bytes::base64_encode(k));
  j["family"] = std::move(fam);
  j["platform"] = d.platform;
  j["protocols"] = d.protocols;
  j["published"] = d.published;
  j["bridge"] = d.is_bridge;
  if (!d.rsa_identity.empty()) j["rsa_identity"] = bytes::base64_encode(d.rsa_identity);
  return j;
}

bool is_v2(const Descriptor& d) { return !d.rsa_identity.empty(); }


}  // namespace

std::string encode_descriptor(const Descriptor& d) {
  Json j = unsigned_json(d);
  j["signature"] = bytes::base64_encode(d.signature);
  if (is_v2(d)) j["rsa_signature"] = bytes::base64_encode(d.rsa_signature);
  return detail::dump(j);
}

std::vector<std::uint8_t> descriptor_signed_bytes(const Descriptor& d) {
  return detail::prefixed_bytes(is_v2(d) ? kDescriptorPrefixV2 : kDescriptorPrefix, detail::dump(unsigned_json(d)));
}

std::array<std::uint8_t, 32> descriptor_digest(const Descriptor& d) {
  const std::string text = encode_descriptor(d);
  return crypto::sha256({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

DirResult<Descriptor> parse_descriptor(std::string_view text) {
  auto parsed = detail::parse_json(text, kMaxDescriptorSize);
  if (!parsed) return Unexpected<DirError>{parsed.error()};
  const Json& j = *parsed;
  detail::ObjectReader r(j, "descriptor");
  Descriptor d;

  d.nickname = r.str("nickname");
  if (r.ok() && !valid_nickname(d.nickname)) r.fail(DirErrc::BadValue, "nickname");
  d.identity = r.fixed<32>("identity");
  d.signing_cert = r.blob("signing_cert", kMaxSigningCertLen);
  if (r.ok() && !cell::decode_ed25519_cert(d.signing_cert)) r.fail(DirErrc::BadCert, "signing_cert");
  d.ntor_onion_key = r.fixed<32>("ntor_onion_key");

  const std::string v4 = r.str("ipv4");
  if (r.ok()) {
    auto a = parse_ipv4(v4);
    if (a) d.ipv4 = *a; else r.fail(DirErrc::BadValue, "ipv4");
  }
  if (r.has("ipv6")) {
    const std::string v6 = r.str("ipv6");
    auto a = r.ok() ? parse_ipv6(v6) : std::nullopt;
    if (a) d.ipv6 = *a; else r.fail(DirErrc::BadValue, "ipv6");
  }
  d.or_port = static_cast<std::uint16_t>(r.u64("or_port", 1, 65535));
  d.dir_port = static_cast<std::uint16_t>(r.u64("dir_port", 0, 65535));

  if (const Json* bw = r.get("bandwidth", Json::value_t::object)) {
    detail::ObjectReader b(*bw, "bandwidth");
    d.bandwidth.rate = b.u64("rate", 0, kMaxBandwidth);
    d.bandwidth.burst = b.u64("burst", 0, kMaxBandwidth);
    d.bandwidth.observed = b.u64("observed", 0, kMaxBandwidth);
    b.finish();
    if (!b.ok()) r.fail(b.error()->code, b.error()->field);
  }

  d.exit_policy = r.str("exit_policy");
  if (r.ok() && !parse_policy_summary(d.exit_policy)) r.fail(DirErrc::BadValue, "exit_policy");

  if (const Json* fam = r.get("family", Json::value_t::array)) {
    if (fam->size() > kMaxFamily) r.fail(DirErrc::TooManyEntries, "family");
    for (const Json& e : *fam) {
      if (!r.ok()) break;
      auto k = e.is_string() ? detail::decode_b64_fixed(e.get<std::string>(), 32) : std::nullopt;
      if (!k) {
        r.fail(DirErrc::BadValue, "family");
        break;
      }
      crypto::Ed25519Public key{};
      std::copy(k->begin(), k->end(), key.begin());
      if (!d.family.empty() && !(d.family.back() < key)) r.fail(DirErrc::NotSorted, "family");
      d.family.push_back(key);
    }
  }

  d.platform = r.str("platform");
  if (r.ok() && !valid_platform(d.platform)) r.fail(DirErrc::BadValue, "platform");
  d.protocols = r.str("protocols");
  if (r.ok() && !valid_protocols(d.protocols)) r.fail(DirErrc::BadValue, "protocols");
  d.published = r.u64("published", 0, std::uint64_t{1} << 40);
  d.is_bridge = r.boolean("bridge");
  d.signature = r.fixed<64>("signature");
  if (r.has("rsa_identity") || r.has("rsa_signature")) {
    d.rsa_identity = r.blob("rsa_identity", kMaxRsaIdentityDer);
    d.rsa_signature = r.blob("rsa_signature", kRsaIdentitySignatureLen);
    if (r.ok() && (d.rsa_identity.empty() || d.rsa_signature.size() != kRsaIdentitySignatureLen))
      r.fail(DirErrc::BadValue, "rsa_signature");
  }
  r.finish();
  if (!r.ok()) return detail::failed(r);
  return d;
}

Descriptor sign_descriptor(Descriptor d, const crypto::Ed25519Keypair& signing_key) {
  d.family = normalized_family(std::move(d.family));
  d.rsa_identity.clear();
  d.rsa_signature.clear();
  d.signature = signing_key.sign(descriptor_signed_bytes(d));
  return d;
}

Descriptor sign_descriptor(Descriptor d, const crypto::Ed25519Keypair& signing_key,
                           const crypto::RsaPrivateKey& rsa_identity) {
  d.family = normalized_family(std::move(d.family));
  d.rsa_identity = rsa_identity.public_key().der();
  const auto bytes = descriptor_signed_bytes(d);
  d.signature = signing_key.sign(bytes);
  d.rsa_signature = rsa_identity.sign_digest(crypto::sha256(bytes));
  return d;
}

std::optional<crypto::RsaFingerprint> descriptor_rsa_fingerprint(const Descriptor& d) {
  if (!is_v2(d)) return std::nullopt;
  return crypto::sha1(d.rsa_identity);
}

DirResult<crypto::Ed25519Public> verify_descriptor(const Descriptor& d, std::uint64_t now,
                                                   const DescriptorCheck& check) {
  auto signing = verify_signing_cert(d.signing_cert, d.identity, now);
  if (!signing) return signing;
  const auto bytes = descriptor_signed_bytes(d);
  if (!crypto::ed25519_verify(*signing, bytes, d.signature)) return dir_fail(DirErrc::BadSignature);
  if (is_v2(d)) {
    auto rsa = crypto::RsaPublicKey::from_pkcs1_der(d.rsa_identity);
    if (!rsa || rsa->bits() != 1024) return dir_fail(DirErrc::BadValue, "rsa_identity");
    if (!rsa->verify_digest(crypto::sha256(bytes), d.rsa_signature)) return dir_fail(DirErrc::BadSignature);
  }
  if (d.published > now && d.published - now > check.max_future) return dir_fail(DirErrc::FromFuture);
  if (now > d.published && now - d.published > check.max_age) return dir_fail(DirErrc::Expired);
  return signing;
}

DirResult<Descriptor> parse_and_verify_descriptor(std::string_view text, std::uint64_t now,
                                                  const DescriptorCheck& check) {
  auto d = parse_descriptor(text);
  if (!d) return d;
  auto ok = verify_descriptor(*d, now, check);
  if (!ok) return Unexpected<DirError>{ok.error()};
  return d;
}

}  // namespace conflux::dir
