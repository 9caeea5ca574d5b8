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

std::string encode_tor_signature_message(std::span<const std::uint8_t> digest, const std::string& cert_text,
                                         const std::string& item) {
  return std::string(kTag) + bytes::to_hex(digest, true) + "\n" + cert_text + item;
}

std::optional<TorSignatureMessage> parse_tor_signature_message(std::string_view text) {
  if (text.size() > kMaxTorSignatureMessage || !text.starts_with(kTag)) return std::nullopt;
  const auto eol = text.find('\n');
  const auto item_at = text.find(kItemStart);
  if (eol == std::string_view::npos || item_at == std::string_view::npos || item_at < eol) return std::nullopt;
  auto digest = bytes::from_hex(text.substr(kTag.size(), eol - kTag.size()));
  if (!digest || (digest->size() != 32 && digest->size() != 20)) return std::nullopt;
  const bool sha256 = digest->size() == 32;
  auto certs = parse_key_certs(text.substr(eol + 1, item_at - eol - 1));
  if (!certs || certs->size() != 1) return std::nullopt;
  const std::string_view item = text.substr(item_at);
  auto items = tordoc::tokenize(item);
  if (!items || items->size() != 1) return std::nullopt;
  const auto& i = (*items)[0];
  const std::size_t n = sha256 ? 3 : 2;  // the ns flavor's item names no algorithm
  if (i.args.size() != n || (sha256 && i.args[0] != "sha256") || !i.object || i.object->type != "SIGNATURE")
    return std::nullopt;
  auto id = parse_hex_fingerprint(i.args[n - 2]);
  auto sk = parse_hex_fingerprint(i.args[n - 1]);
  if (!id || !sk || *id != (*certs)[0].v3ident() || *sk != (*certs)[0].signing_key_digest()) return std::nullopt;
  return TorSignatureMessage{std::move(*digest), std::move((*certs)[0]), i.object->data, std::string(item)};
}

}  // namespace conflux::dir
