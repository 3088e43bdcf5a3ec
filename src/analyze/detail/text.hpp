// The text helpers the compiler-artifact parsers share, and how they name each artifact in parse
// errors and in the summary's reasons for a missing one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pallasbench::detail {

inline constexpr std::string_view k_ptxas = "ptxas report";
inline constexpr std::string_view k_sass = "SASS";
inline constexpr std::string_view k_ptx = "PTX";
inline constexpr std::string_view k_thunks = "thunk sequence";

[[nodiscard]] std::string_view trim(std::string_view s);

[[nodiscard]] bool starts_with(std::string_view s, std::string_view prefix);

// The lines of text without their '\n' (a last line without one included).
[[nodiscard]] std::vector<std::string_view> split_lines(std::string_view text);

// The parts of s between separators, empty ones included.
[[nodiscard]] std::vector<std::string_view> split(std::string_view s, char separator);

// A decimal or 0x-prefixed hexadecimal integer, surrounding blanks allowed; nullopt otherwise.
[[nodiscard]] std::optional<std::int64_t> to_int(std::string_view s);

// Parse errors carry the artifact and the 1-based line, so a broken capture can be found: throws
// std::runtime_error "<artifact> line <line>: <what>: '<text, trimmed, at most 160 characters>'".
[[noreturn]] void fail(std::string_view artifact, std::size_t line, std::string_view what, std::string_view text);

// to_int of s, or fail() naming it.
[[nodiscard]] std::int64_t require_int(std::string_view s, std::string_view artifact, std::size_t line,
                                       std::string_view text);

}  // namespace pallasbench::detail
