#include "pallasbench/analyze/thunk_sequence.hpp"

#include <cstddef>
#include <regex>

#include "detail/text.hpp"

namespace pallasbench {
namespace {

using detail::fail;
using detail::k_thunks;
using detail::split_lines;
using detail::trim;

std::optional<dim3_values> regex_dims(const std::smatch& m, std::size_t first) {
  if (!m[first].matched) return std::nullopt;
  return dim3_values{std::stoll(m[first]), std::stoll(m[first + 1]), std::stoll(m[first + 2])};
}

// "NAME grid: [256, 1, 1] threads: [128, 1, 1] [cluster: [2, 1, 1]] shared_memory: 57344 bytes"
thunk_launch custom_kernel_launch(const std::string& rest, std::size_t line, std::string_view text) {
  static const std::regex custom(
      R"(^(\S+)\s+grid:\s*\[(\d+),\s*(\d+),\s*(\d+)\]\s+threads:\s*\[(\d+),\s*(\d+),\s*(\d+)\]\s*)"
      R"((?:cluster:\s*\[(\d+),\s*(\d+),\s*(\d+)\]\s*)?shared_memory:\s*(\d+)\s+bytes\s*$)");
  std::smatch m;
  if (!std::regex_match(rest, m, custom)) fail(k_thunks, line, "unreadable kCustomKernel launch", text);
  thunk_launch launch;
  launch.kind = "kCustomKernel";
  launch.name = m[1];
  launch.grid = regex_dims(m, 2);
  launch.threads = regex_dims(m, 5);
  launch.cluster = regex_dims(m, 8);
  launch.shared_memory_bytes = std::stoll(m[11]);
  return launch;
}

std::optional<dim3_values> search_dims(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  return regex_dims(m, 1);
}

// ", kernel = NAME, launch dimensions = blocks: {64, 1, 1}, threads/block: {128, 1, 1}, ..."
thunk_launch xla_kernel_launch(const std::string& rest, std::size_t line, std::string_view text) {
  static const std::regex name(R"(kernel = ([^,\s]+))");
  static const std::regex blocks(R"((?:^|[\s\[,=])blocks?: \{(\d+), (\d+), (\d+)\})");
  static const std::regex threads(R"(threads?(?:/block)?: \{(\d+), (\d+), (\d+)\})");
  static const std::regex shared(R"(shared memory \[B\]: (\d+))");
  std::smatch m;
  if (!std::regex_search(rest, m, name)) fail(k_thunks, line, "kKernel without 'kernel = NAME'", text);
  thunk_launch launch;
  launch.kind = "kKernel";
  launch.name = m[1];
  launch.grid = search_dims(rest, blocks);
  launch.threads = search_dims(rest, threads);
  if (std::regex_search(rest, m, shared)) launch.shared_memory_bytes = std::stoll(m[1]);
  return launch;
}

// "[source | sink] " and similar annotations between the kind and the launch.
std::string drop_annotation(std::string rest) {
  if (rest.empty() || rest.front() != '[') return rest;
  const auto close = rest.find(']');
  return close == std::string::npos ? rest : std::string(trim(std::string_view(rest).substr(close + 1)));
}

}  // namespace

std::vector<thunk_launch> parse_thunk_sequence(std::string_view text) {
  static const std::regex thunk(R"(^\s*(\d+):\s+(k[A-Za-z0-9_]+)\s*(.*?)\s*$)");
  std::vector<thunk_launch> launches;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line(lines[i]);
    std::smatch m;
    if (!std::regex_match(line, m, thunk)) continue;  // nested sequences' headers, multi-line thunks
    const auto rest = drop_annotation(m[3]);
    if (m[2] == "kCustomKernel")
      launches.push_back(custom_kernel_launch(rest, i + 1, line));
    else if (m[2] == "kKernel")
      launches.push_back(xla_kernel_launch(rest, i + 1, line));
    else
      launches.emplace_back().kind = m[2];
  }
  return launches;
}

}  // namespace pallasbench
