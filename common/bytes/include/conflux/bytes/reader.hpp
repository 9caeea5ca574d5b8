#pragma once
// Bounds-checked big-endian reader over a borrowed byte span.
//
// The reader is "sticky": a read past the end returns zero (or an empty span)
// and marks the reader failed, so a decoder can read a whole structure and
// check ok() once. This keeps decoders linear and makes a short read impossible
// to miss: every decoder must end with ok() (or finish()).
#include <cstddef>
#include <cstdint>
#include <span>

namespace conflux::bytes {

using ByteSpan = std::span<const std::uint8_t>;
using MutByteSpan = std::span<std::uint8_t>;

class Reader {
 public:
  explicit Reader(ByteSpan data) noexcept : data_(data) {}

  [[nodiscard]] bool ok() const noexcept { return !failed_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return failed_ ? 0 : data_.size() - pos_; }
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] bool empty() const noexcept { return remaining() == 0; }
  // True when everything was read and nothing failed.
  [[nodiscard]] bool finished() const noexcept { return ok() && pos_ == data_.size(); }

  std::uint8_t u8() noexcept { return static_cast<std::uint8_t>(read_be(1)); }
  std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(read_be(2)); }
  std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(read_be(4)); }
  std::uint64_t u64() noexcept { return read_be(8); }

  // Borrowed view of the next n bytes; empty and failed if fewer remain.
  ByteSpan take(std::size_t n) noexcept {
    if (!need(n)) return {};
    ByteSpan out = data_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  // Copies exactly out.size() bytes, or zero-fills and fails.
  void copy_to(MutByteSpan out) noexcept {
    ByteSpan in = take(out.size());
    if (in.size() != out.size()) {
      for (auto& b : out) b = 0;
      return;
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = in[i];
  }

  template <std::size_t N>
  void copy_to(std::uint8_t (&out)[N]) noexcept { copy_to(MutByteSpan(out, N)); }

  ByteSpan rest() noexcept { return take(remaining()); }
  void skip(std::size_t n) noexcept { (void)take(n); }

  // Marks the reader failed, e.g. when a decoded length is out of range.
  void fail() noexcept { failed_ = true; }

 private:
  bool need(std::size_t n) noexcept {
    if (failed_ || n > data_.size() - pos_) {
      failed_ = true;
      return false;
    }
    return true;
  }
  std::uint64_t read_be(std::size_t n) noexcept {
    if (!need(n)) return 0;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += n;
    return v;
  }

  ByteSpan data_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace conflux::bytes
