#include <algorithm>
#include <limits>

#include "conflux/crypto/digest.hpp"
#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/descriptor.hpp"
#include "conflux/dir/signing_cert.hpp"
#include "json_doc.hpp"

namespace conflux::dir {
namespace {

using detail::Json;
using detail::ObjectReader;

constexpr std::uint64_t kMaxTime = std::uint64_t{1} << 40;

// Flag names in sorted order, with their members.
constexpr std::array<std::pair<std::string_view, bool Flags::*>, 6> kFlagNames{{
    {"Exit", &Flags::exit}, {"Fast", &Flags::fast}, {"Guard", &Flags::guard},
    {"Running", &Flags::running}, {"Stable", &Flags::stable}, {"Valid", &Flags::valid}}};

// tor's parameter names use '-' as well as '_' (guard-n-primary-guards-to-use).
bool valid_param_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

Json keys_json(const std::vector<crypto::Ed25519Public>& keys) {
  Json a = Json::array();
  for (const auto& k : keys) a.push_back(bytes::base64_encode(k));
  return a;
}

Json router_json(const RouterEntry& r) {
  Json j = Json::object();
  j["identity"] = bytes::base64_encode(r.identity);
  j["nickname"] = r.nickname;
  j["ipv4"] = format_ipv4(r.ipv4);
  if (r.ipv6) j["ipv6"] = format_ipv6(*r.ipv6);
  j["or_port"] = r.or_port;
  j["dir_port"] = r.dir_port;
  Json flags = Json::array();
  for (const auto& [name, member] : kFlagNames)
    if (r.flags.*member) flags.push_back(std::string(name));
  j["flags"] = std::move(flags);
  j["bandwidth"] = r.bandwidth;
  j["ntor_onion_key"] = bytes::base64_encode(r.ntor_onion_key);
  j["exit_policy"] = r.exit_policy;
  j["protocols"] = r.protocols;
  j["family"] = keys_json(r.family);
  j["descriptor_digest"] = bytes::base64_encode(r.descriptor_digest);
  j["published"] = r.published;
  if (r.rsa_identity) j["rsa_identity"] = bytes::to_hex(*r.rsa_identity, true);
  return j;
}

Json body_json(const ConsensusBody& b) {
  Json j = Json::object();
  j["valid_after"] = b.valid_after;
  j["fresh_until"] = b.fresh_until;
  j["valid_until"] = b.valid_until;
  Json params = Json::object();
  for (const auto& [k, v] : b.params) params[k] = v;
  j["params"] = std::move(params);
  Json routers = Json::array();
  for (const auto& r : b.routers) routers.push_back(router_json(r));
  j["routers"] = std::move(routers);
  if (b.bandwidth_weights) {
    Json w = Json::object();
    w["scale"] = b.bandwidth_weights->scale;
    for (const auto& [name, member] : kWeightFields) w[std::string(name)] = (*b.bandwidth_weights).*member;
    j["bandwidth_weights"] = std::move(w);
  }
  return j;
}

Json signature_json(const ConsensusSignature& s) {
  return Json{{"identity", bytes::base64_encode(s.identity)},
              {"signing_cert", bytes::base64_encode(s.signing_cert)},
              {"signature", bytes::base64_encode(s.signature)}};
}

// A list of Ed25519 keys, strictly ascending.
std::vector<crypto::Ed25519Public> read_keys(ObjectReader& r, std::string_view key, std::size_t max) {
  std::vector<crypto::Ed25519Public> out;
  const Json* a = r.get(key, Json::value_t::array);
  if (!a) return out;
  if (a->size() > max) {
    r.fail(DirErrc::TooManyEntries, key);
    return out;
  }
  for (const Json& e : *a) {
    auto k = e.is_string() ? detail::decode_b64_fixed(e.get<std::string>(), 32) : std::nullopt;
    if (!k) {
      r.fail(DirErrc::BadValue, key);
      return out;
    }
    crypto::Ed25519Public pk{};
    std::copy(k->begin(), k->end(), pk.begin());
    if (!out.empty() && !(out.back() < pk)) {
      r.fail(DirErrc::NotSorted, key);
      return out;
    }
    out.push_back(pk);
  }
  return out;
}

void read_flags(ObjectReader& r, Flags& f) {
  const Json* a = r.get("flags", Json::value_t::array);
  if (!a) return;
  std::size_t next = 0;  // names must appear in kFlagNames order, each once
  for (const Json& e : *a) {
    if (!e.is_string()) return r.fail(DirErrc::BadValue, "flags");
    const std::string name = e.get<std::string>();
    while (next < kFlagNames.size() && kFlagNames[next].first != name) ++next;
    if (next == kFlagNames.size()) return r.fail(DirErrc::BadValue, "flags");
    f.*(kFlagNames[next].second) = true;
    ++next;
  }
}

void read_router(const Json& j, RouterEntry& out, ObjectReader& parent) {
  ObjectReader r(j, "routers");
  out.identity = r.fixed<32>("identity");
  out.nickname = r.str("nickname");
  if (r.ok() && !valid_nickname(out.nickname)) r.fail(DirErrc::BadValue, "nickname");
  const std::string v4 = r.str("ipv4");
  if (r.ok()) {
    auto a = parse_ipv4(v4);
    if (a) out.ipv4 = *a; else r.fail(DirErrc::BadValue, "ipv4");
  }
  if (r.has("ipv6")) {
    const std::string v6 = r.str("ipv6");
    auto a = r.ok() ? parse_ipv6(v6) : std::nullopt;
    if (a) out.ipv6 = *a; else r.fail(DirErrc::BadValue, "ipv6");
  }
  out.or_port = static_cast<std::uint16_t>(r.u64("or_port", 1, 65535));
  out.dir_port = static_cast<std::uint16_t>(r.u64("dir_port", 0, 65535));
  read_flags(r, out.flags);
  out.bandwidth = r.u64("bandwidth", 0, kMaxBandwidth / 1000);
  out.ntor_onion_key = r.fixed<32>("ntor_onion_key");
  out.exit_policy = r.str("exit_policy");
  if (r.ok() && !parse_policy_summary(out.exit_policy)) r.fail(DirErrc::BadValue, "exit_policy");
  out.protocols = r.str("protocols");
  if (r.ok() && !valid_protocols(out.protocols)) r.fail(DirErrc::BadValue, "protocols");
  out.family = read_keys(r, "family", kMaxFamily);
  out.descriptor_digest = r.fixed<32>("descriptor_digest");
  out.published = r.u64("published", 0, kMaxTime);
  if (r.has("rsa_identity")) {
    const std::string hex = r.str("rsa_identity");
    auto b = r.ok() && hex.size() == 40 ? bytes::from_hex(hex) : std::nullopt;
    if (b && bytes::to_hex(*b, true) == hex) {
      out.rsa_identity.emplace();
      std::copy(b->begin(), b->end(), out.rsa_identity->begin());
    } else {
      r.fail(DirErrc::BadValue, "rsa_identity");
    }
  }
  r.finish();
  if (!r.ok()) parent.fail(r.error()->code, r.error()->field);
}

void read_weights(const Json& j, BandwidthWeights& w, ObjectReader& parent) {
  ObjectReader r(j, "bandwidth_weights");
  w.scale = static_cast<std::int64_t>(r.u64("scale", 1, std::numeric_limits<std::int32_t>::max()));
  const auto max = static_cast<std::uint64_t>(w.scale);
  for (const auto& [name, member] : kWeightFields)
    w.*member = static_cast<std::int64_t>(r.u64(name, 0, max));
  r.finish();
  if (!r.ok()) parent.fail(r.error()->code, r.error()->field);
}

void read_params(const Json& j, std::map<std::string, std::int32_t>& out, ObjectReader& parent) {
  if (j.size() > kMaxParams) return parent.fail(DirErrc::TooManyEntries, "params");
  for (const auto& [k, v] : j.items()) {
    if (!valid_param_name(k)) return parent.fail(DirErrc::BadValue, "params");
    std::int64_t x = 0;
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= std::numeric_limits<std::int32_t>::max()) {
      x = static_cast<std::int64_t>(v.get<std::uint64_t>());
    } else if (v.is_number_integer() && !v.is_number_unsigned() &&
               v.get<std::int64_t>() >= std::numeric_limits<std::int32_t>::min()) {
      x = v.get<std::int64_t>();
    } else {
      return parent.fail(DirErrc::BadValue, "params");
    }
    out.emplace(k, static_cast<std::int32_t>(x));
  }
}

void read_body(const Json& j, ConsensusBody& b, ObjectReader& parent) {
  ObjectReader r(j, "body");
  b.valid_after = r.u64("valid_after", 0, kMaxTime);
  b.fresh_until = r.u64("fresh_until", 0, kMaxTime);
  b.valid_until = r.u64("valid_until", 0, kMaxTime);
  if (r.ok() && !(b.valid_after < b.fresh_until && b.fresh_until < b.valid_until))
    r.fail(DirErrc::BadValue, "valid_until");
  if (const Json* p = r.get("params", Json::value_t::object)) read_params(*p, b.params, r);
  if (const Json* a = r.get("routers", Json::value_t::array)) {
    if (a->size() > kMaxRouters) r.fail(DirErrc::TooManyEntries, "routers");
    b.routers.reserve(r.ok() ? a->size() : 0);
    for (const Json& e : *a) {
      if (!r.ok()) break;
      RouterEntry entry;
      read_router(e, entry, r);
      if (r.ok() && !b.routers.empty() && !(b.routers.back().identity < entry.identity))
        r.fail(DirErrc::NotSorted, "routers");
      b.routers.push_back(std::move(entry));
    }
  }
  if (r.has("bandwidth_weights")) {
    if (const Json* w = r.get("bandwidth_weights", Json::value_t::object)) {
      BandwidthWeights bw;
      read_weights(*w, bw, r);
      b.bandwidth_weights = bw;
    }
  }
  r.finish();
  if (!r.ok()) parent.fail(r.error()->code, r.error()->field);
}

void read_signature(const Json& j, ConsensusSignature& s, ObjectReader& parent) {
  ObjectReader r(j, "signatures");
  s.identity = r.fixed<32>("identity");
  s.signing_cert = r.blob("signing_cert", kMaxSigningCertLen);
  s.signature = r.fixed<64>("signature");
  r.finish();
  if (!r.ok()) parent.fail(r.error()->code, r.error()->field);
}


}  // namespace

