// `pallasbench merge OUT DIR...` (record/merge.hpp does the work; docs/cluster.md).
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "pallasbench/cli/commands.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/record/merge.hpp"

namespace pallasbench {

int merge_command(const merge_options& options) {
  const std::vector<std::filesystem::path> inputs(options.inputs.begin(), options.inputs.end());
  merge_result result;
  try {
    result = merge_records(options.out, inputs, std::cerr);
  } catch (const merge_error& e) {  // conflicting records, unreadable inputs, an OUT with records
    throw usage_error(e.what());
  } catch (const records_locked& e) {
    throw usage_error(e.what());
  }
  const auto out_file = std::filesystem::path(options.out) / "records.jsonl";
  fmt::print("merged {} record(s) from {} input(s) into {}", result.records, inputs.size(),
             result.records ? out_file.string() : fmt::format("{} (none: no records.jsonl written)", options.out));
  if (result.duplicates) fmt::print("; {} identical duplicate(s) kept once", result.duplicates);
  if (result.artifact_files) fmt::print("; {} artifact file(s) copied", result.artifact_files);
  fmt::print("\n");
  return exit_code::ok;
}

}  // namespace pallasbench
