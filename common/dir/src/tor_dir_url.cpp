#include "conflux/dir/tor_dir_url.hpp"

#include <algorithm>
#include <cctype>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::dir {
namespace {

// The items of `list` split at `sep`; nullopt when there are more than the cap.
std::optional<std::vector<std::string_view>> split(std::string_view list, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    if (out.size() == kMaxUrlListItems) return std::nullopt;
    const auto at = list.find(sep);
    out.push_back(list.substr(0, at));
    if (at == std::string_view::npos) break;
    list.remove_prefix(at + 1);
  }
  return out;
}

}  // namespace

std::string_view strip_z_suffix(std::string_view path, bool* zlib) noexcept {
  const bool z = path.size() > 2 && path.ends_with(".z");
  if (zlib != nullptr) *zlib = z;
  return z ? path.substr(0, path.size() - 2) : path;
}

std::optional<std::vector<crypto::RsaFingerprint>> parse_fp_list(std::string_view list) {
  auto items = split(list, '+');
  if (!items) return std::nullopt;
  std::vector<crypto::RsaFingerprint> out;
  for (auto item : *items) {
    auto f = parse_hex_fingerprint(item);
    if (!f) return std::nullopt;
    out.push_back(*f);
  }
  return out;
}

std::optional<std::vector<FpSk>> parse_fp_sk_list(std::string_view list) {
  auto items = split(list, '+');
  if (!items) return std::nullopt;
  std::vector<FpSk> out;
  for (auto item : *items) {
    if (item.size() != 81 || item[40] != '-') return std::nullopt;
    auto f = parse_hex_fingerprint(item.substr(0, 40));
    auto s = parse_hex_fingerprint(item.substr(41));
    if (!f || !s) return std::nullopt;
    out.emplace_back(*f, *s);
  }
  return out;
}

std::optional<std::vector<std::string>> parse_microdesc_digests(std::string_view list) {
  auto items = split(list, '-');
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  for (auto item : *items) {
    // tor's caches skip a digest that does not decode (and answer 404 when
    // nothing is left), as tor does.
    auto b = item.size() == 43 ? bytes::base64_decode(item) : std::nullopt;
    if (b && b->size() == 32) out.emplace_back(item);
  }
  return out;
}

std::optional<std::vector<std::string>> parse_authority_prefixes(std::string_view list) {
  auto items = split(list, '+');
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  for (auto item : *items) {
    if (item.empty() || item.size() > 40 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    std::string up(item);
    std::transform(up.begin(), up.end(), up.begin(), [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
    out.push_back(std::move(up));
  }
  return out;
}

bool signed_by_enough(const std::vector<crypto::RsaFingerprint>& signers, const std::vector<std::string>& wanted) {
  std::vector<std::string> hex;
  hex.reserve(signers.size());
  for (const auto& s : signers) hex.push_back(bytes::to_hex(s, true));
  const std::size_t need = wanted.size() / 2 + 1;
  std::size_t have = 0;
  for (const auto& w : wanted)
    if (std::any_of(hex.begin(), hex.end(), [&](const std::string& h) { return h.starts_with(w); })) ++have;
  return have >= need;
}

}  // namespace conflux::dir
