// A relay as a tor directory cache, without sockets: what DirRoutes answers
// at tor's paths from a TorDirMirror filled with documents a stock tor
// 0.4.9 network served (tests/data/tor), as tor's dircache.c answers; the
// resource lists of tor's URLs (dir/tor_dir_url.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_dir_url.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/tor_dir_mirror.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"

using namespace conflux;
using namespace conflux::dirnet;

namespace {

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(CONFLUX_TEST_DATA_DIR) + "/tor/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The cache as the relay's fetcher leaves it after one round.
TorDirCache stock_cache() {
  TorDirCache c;
  auto certs = dir::parse_key_certs(read_data("keys-all.txt"));
  REQUIRE(certs);
  c.certs = *certs;
  auto mds = dir::parse_tor_microdescs(read_data("microdescs.txt"));
  REQUIRE(mds);
  for (auto& md : *mds) c.microdescs.emplace(md.digest, md);
  c.consensus_text = read_data("consensus-microdesc.txt");
  return c;
}

dir::TorConsensus parsed(const std::string& text) {
  auto c = dir::parse_tor_consensus(text);
  REQUIRE(c);
  return *c;
}

DirReply get(DirRoutes& r, const std::string& path, std::uint64_t now) { return r.handle(HttpMethod::Get, path, "", now); }

// A relay's DirRoutes over a TorDirMirror filled from `cache`, as the relay
// wires them: a directory source in memory. Not movable: the routes point
// at the mirror.
struct ServedMirror {
  const TorDirCache cache;
  TorDirMirror mirror;
  DirRoutes routes;
  explicit ServedMirror(TorDirCache held) : cache(std::move(held)) {
    routes.set_tor_mirror(&mirror);
    REQUIRE(mirror.update(cache));
  }
  ServedMirror(const ServedMirror&) = delete;
  ServedMirror& operator=(const ServedMirror&) = delete;
  DirReply get(const std::string& path, std::uint64_t now) { return routes.handle(HttpMethod::Get, path, "", now); }
};

const std::string kConsensus(dir::kTorConsensusMicrodesc);

}  // namespace

TEST_CASE("tor dir URLs: fingerprint, fp-sk, digest and authority lists", "[dirnet][tor][mirror]") {
  const std::string a(40, 'A'), b(40, 'b');
  auto fps = dir::parse_fp_list(a + "+" + b);
  REQUIRE(fps);
  REQUIRE(fps->size() == 2);
  CHECK((*fps)[1][0] == 0xbb);
  CHECK_FALSE(dir::parse_fp_list(a + "+"));
  CHECK_FALSE(dir::parse_fp_list(a.substr(1)));
  auto sk = dir::parse_fp_sk_list(a + "-" + b);
  REQUIRE(sk);
  CHECK((*sk)[0].first[0] == 0xaa);
  CHECK((*sk)[0].second[0] == 0xbb);
  CHECK_FALSE(dir::parse_fp_sk_list(a + b));
  CHECK_FALSE(dir::parse_fp_sk_list(a + "-" + b + "+" + a));

  const std::string d = bytes::base64_encode(std::vector<std::uint8_t>(32, 7));
  auto ds = dir::parse_microdesc_digests(d + "-AAAA-" + d);
  REQUIRE(ds);
  CHECK(*ds == std::vector<std::string>{d, d});  // the malformed one left out, as tor does

  auto w = dir::parse_authority_prefixes("7af6+db8eb34b");
  REQUIRE(w);
  CHECK(*w == std::vector<std::string>{"7AF6", "DB8EB34B"});
  CHECK_FALSE(dir::parse_authority_prefixes("7AF6+"));
  CHECK_FALSE(dir::parse_authority_prefixes("XYZ"));
  CHECK_FALSE(dir::parse_authority_prefixes(std::string(41, 'A')));

  std::string many = "AB";
  for (std::size_t i = 1; i < dir::kMaxUrlListItems + 1; ++i) many += "+AB";
  CHECK_FALSE(dir::parse_authority_prefixes(many));

  crypto::RsaFingerprint s1{}, s2{};
  s1.fill(0x7a);
  s2.fill(0xdb);
  CHECK(dir::signed_by_enough({s1, s2}, {"7A", "DB", "00"}));  // 2 of 3
  CHECK_FALSE(dir::signed_by_enough({s1}, {"7A", "DB", "00"}));
  CHECK_FALSE(dir::signed_by_enough({s1}, {"7A", "DB"}));  // needs 2 of 2
  CHECK(dir::strip_z_suffix("/tor/keys/all.z") == "/tor/keys/all");
  CHECK(dir::strip_z_suffix(".z") == ".z");
}

