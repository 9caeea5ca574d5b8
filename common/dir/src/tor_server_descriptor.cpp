#include "conflux/dir/tor_server_descriptor.hpp"

#include <algorithm>
#include <charconv>

#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/x25519_to_ed25519.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

using tordoc::Item;

constexpr std::string_view kFirst = "router";
constexpr std::string_view kRsaSig = "router-signature";
constexpr std::string_view kEdSig = "router-sig-ed25519";
constexpr std::string_view kEdSigPrefix = "Tor router descriptor signature v1";

std::optional<std::uint16_t> port_of(std::string_view s) {
  std::uint16_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

template <std::size_t N>
std::optional<std::array<std::uint8_t, N>> key_of(std::string_view base64) {
  auto b = tordoc::decode_base64_padded(base64);
  if (!b || b->size() != N) return std::nullopt;
  std::array<std::uint8_t, N> out{};
  std::copy(b->begin(), b->end(), out.begin());
  return out;
}

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

struct Items {
  const Item* identity_cert;
  const Item* master_key;
  const Item* signing_key;
  const Item* ntor_key;
  const Item* ntor_crosscert;
  const Item* published;
  const Item* platform;
  const Item* proto;
  const Item* tunnelled;
};

DirResult<Items> find_items(const Item* first, const Item* last) {
  Items c{};
  const std::array<std::tuple<std::string_view, const Item**, bool>, 9> wanted = {{
      {"identity-ed25519", &c.identity_cert, true},
      {"master-key-ed25519", &c.master_key, false},
      {"signing-key", &c.signing_key, true},
      {"ntor-onion-key", &c.ntor_key, true},
      {"ntor-onion-key-crosscert", &c.ntor_crosscert, true},
      {"published", &c.published, true},
      {"platform", &c.platform, false},
      {"proto", &c.proto, false},
      {"tunnelled-dir-server", &c.tunnelled, false},
  }};
  for (const auto& [kw, slot, required] : wanted) {
    auto item = tordoc::find_once(first, last, kw, required);
    if (!item) return dir_pass(item);
    *slot = *item;
  }
  return c;
}

DirResult<cell::Ed25519Cert> cert_of(const Item& item, std::string_view kw) {
  if (!item.object || item.object->type != "ED25519 CERT") return dir_fail(DirErrc::BadValue, kw);
  auto cert = cell::decode_ed25519_cert(item.object->data);
  if (!cert) return dir_fail(DirErrc::BadCert, kw);
  return std::move(*cert);
}

// The router line: nickname, IPv4 address, ORPort, SOCKSPort (0), DirPort.
DirResult<TorServerDescriptor> router_line(const Item& r) {
  TorServerDescriptor d;
  if (r.args.size() != 5 || r.object || !valid_nickname(r.args[0])) return dir_fail(DirErrc::BadValue, kFirst);
  auto ip = parse_ipv4(r.args[1]);
  auto or_port = port_of(r.args[2]);
  auto dir_port = port_of(r.args[4]);
  if (!ip || !or_port || *or_port == 0 || !dir_port || !port_of(r.args[3])) return dir_fail(DirErrc::BadValue, kFirst);
  d.nickname = std::string(r.args[0]);
  d.ipv4 = *ip;
  d.or_port = *or_port;
  d.dir_port = *dir_port;
  return d;
}

// The Ed25519 side: identity certificate, master key, descriptor signature.
std::optional<DirError> check_ed25519(std::string_view text, const Item* first, const Item* ed_sig, const Items& it,
                                      std::uint64_t now, TorServerDescriptor& d) {
  auto cert = cert_of(*it.identity_cert, "identity-ed25519");
  if (!cert) return cert.error();
  if (cert->body.cert_type != cell::CertType::IdentityVSigning || !it.identity_cert->args.empty())
    return DirError{DirErrc::BadCert, "identity-ed25519"};
  auto signer = cell::verify_ed25519_cert(*cert, std::nullopt, now);
  if (!signer) return DirError{signer.error() == cell::CertError::Expired ? DirErrc::CertExpired : DirErrc::BadCert,
                               "identity-ed25519"};
  auto signing = cert->certified_ed25519_key();
  if (!signing) return DirError{DirErrc::BadCert, "identity-ed25519"};
  d.ed25519_identity = *signer;
  if (it.master_key != nullptr) {
    auto master = it.master_key->args.size() == 1 && !it.master_key->object ? key_of<32>(it.master_key->args[0])
                                                                           : std::nullopt;
    if (!master || *master != *signer) return DirError{DirErrc::CertMismatch, "master-key-ed25519"};
  }
  auto sig = ed_sig->args.size() == 1 && !ed_sig->object ? key_of<64>(ed_sig->args[0]) : std::nullopt;
  if (!sig) return DirError{DirErrc::BadValue, kEdSig};
  crypto::Sha256 h;
  h.update(bytes_of(kEdSigPrefix));
  h.update(bytes_of(text.substr(first->offset, ed_sig->offset + kEdSig.size() + 1 - first->offset)));
  const auto digest = h.peek();
  if (!crypto::ed25519_verify(*signing, digest, *sig)) return DirError{DirErrc::BadSignature, kEdSig};
  return std::nullopt;
}

// The ntor onion key, and its cross-certificate of the Ed25519 identity.
std::optional<DirError> check_ntor(const Items& it, std::uint64_t now, TorServerDescriptor& d) {
  auto key = it.ntor_key->args.size() == 1 && !it.ntor_key->object ? key_of<32>(it.ntor_key->args[0]) : std::nullopt;
  if (!key) return DirError{DirErrc::BadValue, "ntor-onion-key"};
  d.ntor_onion_key = *key;
  const auto& cc = *it.ntor_crosscert;
  if (cc.args.size() != 1 || (cc.args[0] != "0" && cc.args[0] != "1"))
    return DirError{DirErrc::BadValue, "ntor-onion-key-crosscert"};
  auto cert = cert_of(cc, "ntor-onion-key-crosscert");
  if (!cert) return cert.error();
  auto onion_ed = crypto::ed25519_from_x25519(*key, cc.args[0] == "1" ? 1 : 0);
  if (!onion_ed || cert->body.cert_type != cell::CertType::NtorOnionCrossCert)
    return DirError{DirErrc::BadCert, "ntor-onion-key-crosscert"};
  auto signer = cell::verify_ed25519_cert(*cert, *onion_ed, now);
  if (!signer) return DirError{DirErrc::BadSignature, "ntor-onion-key-crosscert"};
  if (cert->certified_ed25519_key() != d.ed25519_identity)
    return DirError{DirErrc::CertMismatch, "ntor-onion-key-crosscert"};
  return std::nullopt;
}

// The RSA side: the identity key, its fingerprint, the descriptor signature.
std::optional<DirError> check_rsa(std::string_view text, const Item* first, const Item* last, const Items& it,
                                  TorServerDescriptor& d) {
  const auto& sk = *it.signing_key;
  if (!sk.args.empty() || !sk.object || sk.object->type != "RSA PUBLIC KEY")
    return DirError{DirErrc::BadValue, "signing-key"};
  auto identity = crypto::RsaPublicKey::from_pkcs1_der(sk.object->data);
  if (!identity) return DirError{DirErrc::BadValue, "signing-key"};
  if (!last->args.empty() || !last->object || last->object->type != "SIGNATURE")
    return DirError{DirErrc::BadValue, kRsaSig};
  const auto signed_text = text.substr(first->offset, last->offset + kRsaSig.size() + 1 - first->offset);
  d.router_digest = crypto::sha1(bytes_of(signed_text));
  if (!identity->verify_digest(d.router_digest, last->object->data)) return DirError{DirErrc::BadSignature, kRsaSig};
  d.rsa_identity = identity->fingerprint();
  return std::nullopt;
}

// One descriptor: items [first, last], `last` being its router-signature.
DirResult<TorServerDescriptor> parse_one(std::string_view text, const Item* first, const Item* last,
                                         std::uint64_t now) {
  if (last - first < 2 || (last - 1)->keyword != kEdSig) return dir_fail(DirErrc::MissingField, kEdSig);
  auto d = router_line(*first);
  if (!d) return d;
  auto items = find_items(first + 1, last - 1);
  if (!items) return dir_pass(items);
  const auto& pub = *items->published;
  auto published = pub.args.size() == 2 ? tordoc::parse_time(pub.args[0], pub.args[1]) : std::nullopt;
  if (!published) return dir_fail(DirErrc::BadValue, "published");
  d->published = *published;
  if (auto e = check_ed25519(text, first, last - 1, *items, now, *d)) return Unexpected<DirError>{*e};
  if (auto e = check_ntor(*items, now, *d)) return Unexpected<DirError>{*e};
  if (auto e = check_rsa(text, first, last, *items, *d)) return Unexpected<DirError>{*e};
  auto facts = read_tor_relay_facts(std::span(first + 1, last - 1), d->or_port);
  if (!facts) return dir_pass(facts);
  d->facts = std::move(*facts);
  auto joined = [](const Item* item) {
    std::string out;
    if (item == nullptr) return out;
    for (auto a : item->args) out += (out.empty() ? "" : " ") + std::string(a);
    return out;
  };
  d->platform = joined(items->platform);
  d->protocols = joined(items->proto);
  d->tunnelled_dir_server = items->tunnelled != nullptr;
  d->text = std::string(text.substr(first->offset, last->end - first->offset));
  return d;
}

// One descriptor's text: tokenized alone, so that the blank line tor may
// leave after a descriptor (as /tor/server/all served one) is skipped.
DirResult<TorServerDescriptor> parse_chunk(std::string_view chunk, std::uint64_t now) {
  while (chunk.size() >= 2 && chunk.substr(chunk.size() - 2) == "\n\n") chunk.remove_suffix(1);
  auto items = tordoc::tokenize(chunk);
  if (!items) return dir_pass(items);
  const Item* first = items->data();
  const Item* const end = first + items->size();
  if (first == end || first->keyword != kFirst) return dir_fail(DirErrc::MissingField, kFirst);
  const Item* last = std::find_if(first + 1, end, [](const Item& i) { return i.keyword == kRsaSig; });
  if (last == end) return dir_fail(DirErrc::MissingField, kRsaSig);
  if (last + 1 != end) return dir_fail(DirErrc::BadSyntax, kRsaSig);  // text after the signature
  return parse_one(chunk, first, last, now);
}

DirResult<std::vector<TorServerDescriptor>> parse_all(std::string_view text, std::uint64_t now, std::size_t cap) {
  if (text.size() > cap) return dir_fail(DirErrc::TooLarge);
  if (!text.starts_with("router ")) return dir_fail(DirErrc::MissingField, kFirst);
  std::vector<TorServerDescriptor> out;
  std::size_t at = 0;
  while (at < text.size()) {
    auto next = text.find("\nrouter ", at);
    next = next == std::string_view::npos ? text.size() : next + 1;
    auto one = parse_chunk(text.substr(at, next - at), now);
    if (!one) return dir_pass(one);
    out.push_back(std::move(*one));
    at = next;
  }
  return out;
}

}  // namespace

DirResult<TorServerDescriptor> parse_tor_server_descriptor(std::string_view text, std::uint64_t now) {
  auto all = parse_all(text, now, kMaxTorServerDescriptorSize);
  if (!all) return dir_pass(all);
  if (all->size() != 1) return dir_fail(DirErrc::TooManyEntries, kFirst);
  return std::move(all->front());
}

DirResult<std::vector<TorServerDescriptor>> parse_tor_server_descriptors(std::string_view text, std::uint64_t now) {
  return parse_all(text, now, kMaxTorServerDescriptorsSize);
}

}  // namespace conflux::dir
