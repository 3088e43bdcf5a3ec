#include "outside_work.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "hlo_ops.hpp"

namespace pallasbench::detail {
namespace {

// Walks the module from one function, each function's totals computed once.
class outside_work_counter {
public:
  outside_work_counter(const hlo_module& module, const module_analysis_options& options)
      : m_module(module), m_options(options) {}

  const outside_totals& function_totals(const std::string& name, std::size_t line) {
    if (auto it = m_totals.find(name); it != m_totals.end()) return it->second;
    const hlo_function& fn = enter_function(m_module, name, line, m_counting);
    outside_totals t;
    count_region(fn.body, t);
    m_counting.erase(name);
    return m_totals[name] = std::move(t);
  }

private:
  const hlo_module& m_module;
  const module_analysis_options& m_options;
  std::map<std::string, outside_totals> m_totals;
  std::set<std::string> m_counting;

  void count_region(const hlo_region& region, outside_totals& t) {
    for (const auto& op : region.ops) count_op(op, t);
  }

  void count_op(const hlo_op& op, outside_totals& t) {
    const std::string_view kind = short_name(op.name);
    if (kind == "custom_call") {
      if (is_pallas_target(op.callee)) {
        t.pallas_calls += 1;
        t.kernel_output_elements += elements_of(op.result_types);
      } else {
        outside_totals::add_unique(t.refused, op.callee);
      }
      return;
    }
    if (kind == "call" || kind == "composite") return t.add(function_totals(op.callee, op.line));
    for (const auto& region : op.regions) count_region(region, t);
    if (kind == "while") {
      const auto& carried = op.result_types.empty() ? op.operand_types : op.result_types;
      for (const auto& type : carried)
        if (type.elements > m_options.scalar_setup_elements)
          outside_totals::add_unique(t.loops, fmt::format("{} on line {} carries {}", op.name, op.line, type.text));
      return;
    }
    if (is_free_op(kind)) return;
    const double results = elements_of(op.result_types);
    const double touched = is_reduction_op(kind) ? std::max(results, elements_of(op.operand_types)) : results;
    if (touched <= m_options.scalar_setup_elements) return;
    if (is_forbidden_op(kind))
      outside_totals::add_unique(t.forbidden,
                                 fmt::format("{} outside the Pallas kernels ({} elements)", op.name,
                                             results > m_options.scalar_setup_elements ? results : touched));
    const double work = work_of(op, kind);
    t.outside_work += work;
    t.op_work[op.name] += work;
  }
};

}  // namespace

outside_totals count_outside_work(const hlo_module& module, const std::string& function, std::size_t line,
                                  const module_analysis_options& options) {
  return outside_work_counter(module, options).function_totals(function, line);
}

}  // namespace pallasbench::detail
