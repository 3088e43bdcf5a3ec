#include "pallasbench/suite/selection.hpp"

#include <algorithm>

namespace pallasbench {

std::vector<task_info> select_tasks(const std::vector<task_info>& tasks, const filter_list& filters) {
  std::vector<task_info> out;
  for (const auto& task : tasks) {
    const bool all = std::all_of(filters.begin(), filters.end(), [&](const auto& f) { return f->accepts(task); });
    if (all) out.push_back(task);
  }
  std::stable_sort(out.begin(), out.end(), [](const task_info& a, const task_info& b) {
    return a.level != b.level ? a.level < b.level : a.name < b.name;
  });
  return out;
}

std::vector<std::string> unknown_names(const std::vector<task_info>& tasks, const std::vector<std::string>& wanted) {
  std::vector<std::string> out;
  for (const auto& name : wanted) {
    const bool known = std::any_of(tasks.begin(), tasks.end(), [&](const task_info& t) { return t.name == name; });
    if (!known) out.push_back(name);
  }
  return out;
}

}  // namespace pallasbench
