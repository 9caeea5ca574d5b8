#pragma once
// Strong integer types: a circuit ID cannot be passed where a stream ID or a
// sequence number is expected, and a 32-bit relative sequence number cannot be
// silently widened into a 64-bit absolute one.
#include <compare>
#include <concepts>
#include <cstdint>
#include <functional>

namespace conflux {

template <class Tag, std::unsigned_integral Rep>
class StrongInt {
 public:
  using rep = Rep;
  constexpr StrongInt() noexcept = default;
  constexpr explicit StrongInt(Rep v) noexcept : v_(v) {}
  [[nodiscard]] constexpr Rep value() const noexcept { return v_; }
  friend constexpr auto operator<=>(StrongInt, StrongInt) noexcept = default;

 private:
  Rep v_ = 0;
};

// Values that are counted and added to (cells, bytes, absolute sequence numbers).
template <class Tag, std::unsigned_integral Rep>
class Counter : public StrongInt<Tag, Rep> {
 public:
  using StrongInt<Tag, Rep>::StrongInt;
  constexpr Counter& operator+=(Rep n) noexcept {
    *this = Counter(static_cast<Rep>(this->value() + n));
    return *this;
  }
  constexpr Counter& operator++() noexcept { return *this += 1; }
  friend constexpr Counter operator+(Counter a, Rep n) noexcept { return a += n; }
  friend constexpr auto operator<=>(Counter, Counter) noexcept = default;
};

struct CircIdTag {};
struct StreamIdTag {};
struct HopNumTag {};
struct SeqAbsTag {};
struct SeqRelTag {};
struct CellCountTag {};
struct ByteCountTag {};

// Link protocol v4+ circuit ID (4 bytes on the wire). 0 means "no circuit".
using CircId = StrongInt<CircIdTag, std::uint32_t>;
// Relay stream ID; 0 means "the circuit itself".
using StreamId = StrongInt<StreamIdTag, std::uint16_t>;
// Position of a hop on a circuit, counted from 1 at the client's first hop.
using HopNum = StrongInt<HopNumTag, std::uint8_t>;
// Conflux absolute sequence number, kept per leg and set (never on the wire).
using SeqAbs = Counter<SeqAbsTag, std::uint64_t>;
// Conflux relative sequence number as carried by SWITCH.
using SeqRel = StrongInt<SeqRelTag, std::uint32_t>;
using CellCount = Counter<CellCountTag, std::uint64_t>;
using ByteCount = Counter<ByteCountTag, std::uint64_t>;

}  // namespace conflux

template <class Tag, class Rep>
struct std::hash<conflux::StrongInt<Tag, Rep>> {
  std::size_t operator()(conflux::StrongInt<Tag, Rep> v) const noexcept {
    return std::hash<Rep>{}(v.value());
  }
};