TEST_CASE("tor dir mirror: nothing held is 404 at every path", "[dirnet][tor][mirror]") {
  TorDirMirror m;
  DirRoutes routes;
  CHECK(get(routes, kConsensus, 0).status == 404);  // not a cache at all
  routes.set_tor_mirror(&m);
  CHECK(get(routes, kConsensus, 0).status == 404);
  CHECK(get(routes, std::string(dir::kTorKeysAll), 0).status == 404);
  CHECK(get(routes, std::string(dir::kTorKeysAuthority), 0).status == 404);  // only an authority's
  CHECK(get(routes, std::string(dir::kTorConsensusSignature), 0).status == 404);
  CHECK_FALSE(m.update(TorDirCache{}));  // no consensus text: nothing changes
  CHECK_FALSE(m.has_consensus());
}

TEST_CASE("tor dir mirror: the consensus as tor's caches serve it", "[dirnet][tor][mirror]") {
  ServedMirror served(stock_cache());
  const std::string& text = served.cache.consensus_text;
  const auto c = parsed(text);
  const std::uint64_t now = c.valid_after + 10;
  CHECK(served.mirror.valid_after() == c.valid_after);

  const auto plain = served.get(kConsensus, now);
  REQUIRE(plain.status == 200);
  CHECK(plain.body == text);
  // What a 0.4.9 client asks for: its authorities' v3ident prefixes and ".z".
  std::string signers;
  for (const auto& s : c.signatures) signers += (signers.empty() ? "" : "+") + bytes::to_hex(s.v3ident, true);
  CHECK(served.get(kConsensus + "/" + signers + ".z", now).body == text);
  CHECK(served.get(kConsensus + "/7AF6249E+DB8EB34B+0000.z", now).status == 200);  // 2 of 3 signed
  const auto unsigned_by = served.get(kConsensus + "/0000+1111+7AF6.z", now);
  CHECK(unsigned_by.status == 404);
  CHECK(unsigned_by.body.starts_with("Consensus not signed by sufficient number"));
  CHECK(served.get(kConsensus + "/nothex", now).status == 404);
  // Reasonably live: up to a day past valid-until, and not more than a day early.
  CHECK(served.get(kConsensus, c.valid_until + 86400).status == 200);
  CHECK(served.get(kConsensus, c.valid_until + 86401).body == "Consensus is too old\n");
  CHECK(served.get(kConsensus, c.valid_after - 86401).body == "Consensus is too new\n");
}

TEST_CASE("tor dir mirror: key certificates by all, fp and fp-sk", "[dirnet][tor][mirror]") {
  ServedMirror served(stock_cache());
  const auto all = served.get(std::string(dir::kTorKeysAll) + ".z", 0);
  REQUIRE(all.status == 200);
  auto certs = dir::parse_key_certs(all.body);
  REQUIRE(certs);
  CHECK(certs->size() == served.cache.certs.size());
  const auto& k = served.cache.certs[1];
  const std::string fp = bytes::to_hex(k.v3ident(), true), sk = bytes::to_hex(k.signing_key_digest(), true);
  CHECK(served.get(std::string(dir::kTorKeysFpPrefix) + fp, 0).body == k.text);
  CHECK(served.get(std::string(dir::kTorKeysFpSkPrefix) + fp + "-" + sk + ".z", 0).body == k.text);
  CHECK(served.get(std::string(dir::kTorKeysFpSkPrefix) + fp + "-" + fp, 0).status == 404);  // other signing key
  CHECK(served.get(std::string(dir::kTorKeysFpSkPrefix) + fp, 0).status == 400);
  CHECK(served.get(std::string(dir::kTorKeysFpPrefix) + std::string(40, '0'), 0).status == 404);
}

