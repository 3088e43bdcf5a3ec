#include "pallasbench/core/uuid.hpp"

#include <array>
#include <random>

#include <fmt/format.h>

namespace pallasbench {

std::string make_uuid() {
  std::random_device device;
  std::array<unsigned, 16> b{};
  for (auto& byte : b) byte = device() & 0xffu;
  b[6] = (b[6] & 0x0fu) | 0x40u;  // version 4
  b[8] = (b[8] & 0x3fu) | 0x80u;  // RFC 4122 variant
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}", b[0],
      b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

}  // namespace pallasbench
