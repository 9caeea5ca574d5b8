#include "conflux/dir/tor_key_cert.hpp"

#include <algorithm>
#include <array>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

using tordoc::Item;

constexpr std::string_view kFirst = "dir-key-certificate-version";
constexpr std::string_view kLast = "dir-key-certification";

DirResult<crypto::RsaPublicKey> rsa_key(const Item& item, std::string_view kw) {
  if (!item.args.empty() || !item.object || item.object->type != "RSA PUBLIC KEY")
    return dir_fail(DirErrc::BadValue, kw);
  auto key = crypto::RsaPublicKey::from_pkcs1_der(item.object->data);
  if (!key) return dir_fail(DirErrc::BadValue, kw);
  return std::move(*key);
}

DirResult<std::uint64_t> time_of(const Item& item, std::string_view kw) {
  if (item.args.size() != 2 || item.object) return dir_fail(DirErrc::BadValue, kw);
  auto t = tordoc::parse_time(item.args[0], item.args[1]);
  if (!t) return dir_fail(DirErrc::BadValue, kw);
  return *t;
}

struct CertItems {
  const Item* fingerprint;
  const Item* identity;
  const Item* published;
  const Item* expires;
  const Item* signing;
  const Item* crosscert;
  const Item* address;
};

DirResult<CertItems> find_items(const Item* first, const Item* last) {
  CertItems c{};
  const std::array<std::pair<std::string_view, const Item**>, 6> required = {{
      {"fingerprint", &c.fingerprint},
      {"dir-identity-key", &c.identity},
      {"dir-key-published", &c.published},
      {"dir-key-expires", &c.expires},
      {"dir-signing-key", &c.signing},
      {"dir-key-crosscert", &c.crosscert},
  }};
  for (const auto& [kw, slot] : required) {
    auto item = tordoc::find_once(first, last, kw, true);
    if (!item) return dir_pass(item);
    *slot = *item;
  }
  auto address = tordoc::find_once(first, last, "dir-address", false);
  if (!address) return dir_pass(address);
  c.address = *address;
  return c;
}

// One certificate: items [first, last], `last` being its certification.
DirResult<AuthorityKeyCert> parse_one(std::string_view text, const Item* first, const Item* last) {
  if (first->args.size() != 1 || first->args[0] != "3" || first->object) return dir_fail(DirErrc::BadValue, kFirst);
  if (!last->args.empty() || !last->object || last->object->type != "SIGNATURE")
    return dir_fail(DirErrc::BadValue, kLast);
  auto items = find_items(first + 1, last);
  if (!items) return dir_pass(items);
  auto identity = rsa_key(*items->identity, "dir-identity-key");
  if (!identity) return dir_pass(identity);
  auto signing = rsa_key(*items->signing, "dir-signing-key");
  if (!signing) return dir_pass(signing);
  auto published = time_of(*items->published, "dir-key-published");
  if (!published) return dir_pass(published);
  auto expires = time_of(*items->expires, "dir-key-expires");
  if (!expires) return dir_pass(expires);

  const Item& fp = *items->fingerprint;
  auto fp_bytes = fp.args.size() == 1 && fp.args[0].size() == 40 ? bytes::from_hex(fp.args[0]) : std::nullopt;
  if (!fp_bytes || fp.object) return dir_fail(DirErrc::BadValue, "fingerprint");
  if (!std::equal(fp_bytes->begin(), fp_bytes->end(), identity->fingerprint().begin()))
    return dir_fail(DirErrc::CertMismatch, "fingerprint");

  // The signing key signs the identity key's digest: it agrees to speak for it.
  const Item& cross = *items->crosscert;
  if (!cross.args.empty() || !cross.object || (cross.object->type != "ID SIGNATURE" && cross.object->type != "SIGNATURE"))
    return dir_fail(DirErrc::BadValue, "dir-key-crosscert");
  if (!signing->verify_digest(identity->fingerprint(), cross.object->data))
    return dir_fail(DirErrc::BadSignature, "dir-key-crosscert");

  // The identity signs everything from the first keyword through the
  // certification's keyword line.
  const auto signed_text = text.substr(first->offset, last->offset + kLast.size() + 1 - first->offset);
  const auto digest = crypto::sha1({reinterpret_cast<const std::uint8_t*>(signed_text.data()), signed_text.size()});
  if (!identity->verify_digest(digest, last->object->data)) return dir_fail(DirErrc::BadSignature, kLast);

  std::optional<std::string> address;
  if (items->address != nullptr) {
    if (items->address->args.size() != 1 || items->address->object) return dir_fail(DirErrc::BadValue, "dir-address");
    address = std::string(items->address->args[0]);
  }
  return AuthorityKeyCert{std::move(*identity), std::move(*signing), *published, *expires, std::move(address),
                          std::string(text.substr(first->offset, last->end - first->offset))};
}

}  // namespace

DirResult<std::vector<AuthorityKeyCert>> parse_key_certs(std::string_view text) {
  if (text.size() > kMaxKeyCertsSize) return dir_fail(DirErrc::TooLarge);
  auto items = tordoc::tokenize(text);
  if (!items) return dir_pass(items);
  std::vector<AuthorityKeyCert> out;
  const Item* at = items->data();
  const Item* const end = at + items->size();
  if (at == end) return dir_fail(DirErrc::MissingField, kFirst);
  while (at != end) {
    if (at->keyword != kFirst) return dir_fail(DirErrc::MissingField, kFirst);
    const Item* last = std::find_if(at + 1, end, [](const Item& i) { return i.keyword == kLast || i.keyword == kFirst; });
    if (last == end || last->keyword != kLast) return dir_fail(DirErrc::MissingField, kLast);
    auto cert = parse_one(text, at, last);
    if (!cert) return dir_pass(cert);
    out.push_back(std::move(*cert));
    at = last + 1;
  }
  return out;
}

bool key_cert_current(const AuthorityKeyCert& c, std::uint64_t now, std::uint64_t skew) noexcept {
  return c.published <= now + skew && now < c.expires;
}

}  // namespace conflux::dir
