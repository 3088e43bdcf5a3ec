// Task selection: each criterion is one filter behind a common interface.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pallasbench/suite/task_info.hpp"

namespace pallasbench {

class task_filter {
public:
  virtual ~task_filter() = default;
  [[nodiscard]] virtual bool accepts(const task_info& task) const = 0;
};

class name_filter final : public task_filter {
public:
  explicit name_filter(std::vector<std::string> names) : m_names(names.begin(), names.end()) {}
  [[nodiscard]] bool accepts(const task_info& task) const override { return m_names.contains(task.name); }

private:
  std::set<std::string> m_names;
};

class level_filter final : public task_filter {
public:
  explicit level_filter(int level) : m_level(level) {}
  [[nodiscard]] bool accepts(const task_info& task) const override { return task.level == m_level; }

private:
  int m_level;
};

class category_filter final : public task_filter {
public:
  explicit category_filter(std::string category) : m_category(std::move(category)) {}
  [[nodiscard]] bool accepts(const task_info& task) const override { return task.category == m_category; }

private:
  std::string m_category;
};

using filter_list = std::vector<std::unique_ptr<task_filter>>;

// Tasks every filter accepts, in suite order (level, then name).
[[nodiscard]] std::vector<task_info> select_tasks(const std::vector<task_info>& tasks, const filter_list& filters);

// Names among `wanted` that no task has.
[[nodiscard]] std::vector<std::string> unknown_names(const std::vector<task_info>& tasks,
                                                     const std::vector<std::string>& wanted);

}  // namespace pallasbench
