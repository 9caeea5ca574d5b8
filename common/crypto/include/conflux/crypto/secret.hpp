#pragma once
// Fixed-size secret storage that is wiped when it goes away.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace conflux::crypto {

void secure_wipe(void* p, std::size_t n) noexcept;

template <std::size_t N>
class Secret {
 public:
  Secret() noexcept { bytes_.fill(0); }
  explicit Secret(std::span<const std::uint8_t, N> in) noexcept {
    for (std::size_t i = 0; i < N; ++i) bytes_[i] = in[i];
  }
  Secret(const Secret&) = default;
  Secret& operator=(const Secret&) = default;
  ~Secret() { secure_wipe(bytes_.data(), N); }

  [[nodiscard]] std::span<const std::uint8_t, N> view() const noexcept { return bytes_; }
  [[nodiscard]] std::span<std::uint8_t, N> mut() noexcept { return bytes_; }
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }

 private:
  std::array<std::uint8_t, N> bytes_;
};

}  // namespace conflux::crypto
