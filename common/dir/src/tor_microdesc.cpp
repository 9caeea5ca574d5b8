#include "conflux/dir/tor_microdesc.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

using tordoc::Item;

bool starts_microdesc(const Item& i) { return i.keyword == "onion-key"; }

DirResult<PolicySummary> policy(const Item& i, std::string_view kw) {
  if (i.args.size() != 2 || i.object) return dir_fail(DirErrc::BadValue, kw);
  const std::string text = std::string(i.args[0]) + " " + std::string(i.args[1]);
  auto p = parse_policy_summary(text);
  if (!p) return dir_fail(DirErrc::BadValue, kw);
  return *p;
}

DirResult<void*> key_items(const Item* first, const Item* last, TorMicrodesc& md) {
  auto ntor = tordoc::find_once(first, last, "ntor-onion-key", true);
  if (!ntor) return dir_pass(ntor);
  auto key = (*ntor)->args.size() == 1 ? tordoc::decode_base64_padded((*ntor)->args[0]) : std::nullopt;
  if (!key || key->size() != 32 || (*ntor)->object) return dir_fail(DirErrc::BadValue, "ntor-onion-key");
  std::copy(key->begin(), key->end(), md.ntor_onion_key.begin());
  if (starts_microdesc(*first)) {
    // The legacy RSA onion key, unused by ntor handshakes: optional since
    // proposal 350 (dir-spec: the item itself still starts the document), and
    // when present it must still be a key.
    if (!first->args.empty() || (first->object && (first->object->type != "RSA PUBLIC KEY" ||
                                                    !crypto::RsaPublicKey::from_pkcs1_der(first->object->data))))
      return dir_fail(DirErrc::BadValue, "onion-key");
  }
  for (const Item* i = first; i != last; ++i) {
    if (i->keyword != "id" || i->args.size() != 2 || i->args[0] != "ed25519") continue;
    auto id = tordoc::decode_base64_padded(i->args[1]);
    if (md.ed25519_id || !id || id->size() != 32) return dir_fail(DirErrc::BadValue, "id");
    md.ed25519_id.emplace();
    std::copy(id->begin(), id->end(), md.ed25519_id->begin());
  }
  return nullptr;
}

DirResult<TorMicrodesc> parse_one(std::string_view text, const Item* first, const Item* last) {
  TorMicrodesc md;
  const auto body = text.substr(first->offset, (last - 1)->end - first->offset);
  md.digest = crypto::sha256({reinterpret_cast<const std::uint8_t*>(body.data()), body.size()});
  md.text = std::string(body);
  auto keys = key_items(first, last, md);
  if (!keys) return dir_pass(keys);
  md.ipv4_policy.accept = false;
  md.ipv4_policy.ranges = {{1, 65535}};
  for (const Item* i = first; i != last; ++i) {
    if (i->keyword == "a") {
      std::pair<std::array<std::uint8_t, 16>, std::uint16_t> a{};
      if (i->args.size() != 1) return dir_fail(DirErrc::BadValue, "a");
      if (!md.ipv6 && tordoc::ipv6_orport(i->args[0], a)) md.ipv6 = a;
    } else if (i->keyword == "family") {
      if (!md.family.empty()) return dir_fail(DirErrc::DuplicateKey, "family");
      md.family.assign(i->args.begin(), i->args.end());
    }
  }
  auto p = tordoc::find_once(first, last, "p", false);
  if (!p) return dir_pass(p);
  if (*p != nullptr) {
    auto v = policy(**p, "p");
    if (!v) return dir_pass(v);
    md.ipv4_policy = std::move(*v);
  }
  auto p6 = tordoc::find_once(first, last, "p6", false);
  if (!p6) return dir_pass(p6);
  if (*p6 != nullptr) {
    auto v = policy(**p6, "p6");
    if (!v) return dir_pass(v);
    md.ipv6_policy = std::move(*v);
  }
  return md;
}

}  // namespace

DirResult<std::vector<TorMicrodesc>> parse_tor_microdescs(std::string_view text) {
  if (text.size() > kMaxMicrodescsSize) return dir_fail(DirErrc::TooLarge);
  auto items = tordoc::tokenize(text);
  if (!items) return dir_pass(items);
  // Where each document starts: at "onion-key", or at an "ntor-onion-key"
  // that is not the current document's first (one without an RSA key).
  std::vector<const Item*> starts;
  bool have_ntor = false;
  for (const Item& i : *items) {
    if (starts_microdesc(i) || (i.keyword == "ntor-onion-key" && (starts.empty() || have_ntor))) {
      starts.push_back(&i);
      have_ntor = false;
    } else if (starts.empty()) {
      return dir_fail(DirErrc::MissingField, "onion-key");
    }
    have_ntor = have_ntor || i.keyword == "ntor-onion-key";
  }
  if (starts.empty()) return dir_fail(DirErrc::MissingField, "onion-key");
  starts.push_back(items->data() + items->size());
  std::vector<TorMicrodesc> out;
  for (std::size_t k = 0; k + 1 < starts.size(); ++k) {
    auto md = parse_one(text, starts[k], starts[k + 1]);
    if (!md) return dir_pass(md);
    out.push_back(std::move(*md));
  }
  return out;
}

}  // namespace conflux::dir
