#include "pallasbench/core/error.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string_view>
#include <typeinfo>

#include <fmt/format.h>

namespace pallasbench {
namespace {

std::string type_name(const std::exception& e) {
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> name(
      abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status), &std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(typeid(e).name());
}

// The project-relative part of a compiler's file name (absolute in most builds).
std::string_view project_relative(std::string_view file) {
  for (const std::string_view root : {"/src/", "/include/", "/tests/"})
    if (const auto at = file.rfind(root); at != std::string_view::npos) return file.substr(at + 1);
  return file;
}

// The bare function name: source_location gives the whole signature.
std::string_view bare_function(std::string_view signature) {
  const auto paren = signature.find('(');
  auto name = signature.substr(0, paren);
  if (const auto space = name.rfind(' '); space != std::string_view::npos) name = name.substr(space + 1);
  return name;
}

}  // namespace

std::string describe_location(const std::source_location& where) {
  return fmt::format("{}:{} ({})", project_relative(where.file_name()), where.line(),
                     bare_function(where.function_name()));
}

std::string cpp_traceback(const std::exception& e, std::source_location caught) {
  if (const auto* located = dynamic_cast<const error*>(&e))
    return fmt::format("C++ {} thrown at {}: {}", type_name(e), describe_location(located->where()), e.what());
  return fmt::format("C++ {} (from a library) caught at {}: {}", type_name(e), describe_location(caught), e.what());
}

}  // namespace pallasbench
