// The CLI's Python-side tools: drawing (matplotlib) and Parquet (pyarrow) are Python libraries, and
// the task files are Python modules, so `report --html`, `export` and `list --format markdown` hand
// their arguments to a module of python/pallasbench/tools/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pallasbench {

// Replaces this process with `python -m pallasbench.tools.<module> args...` (the project's venv
// Python, its python/ folder first on PYTHONPATH). The tool's exit code is the command's: 0 done,
// 2 a usage error it named, 3 anything else. `input`, when given, is the tool's stdin (an in-memory
// file: no temporary file to remove after the exec). Returns only by throwing when the exec fails.
[[noreturn]] void exec_python_tool(std::string_view module, const std::vector<std::string>& args,
                                   std::string_view input = {});

}  // namespace pallasbench
