// `report` (a summary table, or with --html a page drawn by pallasbench.tools.html_report) and
// `export` (pallasbench.tools.export).
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/command_setup.hpp"
#include "detail/python_tool.hpp"
#include "pallasbench/cli/commands.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/report/summary.hpp"

namespace pallasbench {

int report_command(const report_options& options) {
  if (!options.html.empty()) {
    std::vector<std::string> args{"--out", options.html};
    args.insert(args.end(), options.records.begin(), options.records.end());
    exec_python_tool("html_report", args);
  }
  // Every record is a row (a candidate, a second run of a task): the same rows as the HTML report.
  std::vector<summary_row> rows;
  for (const auto& record : detail::load_records(options.records)) {
    try {
      rows.push_back(summary_row::from_record(record));
    } catch (const std::invalid_argument& e) {  // a record of no known status
      throw usage_error(fmt::format("{} (task {})", e.what(), record.value("kernel_name", "?")));
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
