// Names of an enum's values, written once per enum, for to_string / from_string (CUTLASS's
// Disposition style) and for the CLI's choices.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pallasbench {

// Specialised next to each enum:
//   template <> struct enum_names<task_status> {
//     static constexpr std::string_view what = "status";
//     static constexpr std::array entries{std::pair{task_status::ok, std::string_view("ok")}, ...};
//   };
template <class E>
struct enum_names;

template <class E>
[[nodiscard]] constexpr std::string_view to_string(E value) {
  for (const auto& [entry, name] : enum_names<E>::entries)
    if (entry == value) return name;
  return "?";
}

template <class E>
[[nodiscard]] constexpr std::optional<E> from_string(std::string_view name) {
  for (const auto& [entry, entry_name] : enum_names<E>::entries)
    if (entry_name == name) return entry;
  return std::nullopt;
}

template <class E>
[[nodiscard]] std::vector<std::string> names_of() {
  std::vector<std::string> names;
  for (const auto& entry : enum_names<E>::entries) names.emplace_back(entry.second);
  return names;
}

// from_string, or std::invalid_argument naming the kind of value and the choices.
template <class E>
[[nodiscard]] E parse_enum(std::string_view name) {
  if (const auto value = from_string<E>(name)) return *value;
  throw std::invalid_argument(
      fmt::format("unknown {} '{}' (one of {})", enum_names<E>::what, name, fmt::join(names_of<E>(), ", ")));
}

}  // namespace pallasbench
