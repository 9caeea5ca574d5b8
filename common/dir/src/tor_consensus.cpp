#include "conflux/dir/tor_consensus.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

using tordoc::Item;
using Span = std::pair<const Item*, const Item*>;

constexpr std::string_view kSignature = "directory-signature";

template <class Int>
std::optional<Int> number(std::string_view s) {
  Int v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "K=V" arguments, V a 32-bit integer, K unique.
DirResult<std::map<std::string, std::int32_t>> key_values(const Item& item, std::string_view kw) {
  std::map<std::string, std::int32_t> out;
  for (auto a : item.args) {
    const auto eq = a.find('=');
    auto v = eq == std::string_view::npos ? std::nullopt : number<std::int32_t>(a.substr(eq + 1));
    if (!v || eq == 0 || !out.emplace(std::string(a.substr(0, eq)), *v).second) return dir_fail(DirErrc::BadValue, kw);
  }
  return out;
}

std::string joined(const Item& item) {
  std::string out;
  for (auto a : item.args) out += (out.empty() ? "" : " ") + std::string(a);
  return out;
}

DirResult<std::uint64_t> time_item(const Item* first, const Item* last, std::string_view kw) {
  auto item = tordoc::find_once(first, last, kw, true);
  if (!item) return dir_pass(item);
  auto t = (*item)->args.size() == 2 ? tordoc::parse_time((*item)->args[0], (*item)->args[1]) : std::nullopt;
  if (!t) return dir_fail(DirErrc::BadValue, kw);
  return *t;
}

DirResult<void*> parse_preamble(Span s, TorConsensus& c) {
  const Item& version = *s.first;
  if (version.keyword != "network-status-version" || version.offset != 0 || version.args.empty() ||
      version.args[0] != "3" || version.args.size() > 2)
    return dir_fail(DirErrc::BadValue, "network-status-version");
  if (version.args.size() == 2 && version.args[1] != "microdesc") return dir_fail(DirErrc::BadValue, "network-status-version");
  c.flavor = version.args.size() == 2 ? ConsensusFlavor::Microdesc : ConsensusFlavor::Ns;
  auto status = tordoc::find_once(s.first, s.second, "vote-status", true);
  if (!status) return dir_pass(status);
  if ((*status)->args.size() != 1 || (*status)->args[0] != "consensus") return dir_fail(DirErrc::BadValue, "vote-status");
  auto method = tordoc::find_once(s.first, s.second, "consensus-method", true);
  if (!method) return dir_pass(method);
  auto m = (*method)->args.size() == 1 ? number<std::uint32_t>((*method)->args[0]) : std::nullopt;
  if (!m) return dir_fail(DirErrc::BadValue, "consensus-method");
  c.consensus_method = *m;
  auto va = time_item(s.first, s.second, "valid-after");
  auto fu = time_item(s.first, s.second, "fresh-until");
  auto vu = time_item(s.first, s.second, "valid-until");
  if (!va) return dir_pass(va);
  if (!fu) return dir_pass(fu);
  if (!vu) return dir_pass(vu);
  if (!(*va < *fu && *fu <= *vu)) return dir_fail(DirErrc::BadValue, "valid-until");
  c.valid_after = *va;
  c.fresh_until = *fu;
  c.valid_until = *vu;
  auto flags = tordoc::find_once(s.first, s.second, "known-flags", true);
  if (!flags) return dir_pass(flags);
  c.known_flags.assign((*flags)->args.begin(), (*flags)->args.end());
  auto params = tordoc::find_once(s.first, s.second, "params", false);
  if (!params) return dir_pass(params);
  if (*params != nullptr) {
    auto kv = key_values(**params, "params");
    if (!kv) return dir_pass(kv);
    c.params = std::move(*kv);
  }
  for (auto [kw, out] : {std::pair{"recommended-client-protocols", &c.recommended_client_protocols},
                         std::pair{"required-client-protocols", &c.required_client_protocols}}) {
    auto item = tordoc::find_once(s.first, s.second, kw, false);
    if (!item) return dir_pass(item);
    if (*item != nullptr) *out = joined(**item);
  }
  return nullptr;
}

// "dir-source nickname identity address IP dirport orport".
DirResult<void*> parse_dir_sources(Span s, TorConsensus& c) {
  for (const Item* i = s.first; i != s.second; ++i) {
    if (i->keyword != "dir-source") continue;
    if (i->args.size() != 6) return dir_fail(DirErrc::BadValue, "dir-source");
    auto id = parse_hex_fingerprint(i->args[1]);
    auto dir_port = number<std::uint16_t>(i->args[4]);
    auto or_port = number<std::uint16_t>(i->args[5]);
    if (!id || !dir_port || !or_port) return dir_fail(DirErrc::BadValue, "dir-source");
    c.dir_sources.push_back({std::string(i->args[0]), *id, std::string(i->args[3]), *dir_port, *or_port});
  }
  return nullptr;
}

bool ipv4_of(std::string_view s, std::array<std::uint8_t, 4>& out) {
  const std::string z(s);
  in_addr a{};
  if (::inet_pton(AF_INET, z.c_str(), &a) != 1) return false;
  std::memcpy(out.data(), &a, 4);
  return true;
}

// The "r" line; the microdesc flavor has no descriptor digest.
DirResult<TorRouterStatus> router_line(const Item& r, ConsensusFlavor flavor) {
  const std::size_t n = flavor == ConsensusFlavor::Microdesc ? 7 : 8;
  if (r.args.size() != n) return dir_fail(DirErrc::BadValue, "r");
  TorRouterStatus st;
  st.nickname = std::string(r.args[0]);
  auto id = bytes::base64_decode(r.args[1]);
  const std::size_t t = n - 5;  // the date's index
  auto published = tordoc::parse_time(r.args[t], r.args[t + 1]);
  auto or_port = number<std::uint16_t>(r.args[t + 3]);
  auto dir_port = number<std::uint16_t>(r.args[t + 4]);
  if (st.nickname.empty() || st.nickname.size() > 19 || !id || id->size() != 20 || !published ||
      !ipv4_of(r.args[t + 2], st.ipv4) || !or_port || !dir_port)
    return dir_fail(DirErrc::BadValue, "r");
  std::copy(id->begin(), id->end(), st.identity.begin());
  if (flavor == ConsensusFlavor::Ns) {
    auto digest = bytes::base64_decode(r.args[2]);
    if (!digest || digest->size() != 20) return dir_fail(DirErrc::BadValue, "r");
    std::copy(digest->begin(), digest->end(), st.descriptor_digest.begin());
  }
  st.published = *published;
  st.or_port = *or_port;
  st.dir_port = *dir_port;
  return st;
}

DirResult<void*> router_detail(const Item& i, TorRouterStatus& st, bool& seen_m, bool& seen_s) {
  if (i.keyword == "a") {
    std::pair<std::array<std::uint8_t, 16>, std::uint16_t> a{};
    if (i.args.size() != 1) return dir_fail(DirErrc::BadValue, "a");
    if (!st.ipv6 && tordoc::ipv6_orport(i.args[0], a)) st.ipv6 = a;  // IPv4 "a" lines and later ones are not used
  } else if (i.keyword == "m") {
    auto d = i.args.size() == 1 ? bytes::base64_decode(i.args[0]) : std::nullopt;
    if (seen_m || !d || d->size() != 32) return dir_fail(DirErrc::BadValue, "m");
    std::copy(d->begin(), d->end(), st.microdesc_digest.begin());
    seen_m = true;
  } else if (i.keyword == "s") {
    if (seen_s) return dir_fail(DirErrc::DuplicateKey, "s");
    st.flags.assign(i.args.begin(), i.args.end());
    if (!std::is_sorted(st.flags.begin(), st.flags.end())) return dir_fail(DirErrc::NotSorted, "s");
    seen_s = true;
  } else if (i.keyword == "v") {
    st.version = joined(i);
  } else if (i.keyword == "pr") {
    st.protocols = joined(i);
  } else if (i.keyword == "w") {
    for (auto a : i.args) {
      if (a.rfind("Bandwidth=", 0) == 0) {
        auto b = number<std::uint64_t>(a.substr(10));
        if (!b) return dir_fail(DirErrc::BadValue, "w");
        st.bandwidth = *b;
      } else if (a == "Unmeasured=1") {
        st.unmeasured = true;
      }
    }
  }
  return nullptr;  // other keywords: later additions tor would ignore too
}

DirResult<void*> parse_routers(Span s, TorConsensus& c) {
  for (const Item* i = s.first; i != s.second;) {
    if (i->keyword != "r") return dir_fail(DirErrc::BadValue, "r");
    if (c.routers.size() == kMaxTorRouters) return dir_fail(DirErrc::TooManyEntries, "r");
    auto st = router_line(*i, c.flavor);
    if (!st) return dir_pass(st);
    bool seen_m = false, seen_s = false;
    for (++i; i != s.second && i->keyword != "r"; ++i) {
      auto ok = router_detail(*i, *st, seen_m, seen_s);
      if (!ok) return ok;
    }
    if (!seen_s) return dir_fail(DirErrc::MissingField, "s");
    if (c.flavor == ConsensusFlavor::Microdesc && !seen_m) return dir_fail(DirErrc::MissingField, "m");
    if (!c.routers.empty() && !(c.routers.back().identity < st->identity)) return dir_fail(DirErrc::NotSorted, "r");
    c.routers.push_back(std::move(*st));
  }
  return nullptr;
}

DirResult<void*> parse_signatures(Span s, TorConsensus& c) {
  for (const Item* i = s.first; i != s.second; ++i) {
    if (i->keyword != kSignature) return dir_fail(DirErrc::BadValue, kSignature);
    if (i->args.size() < 2 || i->args.size() > 3 || !i->object || i->object->type != "SIGNATURE")
      return dir_fail(DirErrc::BadValue, kSignature);
    const bool has_alg = i->args.size() == 3;
    if (has_alg && i->args[0] != "sha1" && i->args[0] != "sha256") continue;  // an algorithm we do not know: skipped, as tor does
    auto id = parse_hex_fingerprint(i->args[has_alg ? 1 : 0]);
    auto key = parse_hex_fingerprint(i->args[has_alg ? 2 : 1]);
    if (!id || !key) return dir_fail(DirErrc::BadValue, kSignature);
    c.signatures.push_back({has_alg && i->args[0] == "sha256", *id, *key, i->object->data});
  }
  return nullptr;
}

const Item* first_of(const Item* first, const Item* last, std::string_view kw) {
  return std::find_if(first, last, [kw](const Item& i) { return i.keyword == kw; });
}

}  // namespace

