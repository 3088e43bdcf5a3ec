// The seeds of one evaluation: drawn from OS entropy for each evaluation, or given (--seed S) to
// reproduce one. Every input set of the evaluation (correctness seeds, stress cases, the timing
// set) derives from the evaluation's seed, so none is predictable before it is recorded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pallasbench {

enum class seed_source { os_entropy, given };

[[nodiscard]] std::string_view to_string(seed_source source);
[[nodiscard]] seed_source seed_source_from_string(std::string_view text);  // throws std::invalid_argument

// Seeds stay below 2^53 so that every JSON reader (JavaScript's numbers included) reads them exactly.
inline constexpr std::uint64_t k_max_seed = (std::uint64_t{1} << 53) - 1;

class seed_plan {
public:
  // A fresh seed from the OS's entropy (std::random_device: getrandom on Linux).
  [[nodiscard]] static seed_plan draw();
  // The given seed (--seed S); throws std::invalid_argument above k_max_seed.
  [[nodiscard]] static seed_plan given(std::uint64_t seed);
  // given(*seed) when there is one, else draw().
  [[nodiscard]] static seed_plan for_evaluation(const std::optional<std::uint64_t>& seed);

  [[nodiscard]] std::uint64_t seed() const { return m_seed; }
  [[nodiscard]] seed_source source() const { return m_source; }
  // Seed of correctness check i, of a stress case, of the timing input set: distinct streams
  // of one evaluation seed.
  [[nodiscard]] std::uint64_t check(int index) const;
  [[nodiscard]] std::uint64_t stress(std::string_view name) const;
  [[nodiscard]] std::uint64_t timing() const;
  [[nodiscard]] nlohmann::json to_json() const;

private:
  seed_plan(std::uint64_t seed, seed_source source) : m_seed(seed), m_source(source) {}
  [[nodiscard]] std::uint64_t derive(std::string_view purpose, std::uint64_t index) const;
  std::uint64_t m_seed;
  seed_source m_source;
};

}  // namespace pallasbench