TEST_CASE("tor dir mirror: microdescriptors of this consensus and the previous one", "[dirnet][tor][mirror]") {
  ServedMirror served(stock_cache());
  const TorDirCache& cache = served.cache;
  TorDirMirror& m = served.mirror;
  REQUIRE(cache.microdescs.size() >= 2);
  std::vector<std::string> digests;
  for (const auto& [d, md] : cache.microdescs) digests.push_back(bytes::base64_encode(d));
  const std::string two = std::string(dir::kTorMicrodescPrefix) + digests[0] + "-" + digests[1] + ".z";
  const auto got = served.get(two, 0);
  REQUIRE(got.status == 200);
  auto mds = dir::parse_tor_microdescs(got.body);
  REQUIRE(mds);
  CHECK(mds->size() == 2);
  CHECK(served.get(std::string(dir::kTorMicrodescPrefix) + std::string(43, 'A'), 0).status == 404);
  CHECK(served.get(std::string(dir::kTorMicrodescPrefix) + "AAAA", 0).status == 404);

  // A newer consensus without the first relay's microdescriptor: still
  // served (a client on the old consensus asks for it), then dropped.
  TorDirCache next = cache;
  const auto at = next.consensus_text.find("valid-after 2026-11-26 00:46:40");
  REQUIRE(at != std::string::npos);
  next.consensus_text.replace(at, 31, "valid-after 2026-11-26 00:46:41");
  next.microdescs.erase(next.microdescs.begin());
  REQUIRE(m.update(next));
  CHECK(m.microdesc_count() == cache.microdescs.size());
  CHECK(served.get(two, 0).status == 200);
  TorDirCache third = next;
  third.consensus_text.replace(at, 31, "valid-after 2026-11-26 00:46:42");
  REQUIRE(m.update(third));
  CHECK(m.microdesc_count() == next.microdescs.size());
  const auto only = served.get(two, 0);
  REQUIRE(only.status == 200);
  CHECK(dir::parse_tor_microdescs(only.body)->size() == 1);
  // A cache whose consensus does not parse changes nothing.
  TorDirCache broken = third;
  broken.consensus_text = "junk\n";
  CHECK_FALSE(m.update(broken));
  CHECK(served.get(kConsensus, m.valid_after()).body == third.consensus_text);
}

namespace {

const std::string kNsConsensus(dir::kTorConsensusNs);

// The cache after a directory cache's round with the ns flavour too: the
// stock network's ns consensus and the server descriptors it names.
TorDirCache stock_cache_with_ns() {
  TorDirCache c = stock_cache();
  c.ns_consensus_text = read_data("consensus-ns.txt");
  const auto ns = parsed(c.ns_consensus_text);
  auto descs = dir::parse_tor_server_descriptors(read_data("server-descriptors.txt"), ns.valid_after);
  REQUIRE(descs);
  for (auto& d : *descs) c.server_descriptors.emplace(d.router_digest, d);
  return c;
}

std::string hex(const crypto::RsaFingerprint& f) { return bytes::to_hex(f, true); }

}  // namespace

