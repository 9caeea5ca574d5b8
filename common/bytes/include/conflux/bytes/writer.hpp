#pragma once
// Bounds-checked big-endian writers.
//
// Writer appends to a growable vector. SpanWriter fills a fixed buffer (a cell
// payload) and is sticky like Reader: a write that does not fit writes nothing
// and marks the writer failed.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "conflux/bytes/reader.hpp"

namespace conflux::bytes {

class SpanWriter {
 public:
  explicit SpanWriter(MutByteSpan buf) noexcept : buf_(buf) {}

  [[nodiscard]] bool ok() const noexcept { return !failed_; }
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return buf_.size() - pos_; }
  [[nodiscard]] MutByteSpan written() const noexcept { return buf_.first(pos_); }

  void u8(std::uint8_t v) noexcept { write_be(v, 1); }
  void u16(std::uint16_t v) noexcept { write_be(v, 2); }
  void u32(std::uint32_t v) noexcept { write_be(v, 4); }
  void u64(std::uint64_t v) noexcept { write_be(v, 8); }
  void put(ByteSpan data) noexcept {
    if (!need(data.size())) return;
    for (std::size_t i = 0; i < data.size(); ++i) buf_[pos_ + i] = data[i];
    pos_ += data.size();
  }
  void zeros(std::size_t n) noexcept {
    if (!need(n)) return;
    for (std::size_t i = 0; i < n; ++i) buf_[pos_ + i] = 0;
    pos_ += n;
  }
  // Reserves n bytes to be filled later (e.g. a length field); returns their offset.
  std::size_t reserve(std::size_t n) noexcept {
    std::size_t at = pos_;
    zeros(n);
    return at;
  }
  void patch_u16(std::size_t at, std::uint16_t v) noexcept {
    if (at + 2 > pos_) { failed_ = true; return; }
    buf_[at] = static_cast<std::uint8_t>(v >> 8);
    buf_[at + 1] = static_cast<std::uint8_t>(v);
  }

 private:
  bool need(std::size_t n) noexcept {
    if (failed_ || n > buf_.size() - pos_) {
      failed_ = true;
      return false;
    }
    return true;
  }
  void write_be(std::uint64_t v, std::size_t n) noexcept {
    if (!need(n)) return;
    for (std::size_t i = 0; i < n; ++i)
      buf_[pos_ + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
    pos_ += n;
  }

  MutByteSpan buf_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

class Writer {
 public:
  Writer() = default;
  explicit Writer(std::size_t reserve_bytes) { out_.reserve(reserve_bytes); }

  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { write_be(v, 2); }
  void u32(std::uint32_t v) { write_be(v, 4); }
  void u64(std::uint64_t v) { write_be(v, 8); }
  void put(ByteSpan data) { out_.insert(out_.end(), data.begin(), data.end()); }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }
  std::size_t reserve(std::size_t n) {
    std::size_t at = out_.size();
    zeros(n);
    return at;
  }
  void patch_u16(std::size_t at, std::uint16_t v) {
    out_.at(at) = static_cast<std::uint8_t>(v >> 8);
    out_.at(at + 1) = static_cast<std::uint8_t>(v);
  }

  [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }
  [[nodiscard]] const std::vector<std::uint8_t>& bytes() const& noexcept { return out_; }
  [[nodiscard]] std::vector<std::uint8_t> take() && noexcept { return std::move(out_); }

 private:
  void write_be(std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      out_.push_back(static_cast<std::uint8_t>(v >> (8 * (n - 1 - i))));
  }
  std::vector<std::uint8_t> out_;
};

}  // namespace conflux::bytes
