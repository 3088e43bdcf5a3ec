// What the compiler-artifact parser tests share.
#pragma once

#include <stdexcept>
#include <string>

namespace pallasbench::testing {

// The error of parsing `text`, or "" when it parses.
template <typename Parse>
std::string parse_error(Parse parse, const std::string& text) {
  try {
    (void)parse(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace pallasbench::testing
