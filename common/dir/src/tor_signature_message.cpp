#include "conflux/dir/tor_signature_message.hpp"

#include <algorithm>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

constexpr std::string_view kTag = "conflux-tor-signature 1 ";
constexpr std::string_view kItemStart = "directory-signature ";

}  // namespace

std::string encode_tor_signature_message(const std::array<std::uint8_t, 32>& digest, const std::string& cert_text,
                                         const std::string& item) {
  return std::string(kTag) + bytes::to_hex(digest, true) + "\n" + cert_text + item;
}

std::optional<TorSignatureMessage> parse_tor_signature_message(std::string_view text) {
  if (text.size() > kMaxTorSignatureMessage || !text.starts_with(kTag)) return std::nullopt;
  const auto eol = text.find('\n');
  const auto item_at = text.find(kItemStart);
  if (eol == std::string_view::npos || item_at == std::string_view::npos || item_at < eol) return std::nullopt;
  auto digest = bytes::from_hex(text.substr(kTag.size(), eol - kTag.size()));
  if (!digest || digest->size() != 32) return std::nullopt;
  auto certs = parse_key_certs(text.substr(eol + 1, item_at - eol - 1));
  if (!certs || certs->size() != 1) return std::nullopt;
  const std::string_view item = text.substr(item_at);
  auto items = tordoc::tokenize(item);
  if (!items || items->size() != 1) return std::nullopt;
  const auto& i = (*items)[0];
  if (i.args.size() != 3 || i.args[0] != "sha256" || !i.object || i.object->type != "SIGNATURE") return std::nullopt;
  auto id = parse_hex_fingerprint(i.args[1]);
  auto sk = parse_hex_fingerprint(i.args[2]);
  if (!id || !sk || *id != (*certs)[0].v3ident() || *sk != (*certs)[0].signing_key_digest()) return std::nullopt;
  TorSignatureMessage m{{}, std::move((*certs)[0]), i.object->data, std::string(item)};
  std::copy(digest->begin(), digest->end(), m.digest.begin());
  return m;
}

}  // namespace conflux::dir
