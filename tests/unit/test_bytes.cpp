#include <array>

#include <catch2/catch.hpp>

#include "conflux/bytes/hex.hpp"
#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/bytes/writer.hpp"

using namespace conflux;
using namespace conflux::bytes;

TEST_CASE("reader reads big-endian integers and stops at the end", "[bytes]") {
  const std::array<std::uint8_t, 15> data{1, 0x02, 0x03, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 8};
  Reader r(data);
  CHECK(r.u8() == 1);
  CHECK(r.u16() == 0x0203);
  CHECK(r.u32() == 0x04050607);
  CHECK(r.u64() == 0x0102030405060708ULL);
  CHECK(r.finished());
  CHECK(r.u8() == 0);
  CHECK_FALSE(r.ok());
  CHECK(r.remaining() == 0);
}

TEST_CASE("a short read fails the reader and stays failed", "[bytes]") {
  const std::array<std::uint8_t, 3> data{1, 2, 3};
  Reader r(data);
  CHECK(r.u32() == 0);
  CHECK_FALSE(r.ok());
  CHECK(r.u8() == 0);  // sticky: nothing more comes out even though 3 bytes exist
  CHECK(r.take(1).empty());
}

TEST_CASE("take and copy_to respect bounds", "[bytes]") {
  const std::array<std::uint8_t, 4> data{9, 8, 7, 6};
  Reader r(data);
  auto s = r.take(2);
  REQUIRE(s.size() == 2);
  CHECK(s[0] == 9);
  std::array<std::uint8_t, 3> out{1, 1, 1};
  r.copy_to(out);
  CHECK_FALSE(r.ok());
  CHECK(out == std::array<std::uint8_t, 3>{0, 0, 0});
}

TEST_CASE("span writer refuses to overflow", "[bytes]") {
  std::array<std::uint8_t, 5> buf{};
  SpanWriter w(buf);
  w.u32(0xdeadbeef);
  CHECK(w.ok());
  w.u16(1);
  CHECK_FALSE(w.ok());
  CHECK(w.position() == 4);
  CHECK(buf == std::array<std::uint8_t, 5>{0xde, 0xad, 0xbe, 0xef, 0});
}

TEST_CASE("growable writer and length patching", "[bytes]") {
  Writer w;
  auto at = w.reserve(2);
  w.u8(7);
  w.u64(1);
  w.patch_u16(at, static_cast<std::uint16_t>(w.size() - 2));
  CHECK(to_hex(w.bytes()) == "0009070000000000000001");
}

TEST_CASE("hex round trip and rejection", "[bytes]") {
  CHECK(from_hex("00ffAb").value() == std::vector<std::uint8_t>{0, 0xff, 0xab});
  CHECK_FALSE(from_hex("abc").has_value());
  CHECK_FALSE(from_hex("zz").has_value());
  CHECK(to_hex(from_hex("deadBEEF").value(), true) == "DEADBEEF");
}

TEST_CASE("strong integer types compare and count", "[bytes]") {
  SeqAbs s{5};
  ++s;
  CHECK(s == SeqAbs{6});
  CHECK(s + 10 > SeqAbs{15});
  CHECK(CircId{1} < CircId{2});
  static_assert(!std::is_convertible_v<CircId, StreamId>);
  static_assert(!std::is_convertible_v<SeqRel, SeqAbs>);
  static_assert(!std::is_convertible_v<std::uint32_t, CircId>);
}
