// FNV-1a 64: the harness's stable hash of text (resume keys, seed streams, shards). Stable across
// platforms and releases, unlike std::hash; three lines, so no library is taken for it.
#pragma once

#include <cstdint>
#include <string_view>

namespace pallasbench {

[[nodiscard]] constexpr std::uint64_t fnv1a_64(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

}  // namespace pallasbench