TEST_CASE("tor dir mirror: the ns consensus as tor's caches serve it", "[dirnet][tor][mirror][ns]") {
  ServedMirror served(stock_cache());  // the microdesc flavour alone: no ns yet
  TorDirMirror& m = served.mirror;
  const std::uint64_t now = m.valid_after() + 10;
  CHECK_FALSE(m.has_ns_consensus());
  CHECK(served.get(kNsConsensus, now).body == "Not found\n");
  CHECK(served.get(kNsConsensus, now).status == 404);

  const TorDirCache cache = stock_cache_with_ns();
  REQUIRE(m.update(cache));
  const auto ns = parsed(cache.ns_consensus_text);
  CHECK(ns.flavor == dir::ConsensusFlavor::Ns);
  CHECK(m.ns_valid_after() == ns.valid_after);
  const auto plain = served.get(kNsConsensus + ".z", now);
  REQUIRE(plain.status == 200);
  CHECK(plain.body == cache.ns_consensus_text);
  // The other flavour is still the microdesc one.
  CHECK(served.get(kConsensus, now).body == cache.consensus_text);
  // What a stock relay or client asks for: v3ident prefixes, as for the microdesc one.
  CHECK(served.get(kNsConsensus + "/7AF6249E+DB8EB34B+0000.z", now).body == cache.ns_consensus_text);
  CHECK(served.get(kNsConsensus + "/0000+1111+7AF6.z", now).body ==
        "Consensus not signed by sufficient number of requested authorities\n");
  CHECK(served.get(kNsConsensus + "/nothex", now).body == "Couldn't parse request\n");
  CHECK(served.get(kNsConsensus, ns.valid_until + 86401).body == "Consensus is too old\n");
  CHECK(served.get(kNsConsensus, ns.valid_after - 86401).body == "Consensus is too new\n");
}

TEST_CASE("tor dir mirror: server descriptors by digest, fingerprint and all", "[dirnet][tor][mirror][ns]") {
  ServedMirror served(stock_cache_with_ns());
  const auto ns = parsed(served.cache.ns_consensus_text);
  REQUIRE(ns.routers.size() == 9);
  REQUIRE(served.cache.server_descriptors.size() == 9);  // every r line's digest is a stock descriptor's
  CHECK(served.mirror.descriptor_count() == 9);

  // One by tor's digest, as the r line names it: exactly that descriptor.
  const auto& r0 = ns.routers[0];
  const auto one = served.get(std::string(dir::kTorServerDPrefix) + hex(r0.descriptor_digest) + ".z", 0);
  REQUIRE(one.status == 200);
  CHECK(one.body == served.cache.server_descriptors.at(r0.descriptor_digest).text);
  // Every one, as a stock relay asks (hex digests joined by '+').
  std::string all_digests;
  for (const auto& r : ns.routers) all_digests += (all_digests.empty() ? "" : "+") + hex(r.descriptor_digest);
  auto every = dir::parse_tor_server_descriptors(
      served.get(std::string(dir::kTorServerDPrefix) + all_digests, 0).body, ns.valid_after);
  REQUIRE(every);
  CHECK(every->size() == 9);
  // By RSA fingerprint, and all.
  const auto by_fp = served.get(std::string(dir::kTorServerFpPrefix) + hex(r0.identity), 0);
  CHECK(by_fp.body == one.body);
  auto all = dir::parse_tor_server_descriptors(served.get(std::string(dir::kTorServerAll), 0).body, ns.valid_after);
  REQUIRE(all);
  CHECK(all->size() == 9);
  // Unknown: tor's "Servers unavailable"; malformed: 400.
  const auto unknown = served.get(std::string(dir::kTorServerDPrefix) + std::string(40, '0'), 0);
  CHECK(unknown.status == 404);
  CHECK(unknown.body == "Servers unavailable\n");
  CHECK(served.get(std::string(dir::kTorServerFpPrefix) + std::string(40, '1'), 0).status == 404);
  CHECK(served.get(std::string(dir::kTorServerDPrefix) + "XYZ", 0).status == 400);
}

TEST_CASE("tor dir mirror: a cache's own descriptor by fingerprint beside the ones it holds",
          "[dirnet][tor][mirror][ns]") {
  ServedMirror served(stock_cache_with_ns());
  const auto ns = parsed(served.cache.ns_consensus_text);
  const std::string own_fp(40, 'C');
  served.routes.set_tor_self_descriptor("router ours\n", own_fp);
  const std::string other = hex(ns.routers[1].identity);
  const auto both = served.get(std::string(dir::kTorServerFpPrefix) + other + "+" + own_fp, 0);
  REQUIRE(both.status == 200);
  CHECK(both.body == "router ours\n" + served.cache.server_descriptors.at(ns.routers[1].descriptor_digest).text);
  CHECK(served.get(std::string(dir::kTorServerFpPrefix) + own_fp, 0).body == "router ours\n");
  CHECK(served.get("/tor/server/authority.z", 0).body == "router ours\n");
}

