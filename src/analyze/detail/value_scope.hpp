// A fact about each value of a function's body, region by region: inner regions see the values
// of the regions around them. The dataflow walks (kernel_dataflow.cpp, data_movement.cpp) keep
// what they track per value here.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pallasbench/analyze/stablehlo_text.hpp"

namespace pallasbench::detail {

template <class T>
class value_scope {
public:
  void push() { m_frames.emplace_back(); }
  void pop() { m_frames.pop_back(); }
  void define(const std::string& name, T fact) { m_frames.back()[name] = std::move(fact); }
  // Throws module_parse_error (at `line`) for a value no enclosing region defines.
  [[nodiscard]] const T& lookup(const std::string& name, std::size_t line) const {
    // "%4" and "%4#0" name the same value of a one-result op.
    const std::string alternative = name.ends_with("#0")                  ? name.substr(0, name.size() - 2)
                                    : name.find('#') == std::string::npos ? name + "#0"
                                                                          : "";
    for (auto frame = m_frames.rbegin(); frame != m_frames.rend(); ++frame) {
      if (auto it = frame->find(name); it != frame->end()) return it->second;
      if (auto it = frame->find(alternative); !alternative.empty() && it != frame->end()) return it->second;
    }
    throw module_parse_error(line, fmt::format("use of undefined value {}", name));
  }

private:
  std::vector<std::map<std::string, T>> m_frames;
};

}  // namespace pallasbench::detail