bool TorRouterStatus::has_flag(std::string_view f) const {
  return std::find(flags.begin(), flags.end(), f) != flags.end();
}

DirResult<TorConsensus> parse_tor_consensus(std::string_view text) {
  if (text.size() > kMaxTorConsensusSize) return dir_fail(DirErrc::TooLarge);
  tordoc::Limits limits;
  limits.max_items = kMaxTorRouters * 8 + 1000;
  auto items = tordoc::tokenize(text, limits);
  if (!items) return dir_pass(items);
  if (items->empty()) return dir_fail(DirErrc::MissingField, "network-status-version");
  const Item* const begin = items->data();
  const Item* const end = begin + items->size();
  const Item* sigs = first_of(begin, end, kSignature);
  const Item* footer = first_of(begin, sigs, "directory-footer");
  const Item* routers = first_of(begin, footer, "r");
  const Item* sources = first_of(begin, routers, "dir-source");
  if (sigs == end) return dir_fail(DirErrc::MissingField, kSignature);
  if (footer == sigs) return dir_fail(DirErrc::MissingField, "directory-footer");

  TorConsensus c;
  for (auto r : {parse_preamble({begin, sources}, c), parse_dir_sources({sources, routers}, c),
                 parse_routers({routers, footer}, c), parse_signatures({sigs, end}, c)})
    if (!r) return dir_pass(r);
  auto weights = tordoc::find_once(footer, sigs, "bandwidth-weights", false);
  if (!weights) return dir_pass(weights);
  if (*weights != nullptr) {
    auto kv = key_values(**weights, "bandwidth-weights");
    if (!kv) return dir_pass(kv);
    c.bandwidth_weights = std::move(*kv);
  }
  const auto signed_part = text.substr(0, sigs->offset + kSignature.size() + 1);
  const std::span<const std::uint8_t> signed_bytes(reinterpret_cast<const std::uint8_t*>(signed_part.data()),
                                                   signed_part.size());
  c.signed_sha1 = crypto::sha1(signed_bytes);
  c.signed_sha256 = crypto::sha256(signed_bytes);
  return c;
}

