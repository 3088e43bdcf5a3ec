// `pallasbench compare BASE NEW` (report/compare.hpp does the work).
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/command_setup.hpp"
#include "pallasbench/cli/commands.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/report/compare.hpp"

namespace pallasbench {
namespace {

std::vector<nlohmann::json> load(const std::string& argument) {
  const auto path = detail::records_file(argument);
  try {
    return read_records(path, &std::cerr);  // a cut last line is skipped with a warning
  } catch (const std::runtime_error& e) {   // a corrupt line: the message names file:line
    throw usage_error(e.what());
  }
}

}  // namespace

int compare_command(const compare_options& options) {
  if (!(options.threshold >= 0)) throw usage_error(fmt::format("--threshold must be >= 0, not {}", options.threshold));
  const auto base = load(options.base);
  const auto next = load(options.next);
  const auto result = compare_records(base, next, {.threshold = options.threshold});
  if (options.json)
    fmt::print("{}\n", result.to_json().dump(2));
  else
    print_compare_markdown(std::cout, result);
  return result.regressed() ? exit_code::check_failed : exit_code::ok;
}

}  // namespace pallasbench