std::string encode_consensus_body(const ConsensusBody& body) { return detail::dump(body_json(body)); }

std::vector<std::uint8_t> consensus_signed_bytes(const ConsensusBody& body) {
  return detail::prefixed_bytes(kConsensusPrefix, encode_consensus_body(body));
}

std::array<std::uint8_t, 32> consensus_body_digest(const ConsensusBody& body) {
  return crypto::sha256(consensus_signed_bytes(body));
}

std::string encode_consensus(const Consensus& c) {
  Json sigs = Json::array();
  for (const auto& s : c.signatures) sigs.push_back(signature_json(s));
  return detail::dump(Json{{"body", body_json(c.body)}, {"signatures", std::move(sigs)}});
}

DirResult<Consensus> parse_consensus(std::string_view text) {
  auto parsed = detail::parse_json(text, kMaxConsensusSize);
  if (!parsed) return Unexpected<DirError>{parsed.error()};
  ObjectReader r(*parsed, "consensus");
  Consensus c;
  if (const Json* b = r.get("body", Json::value_t::object)) read_body(*b, c.body, r);
  if (const Json* a = r.get("signatures", Json::value_t::array)) {
    if (a->size() > kMaxSignatures) r.fail(DirErrc::TooManyEntries, "signatures");
    for (const Json& e : *a) {
      if (!r.ok()) break;
      ConsensusSignature s;
      read_signature(e, s, r);
      c.signatures.push_back(std::move(s));
    }
  }
  r.finish();
  if (!r.ok()) return detail::failed(r);
  return c;
}

std::string encode_detached_signature(const DetachedSignature& s) {
  Json j = signature_json(s.signature);
  j["digest"] = bytes::base64_encode(s.digest);
  return detail::dump(j);
}

DirResult<DetachedSignature> parse_detached_signature(std::string_view text) {
  auto parsed = detail::parse_json(text, kMaxDetachedSignatureSize);
  if (!parsed) return Unexpected<DirError>{parsed.error()};
  ObjectReader r(*parsed, "signature");
  DetachedSignature s;
  s.digest = r.fixed<32>("digest");
  s.signature.identity = r.fixed<32>("identity");
  s.signature.signing_cert = r.blob("signing_cert", kMaxSigningCertLen);
  s.signature.signature = r.fixed<64>("signature");
  r.finish();
  if (!r.ok()) return detail::failed(r);
  return s;
}

}  // namespace conflux::dir
