#include "pallasbench/orchestrate/seeds.hpp"

#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "pallasbench/core/fnv1a.hpp"

namespace pallasbench {
namespace {

// SplitMix64's finaliser: a bijective mix of 64 bits, so distinct inputs give distinct streams.
// (No library here offers it; it is six lines.)
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::string_view to_string(seed_source source) { return source == seed_source::given ? "given" : "os_entropy"; }

seed_source seed_source_from_string(std::string_view text) {
  if (text == "given") return seed_source::given;
  if (text == "os_entropy") return seed_source::os_entropy;
  throw std::invalid_argument(fmt::format("unknown seed source '{}' (given, os_entropy)", text));
}

seed_plan seed_plan::draw() {
  std::random_device entropy;
  const std::uint64_t high = entropy(), low = entropy();
  return {((high << 32) | low) & k_max_seed, seed_source::os_entropy};
}

seed_plan seed_plan::given(std::uint64_t seed) {
  if (seed > k_max_seed)
    throw std::invalid_argument(fmt::format("--seed {}: seeds are below 2^53 ({} at most)", seed, k_max_seed));
  return {seed, seed_source::given};
}

seed_plan seed_plan::for_evaluation(const std::optional<std::uint64_t>& seed) { return seed ? given(*seed) : draw(); }

std::uint64_t seed_plan::derive(std::string_view purpose, std::uint64_t index) const {
  return mix(mix(m_seed ^ fnv1a(purpose)) + index) & k_max_seed;
}

std::uint64_t seed_plan::check(int index) const { return derive("check", static_cast<std::uint64_t>(index)); }
std::uint64_t seed_plan::stress(std::string_view name) const { return derive(fmt::format("stress:{}", name), 0); }
std::uint64_t seed_plan::timing() const { return derive("timing", 0); }

nlohmann::json seed_plan::to_json() const { return {{"seed", m_seed}, {"source", to_string(m_source)}}; }

}  // namespace pallasbench
