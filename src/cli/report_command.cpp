// `report` (a summary table, or with --html a page drawn by pallasbench.tools.html_report) and
// `export` (pallasbench.tools.export).
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/command_setup.hpp"
#include "detail/python_tool.hpp"
#include "pallasbench/cli/commands.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/report/summary.hpp"

namespace pallasbench {
namespace {

using detail::records_file;
using nlohmann::json;

}  // namespace

int report_command(const report_options& options) {
  std::vector<summary_row> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (task, size and dtype) -> row
  if (!options.html.empty()) {
    std::vector<std::string> args{"--out", options.html};
    args.insert(args.end(), options.records.begin(), options.records.end());
    exec_python_tool("html_report", args);
  }
  for (const auto& argument : options.records) {
    const auto file = records_file(argument);
    std::vector<json> records;
    try {
      records = read_records(file, &std::cerr);  // a cut last line is skipped with a warning
      for (const auto& record : records) {
        auto row = summary_row::from_record(record);
        const auto key = std::make_pair(row.task, row.size);
        if (const auto it = index.find(key); it != index.end()) {
          rows[it->second] = std::move(row);
        } else {
          index.emplace(key, rows.size());
          rows.push_back(std::move(row));
        }
      }
    } catch (const std::invalid_argument& e) {  // a record of no known status
      throw usage_error(fmt::format("{}: {}", file.string(), e.what()));
    } catch (const std::runtime_error& e) {  // a corrupt line (the message names file:line)
      throw usage_error(e.what());
    }
  }
  summary_printer(std::cout, options.format, options.summary).run_finished(rows, {});
  return exit_code::ok;
}

int export_command(const export_options& options) {
  std::vector<std::string> args{"--to", options.to, "--format", options.format};
  args.insert(args.end(), options.inputs.begin(), options.inputs.end());
  exec_python_tool("export", args);
}

}  // namespace pallasbench
