#include "conflux/dirnet/bandwidth_file_reader.hpp"

#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

namespace conflux::dirnet {
namespace {

void warn(const log::Sink& log, const std::string& message) {
  if (log) log(log::Severity::Warn, message);
}

// At most `cap` + 1 bytes, so that a file above the cap is known to be so
// without reading all of it; nullopt when it cannot be opened or read.
std::optional<std::string> read_capped(const std::string& path, std::size_t cap) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rbe"), &std::fclose);
  if (!f) return std::nullopt;
  std::string out;
  char buf[65536];
  while (out.size() <= cap) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
    out.append(buf, n);
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get()) != 0) return std::nullopt;
  return out;
}

}  // namespace

dir::MeasuredBandwidths read_bandwidth_file(const std::string& path, std::uint64_t now, const log::Sink& log) {
  auto text = read_capped(path, dir::kMaxBandwidthFileSize);
  if (!text) {
    warn(log, "Can't open bandwidth file at configured location: " + path);
    return {};
  }
  auto parsed = dir::parse_bandwidth_file(*text, now);
  if (!parsed) {
    const auto& e = parsed.error();
    std::string why = e.code == dir::DirErrc::TooLarge ? "larger than " + std::to_string(dir::kMaxBandwidthFileSize) + " bytes"
                      : e.code == dir::DirErrc::Expired ? "its timestamp is more than three days old"
                                                        : "its first line is not a timestamp";
    warn(log, "Bandwidth file " + path + " not used (" + why + "): no relay is measured");
    return {};
  }
  if (parsed->skipped_lines > 0)
    warn(log, "Bandwidth file " + path + ": " + std::to_string(parsed->skipped_lines) +
                  " relay lines skipped (malformed, repeated or past the caps); " +
                  std::to_string(parsed->kb.size()) + " relays measured");
  return std::move(*parsed);
}

}  // namespace conflux::dirnet
