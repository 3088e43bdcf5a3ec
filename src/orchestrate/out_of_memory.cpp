#include "pallasbench/orchestrate/out_of_memory.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace pallasbench {
namespace {

bool contains_folded(std::string_view text, std::string_view needle) {
  const auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

template <std::size_t n>
bool mentions_any(std::string_view text, const std::array<std::string_view, n>& needles) {
  return std::any_of(needles.begin(), needles.end(), [&](std::string_view s) { return contains_folded(text, s); });
}

}  // namespace

bool mentions_out_of_memory(std::string_view text) {
  static constexpr std::array<std::string_view, 6> needles = {
      "RESOURCE_EXHAUSTED", "out of memory",          "MemoryError",
      "std::bad_alloc",     "Cannot allocate memory", "CUDA_ERROR_OUT_OF_MEMORY"};
  return mentions_any(text, needles);
}

bool mentions_no_space(std::string_view text) {
  static constexpr std::array<std::string_view, 2> needles = {"No space left on device", "[Errno 28]"};
  return mentions_any(text, needles);
}

std::optional<std::uint64_t> requested_allocation(std::string_view message) {
  // XLA's words (xla/tsl BFC allocator), then a number and a binary unit; std::regex would do, but
  // one fixed prefix and a number need no more than this.
  static constexpr std::string_view prefix = "Out of memory while trying to allocate ";
  const std::size_t at = message.find(prefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(at + prefix.size());
  std::size_t digits = 0;
  while (digits < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[digits])) || rest[digits] == '.'))
    ++digits;
  if (digits == 0) return std::nullopt;
  double value = 0;
  try {
    value = std::stod(std::string(rest.substr(0, digits)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  rest = rest.substr(digits);
  static constexpr std::array<std::pair<std::string_view, double>, 6> units = {
      {{"TiB", 0x1p40}, {"GiB", 0x1p30}, {"MiB", 0x1p20}, {"KiB", 0x1p10}, {"B", 1}, {"bytes", 1}}};
  for (const auto& [unit, scale] : units)
    if (rest.starts_with(unit)) return static_cast<std::uint64_t>(value * scale);
  return std::nullopt;
}

std::optional<std::uint64_t> module_bytes(const nlohmann::json& memory) {
  if (!memory.is_object()) return std::nullopt;
  std::uint64_t total = 0;
  for (const char* key : {"argument", "output", "temp"}) {
    const auto it = memory.find(key);
    if (it == memory.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) return std::nullopt;
    total += it->get<std::uint64_t>();
  }
  return total;
}

oom_blame blame_out_of_memory(std::optional<std::uint64_t> module, std::optional<std::uint64_t> share) {
  return module && share && *module > *share ? oom_blame::candidate : oom_blame::harness;
}

std::string with_tracer_limits(const std::string& message, std::string_view stderr_tail, const memory_limit& limit,
                               std::uint64_t tmpfs_bytes, bool oom_killed) {
  if (mentions_no_space(message) || mentions_no_space(stderr_tail))
    return fmt::format("{} [the tracer's private /tmp and /dev/shm are full: {} each (--tracer-tmpfs)]", message,
                       format_bytes(tmpfs_bytes));
  if (oom_killed)
    return fmt::format("{} [killed at the tracer's memory limit: {} (--tracer-memory)]", message, limit.describe());
  if (mentions_out_of_memory(message) || mentions_out_of_memory(stderr_tail))
    return fmt::format("{} [out of memory at the tracer's limit: {} (--tracer-memory)]", message, limit.describe());
  return message;
}

}  // namespace pallasbench
