// A managed transport's stdout is hostile input (a transport binary we did
// not write): common/pt's PtMessages over arbitrary bytes. Input:
// [mode and split seed][bytes...]. Checks:
//  - reading in one piece and in pseudo-random pieces gives the same
//    messages and the same error;
//  - every method is for a transport asked for, with a port, in order
//    (after VERSION, before DONE);
//  - the credentials encoder, fed the methods' ARGS split on ',' and '=',
//    stays within RFC 1929's 255 + 255 bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/pt/pt_env.hpp"
#include "conflux/pt/pt_messages.hpp"

namespace {

using namespace conflux::pt;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string summary(const PtMessage& m) {
  struct V {
    std::string operator()(const PtVersion&) const { return "V"; }
    std::string operator()(const PtMethod& x) const {
      return "M" + x.transport + "|" + x.protocol + "|" + x.host + "|" + std::to_string(x.port) + "|" + x.args;
    }
    std::string operator()(const PtMethodError& x) const { return "E" + x.transport + "|" + x.message; }
    std::string operator()(const PtDone&) const { return "D"; }
    std::string operator()(const PtProxy& x) const { return "P" + std::to_string(x.ok) + x.message; }
    std::string operator()(const PtLog& x) const { return "L" + x.severity + "|" + x.message; }
    std::string operator()(const PtStatus& x) const { return "S" + std::to_string(x.fields.size()); }
    std::string operator()(const PtIgnored&) const { return "I"; }
  };
  return std::visit(V{}, m);
}

std::vector<std::string> run(PtMode mode, const std::uint8_t* data, std::size_t size, std::uint8_t seed) {
  PtMessages m(mode, {"obfs4", "meek_lite"});
  std::vector<std::string> out;
  std::uint32_t lcg = seed;
  std::size_t at = 0;
  bool saw_version = false;
  while (at < size) {
    std::size_t n = size - at;
    if (seed != 0) {
      lcg = lcg * 1103515245u + 12345u;
      n = std::min<std::size_t>(n, 1 + (lcg >> 16) % 32);
    }
    auto r = m.feed(std::span(data + at, n));
    at += n;
    for (const auto& msg : r.messages) {
      if (std::holds_alternative<PtVersion>(msg)) saw_version = true;
      if (const auto* meth = std::get_if<PtMethod>(&msg)) {
        check(saw_version && meth->port != 0 && (meth->transport == "obfs4" || meth->transport == "meek_lite"));
        std::vector<std::pair<std::string, std::string>> args;
        std::size_t i = 0;
        while (i < meth->args.size() && args.size() < 64) {
          auto comma = meth->args.find(',', i);
          if (comma == std::string::npos) comma = meth->args.size();
          const std::string kv = meth->args.substr(i, comma - i);
          const auto eq = kv.find('=');
          args.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
          i = comma + 1;
        }
        if (auto c = pt_socks_credentials(args)) check(c->username.size() <= 255 && c->password.size() <= 255);
      }
      out.push_back(summary(msg));
    }
    if (r.error) {
      out.push_back("error:" + r.error->message);
      break;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const PtMode mode = (data[0] & 1) != 0 ? PtMode::Server : PtMode::Client;
  const std::uint8_t seed = static_cast<std::uint8_t>(data[0] >> 1);
  check(run(mode, data + 1, size - 1, 0) == run(mode, data + 1, size - 1, seed == 0 ? 1 : seed));
  return 0;
}