TEST_CASE("tor dir mirror: server descriptors of this ns consensus and the previous one", "[dirnet][tor][mirror][ns]") {
  ServedMirror served(stock_cache_with_ns());
  const TorDirCache& cache = served.cache;
  TorDirMirror& m = served.mirror;
  const auto ns = parsed(cache.ns_consensus_text);
  const auto first = ns.routers[0].descriptor_digest;
  const std::string path = std::string(dir::kTorServerDPrefix) + hex(first);

  // A newer ns consensus whose descriptors lack the first: still served
  // (a client on the old consensus asks for it), then dropped.
  TorDirCache next = cache;
  const auto at = next.ns_consensus_text.find("valid-after 2026-11-26 00:46:40");
  REQUIRE(at != std::string::npos);
  next.ns_consensus_text.replace(at, 31, "valid-after 2026-11-26 00:46:41");
  next.server_descriptors.erase(first);
  REQUIRE(m.update(next));
  CHECK(m.ns_valid_after() == ns.valid_after + 1);
  CHECK(m.descriptor_count() == 9);
  CHECK(served.get(path, 0).status == 200);
  CHECK(dir::parse_tor_server_descriptors(served.get(std::string(dir::kTorServerAll), 0).body, ns.valid_after)->size() ==
        8);
  TorDirCache third = next;
  third.ns_consensus_text.replace(at, 31, "valid-after 2026-11-26 00:46:42");
  REQUIRE(m.update(third));
  CHECK(m.descriptor_count() == 8);
  CHECK(served.get(path, 0).body == "Servers unavailable\n");
  // An ns text that does not parse, or is the microdesc flavour, changes nothing of it.
  TorDirCache broken = third;
  broken.ns_consensus_text = cache.consensus_text;
  REQUIRE(m.update(broken));
  CHECK(served.get(kNsConsensus, m.ns_valid_after()).body == third.ns_consensus_text);
}

namespace {

// The stock network's time, inside its consensuses' validity (README).
struct StockClock final : net::Clock {
  std::uint64_t at = 0;
  [[nodiscard]] Monotonic::time_point now() const override { return Monotonic::now(); }
  [[nodiscard]] std::uint64_t unix_seconds() const override { return at; }
};

// A cache's fetch of the ns flavour from one source, without sockets: the
// source is a DirRoutes over a mirror of the stock network (a DirSource is
// what BEGIN_DIR gives the fetcher), counting what it was asked.
struct NsFetchRig {
  ServedMirror upstream{stock_cache_with_ns()};
  StockClock clock;
  ConsensusQuery query;
  std::vector<std::string> asked;
  std::function<void(DirReply&, const std::string&)> tamper;
  NsFetchRig() {
    clock.at = upstream.mirror.ns_valid_after() + 10;
    for (const char* v3 : {"DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5", "7AF6249EA0F2AA3F059B541F5ACAF7148B77BA83",
                           "AEFA54DAC3D02F2EEE8617F12D7F283D80703D62"}) {
      auto id = dir::parse_fp_list(v3);
      REQUIRE(id);
      query.tor_authorities.push_back(id->front());
    }
    query.fetch_ns = true;
    query.begin_dir_sources = [this] {
      DirSource s;
      s.name = "upstream";
      s.get = [this](std::string target, HttpLimits) -> net::awaitable<Result<HttpResponse, std::string>> {
        asked.push_back(target);
        DirReply r = upstream.get(target, clock.at);
        if (tamper) tamper(r, target);
        co_return HttpResponse{r.status, r.body, {}};
      };
      return std::vector<DirSource>{s};
    };
  }
  Result<std::uint64_t, FetchErrc> fetch(std::uint64_t at_least, TorDirCache& cache) {
    net::asio::io_context io;
    std::optional<Result<std::uint64_t, FetchErrc>> out;
    net::asio::co_spawn(
        io,
        [](NsFetchRig& rig, std::uint64_t least, TorDirCache& c,
           std::optional<Result<std::uint64_t, FetchErrc>>& slot) -> net::awaitable<void> {
          slot.emplace(co_await fetch_tor_ns(rig.query, rig.clock, least, c));
        }(*this, at_least, cache, out),
        net::asio::detached);
    io.run();
    REQUIRE(out);
    return *out;
  }
};

}  // namespace

