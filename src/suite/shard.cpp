#include "pallasbench/suite/shard.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "pallasbench/core/fnv1a.hpp"

namespace pallasbench {
namespace {

// What is wrong with index/count, or nothing.
std::optional<std::string> problem(int index, int count) {
  if (count < 1) return fmt::format("the count must be at least 1");
  if (index < 1 || index > count) return fmt::format("the index must be in 1..{}", count);
  return std::nullopt;
}

// A whole decimal number, nothing before or after it.
std::optional<int> whole_number(std::string_view text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

work_item work_item::of(const task_info& task, problem_size size, float_dtype dtype, std::string candidate_sha256,
                          std::optional<kernel_backend> backend) {
  return {task.name, size, task.at(dtype).output_dtype, std::move(candidate_sha256),
          backend ? std::string(to_string(*backend)) : std::string()};
}

std::string work_item::canonical_text() const {
  nlohmann::json key = {
      {"task", task}, {"size", pallasbench::to_string(size)}, {"dtype", dtype}, {"candidate_sha256", candidate_sha256}};
  if (!backend.empty()) key["backend"] = backend;
  return key.dump();  // nlohmann's objects keep their keys sorted: one text per item
}

shard_spec::shard_spec(int index, int count) : m_index(index), m_count(count) {
  if (const auto why = problem(index, count)) throw std::invalid_argument(fmt::format("{}/{}: {}", index, count, *why));
}

shard_spec shard_spec::parse(std::string_view text) {
  const auto slash = text.find('/');
  const auto index = whole_number(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!index || !count)
    throw std::invalid_argument(fmt::format("{}: expected I/N, shard I of N counting from 1 (e.g. 2/8)", text));
  if (const auto why = problem(*index, *count)) throw std::invalid_argument(fmt::format("{}: {}", text, *why));
  return {*index, *count};
}

bool shard_spec::contains(const work_item& item) const {
  // The hash's high 32 bits pick the shard (high * count / 2^32, Lemire's range reduction), not
  // hash % count: FNV-1a's low bits mix badly (its lowest bit is the parity of the text's bytes'
  // lowest bits), and % 2 put all 207 items of the suite in one shard.
  const std::uint64_t high = fnv1a(item.canonical_text()) >> 32;
  return (high * static_cast<std::uint64_t>(m_count)) >> 32 == static_cast<std::uint64_t>(m_index - 1);
}

std::string shard_spec::to_string() const { return fmt::format("{}/{}", m_index, m_count); }

nlohmann::json shard_spec::to_json() const { return {{"index", m_index}, {"count", m_count}}; }

std::vector<task_info> shard_share(const std::vector<task_info>& tasks, const shard_spec& shard, problem_size size,
                                   float_dtype dtype, const std::string& candidate_sha256) {
  std::vector<task_info> share;
  for (const auto& task : tasks)
    if (shard.contains(work_item::of(task, size, dtype, candidate_sha256.empty() ? task.sha256 : candidate_sha256)))
      share.push_back(task);
  return share;
}

}  // namespace pallasbench