DirResult<std::size_t> verify_tor_consensus(const TorConsensus& c, const std::vector<AuthorityKeyCert>& certs,
                                            const std::vector<crypto::RsaFingerprint>& trusted, std::uint64_t now,
                                            std::uint64_t skew) {
  if (trusted.empty()) return dir_fail(DirErrc::NoAuthorities);
  if (now + skew < c.valid_after) return dir_fail(DirErrc::FromFuture);
  if (now > c.valid_until + skew) return dir_fail(DirErrc::Expired);
  std::vector<crypto::RsaFingerprint> counted;
  for (const auto& sig : c.signatures) {
    if (std::find(trusted.begin(), trusted.end(), sig.v3ident) == trusted.end()) continue;
    if (std::find(counted.begin(), counted.end(), sig.v3ident) != counted.end()) continue;
    const auto cert = std::find_if(certs.begin(), certs.end(), [&](const AuthorityKeyCert& k) {
      return k.v3ident() == sig.v3ident && k.signing_key_digest() == sig.signing_key_digest &&
             key_cert_current(k, now, skew);
    });
    if (cert == certs.end()) continue;
    const bool ok = sig.sha256 ? cert->signing.verify_digest(c.signed_sha256, sig.signature)
                               : cert->signing.verify_digest(c.signed_sha1, sig.signature);
    if (ok) counted.push_back(sig.v3ident);
  }
  std::size_t distinct_trusted = 0;
  for (std::size_t i = 0; i < trusted.size(); ++i)
    distinct_trusted += std::find(trusted.begin(), trusted.begin() + static_cast<std::ptrdiff_t>(i), trusted[i]) ==
                        trusted.begin() + static_cast<std::ptrdiff_t>(i);
  if (2 * counted.size() <= distinct_trusted) return dir_fail(DirErrc::NotEnoughSignatures);
  return counted.size();
}

}  // namespace conflux::dir