TEST_CASE("tor ns fetch: the ns consensus, the certificates it needs and every descriptor it names",
          "[dirnet][tor][mirror][ns]") {
  NsFetchRig rig;
  TorDirCache cache;  // nothing held: the certificates come from the source too
  const std::uint64_t va = rig.upstream.mirror.ns_valid_after();
  auto got = rig.fetch(va, cache);
  REQUIRE(got);
  CHECK(*got == va);
  CHECK(cache.ns_consensus_text == read_data("consensus-ns.txt"));
  CHECK(cache.ns_source == "upstream");
  CHECK(cache.server_descriptors.size() == 9);
  CHECK(cache.certs.size() == 3);  // every signer's, not only a majority's
  // One request for the consensus, one for the certificates, one batch of nine descriptors.
  REQUIRE(rig.asked.size() == 3);
  CHECK(rig.asked[0] == std::string(dir::kTorConsensusNs));
  CHECK(rig.asked[1] == std::string(dir::kTorKeysAll));
  CHECK(rig.asked[2].starts_with(std::string(dir::kTorServerDPrefix)));
  CHECK(std::count(rig.asked[2].begin(), rig.asked[2].end(), '+') == 8);
  // Held and new enough: nothing is asked.
  rig.asked.clear();
  CHECK(*rig.fetch(va, cache) == va);
  CHECK(rig.asked.empty());
  // A newer one wanted than any source has: NotNewer, the held one kept.
  auto newer = rig.fetch(va + 20, cache);
  REQUIRE_FALSE(newer);
  CHECK(newer.error() == FetchErrc::NotNewer);
  CHECK(cache.ns_consensus_text == read_data("consensus-ns.txt"));
}

TEST_CASE("tor ns fetch: the wrong flavour, an unsigned text and a forged descriptor are refused",
          "[dirnet][tor][mirror][ns]") {
  {
    NsFetchRig rig;  // the microdesc flavour at the ns path
    rig.tamper = [](DirReply& r, const std::string& target) {
      if (target == dir::kTorConsensusNs) r.body = read_data("consensus-microdesc.txt");
    };
    TorDirCache cache;
    auto got = rig.fetch(0, cache);
    REQUIRE_FALSE(got);
    CHECK(got.error() == FetchErrc::Invalid);
    CHECK(cache.ns_consensus_text.empty());
  }
  {
    NsFetchRig rig;  // one byte of a signed line changed: no signature verifies
    rig.tamper = [](DirReply& r, const std::string& target) {
      if (target != dir::kTorConsensusNs) return;
      const auto at = r.body.find("Bandwidth=");
      REQUIRE(at != std::string::npos);
      r.body[at + 10] = r.body[at + 10] == '9' ? '8' : '9';
    };
    TorDirCache cache;
    auto got = rig.fetch(0, cache);
    REQUIRE_FALSE(got);
    CHECK(got.error() == FetchErrc::Invalid);
  }
  {
    NsFetchRig rig;  // a descriptor altered in the batch: the batch is dropped, the consensus kept
    rig.tamper = [](DirReply& r, const std::string& target) {
      if (!target.starts_with(dir::kTorServerDPrefix)) return;
      const auto at = r.body.find("\nuptime ");
      REQUIRE(at != std::string::npos);
      r.body.insert(at + 8, "1");
    };
    TorDirCache cache;
    auto got = rig.fetch(0, cache);
    REQUIRE(got);
    CHECK(cache.server_descriptors.empty());
    CHECK_FALSE(cache.ns_consensus_text.empty());
  }
}
