// FNV-1a 64: the project's one text hash where a stable, cheap, non-cryptographic key is wanted
// (the resume key, the seeds' derivation, the shard a work item falls to).
#pragma once

#include <cstdint>
#include <string_view>

namespace pallasbench {

// The offset basis is 1469598103934665603, not the published 14695981039346656037 (a digit was
// lost when it was first written). It stays: every record's config_hash (the resume key) and every
// --seed reproduction depend on it, and it mixes as well. Never change either constant.
inline constexpr std::uint64_t k_fnv1a_offset_basis = 1469598103934665603ull;
inline constexpr std::uint64_t k_fnv1a_prime = 1099511628211ull;

[[nodiscard]] constexpr std::uint64_t fnv1a(std::string_view text) noexcept {
  std::uint64_t hash = k_fnv1a_offset_basis;
  for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * k_fnv1a_prime;
  return hash;
}

}  // namespace pallasbench
