#include "conflux/netspec/test_files.hpp"

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"

namespace conflux::netspec {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a of the name, mixed with the seed: each file its own stream.
std::uint64_t file_key(std::uint64_t seed, std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return splitmix64(seed ^ h);
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void fill_test_bytes(std::uint64_t seed, std::string_view name, std::uint64_t offset, std::span<std::uint8_t> out) {
  const std::uint64_t key = file_key(seed, name);
  std::uint64_t block = offset / 8;
  unsigned skip = static_cast<unsigned>(offset % 8);
  std::size_t i = 0;
  while (i < out.size()) {
    const std::uint64_t v = splitmix64(key + block);
    for (unsigned b = skip; b < 8 && i < out.size(); ++b) out[i++] = static_cast<std::uint8_t>(v >> (8 * b));
    skip = 0;
    ++block;
  }
}

std::string to_hex_digest(const crypto::Sha256& hash) { return bytes::to_hex(hash.peek()); }

std::string index_html(const std::vector<IndexEntry>& files) {
  std::string rows;
  for (const auto& f : files)
    rows += "<tr><td><a href=\"/" + html_escape(f.name) + "\">" + html_escape(f.name) + "</a></td><td>" +
            std::to_string(f.size) + "</td><td><code>" + html_escape(f.sha256) + "</code></td></tr>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + std::string(kIndexTitle) +
         "</title>\n</head>\n<body style=\"margin:0;font-family:sans-serif\">\n"
         "<div id=\"block\" style=\"background:" + std::string(kIndexColour) +
         ";width:100%;height:400px;color:#fff;font-size:48px;display:flex;align-items:center;"
         "justify-content:center\">conflux-net</div>\n"
         "<p style=\"margin:16px\">Served by conflux-net's file server; fetched through the Conflux network when "
         "you see it through the proxy.</p>\n<table style=\"margin:16px\">\n"
         "<tr><th>file</th><th>bytes</th><th>SHA-256</th></tr>\n" + rows + "</table>\n</body>\n</html>\n";
}

}  // namespace conflux::netspec
