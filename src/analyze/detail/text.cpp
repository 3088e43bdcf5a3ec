#include "text.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fmt/format.h>

namespace pallasbench::detail {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == separator) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  s = trim(s);
  int base = 10;
  if (starts_with(s, "0x") || starts_with(s, "0X")) {
    s.remove_prefix(2);
    base = 16;
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

[[noreturn]] void fail(std::string_view artifact, std::size_t line, std::string_view what, std::string_view text) {
  const auto shown = trim(text);
  throw std::runtime_error(
      fmt::format("{} line {}: {}: '{}'", artifact, line, what,
                  shown.size() > 160 ? std::string(shown.substr(0, 157)) + "..." : std::string(shown)));
}

std::int64_t require_int(std::string_view s, std::string_view artifact, std::size_t line, std::string_view text) {
  const auto value = to_int(s);
  if (!value) fail(artifact, line, fmt::format("'{}' is not a number", trim(s)), text);
  return *value;
}

}  // namespace pallasbench::detail
