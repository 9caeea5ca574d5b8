#include "conflux/cell/relay_link_spec.hpp"

namespace conflux::cell {

Decoded<LinkSpec> read_link_spec(bytes::Reader& r) {
  const std::uint8_t type = r.u8();
  const std::uint8_t len = r.u8();
  bytes::Reader spec(r.take(len));
  if (!r.ok()) return fail(DecodeError::Truncated);

  auto exact = [len](std::size_t want) { return len == want; };
  LinkSpec out;
  switch (type) {
    case static_cast<std::uint8_t>(LinkSpecType::Ipv4): {
      if (!exact(6)) return fail(DecodeError::BadLength);
      LinkSpecIpv4 v;
      spec.copy_to(v.addr);
      v.port = spec.u16();
      out = v;
      break;
    }
    case static_cast<std::uint8_t>(LinkSpecType::Ipv6): {
      if (!exact(18)) return fail(DecodeError::BadLength);
      LinkSpecIpv6 v;
      spec.copy_to(v.addr);
      v.port = spec.u16();
      out = v;
      break;
    }
    case static_cast<std::uint8_t>(LinkSpecType::LegacyId): {
      if (!exact(20)) return fail(DecodeError::BadLength);
      LinkSpecLegacyId v;
      spec.copy_to(v.id);
      out = v;
      break;
    }
    case static_cast<std::uint8_t>(LinkSpecType::Ed25519Id): {
      if (!exact(32)) return fail(DecodeError::BadLength);
      LinkSpecEd25519Id v;
      spec.copy_to(v.id);
      out = v;
      break;
    }
    default: {
      auto rest = spec.rest();
      out = LinkSpecUnknown{type, std::vector<std::uint8_t>(rest.begin(), rest.end())};
      break;
    }
  }
  return out;
}

namespace {
struct LinkSpecWriter {
  bytes::Writer& w;
  void head(LinkSpecType t, std::size_t len) const {
    w.u8(static_cast<std::uint8_t>(t));
    w.u8(static_cast<std::uint8_t>(len));
  }
  void operator()(const LinkSpecIpv4& v) const {
    head(LinkSpecType::Ipv4, 6);
    w.put(v.addr);
    w.u16(v.port);
  }
  void operator()(const LinkSpecIpv6& v) const {
    head(LinkSpecType::Ipv6, 18);
    w.put(v.addr);
    w.u16(v.port);
  }
  void operator()(const LinkSpecLegacyId& v) const {
    head(LinkSpecType::LegacyId, v.id.size());
    w.put(v.id);
  }
  void operator()(const LinkSpecEd25519Id& v) const {
    head(LinkSpecType::Ed25519Id, v.id.size());
    w.put(v.id);
  }
  void operator()(const LinkSpecUnknown& v) const {
    w.u8(v.type);
    w.u8(static_cast<std::uint8_t>(v.data.size()));
    w.put(v.data);
  }
};
}  // namespace

void write_link_spec(bytes::Writer& w, const LinkSpec& ls) { std::visit(LinkSpecWriter{w}, ls); }

}  // namespace conflux::cell
