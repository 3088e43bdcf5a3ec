#include "kernel_dataflow.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "hlo_ops.hpp"
#include "value_scope.hpp"

namespace pallasbench::detail {
namespace {

// Which values depend on a Pallas kernel result.
using scope = value_scope<bool>;

// Walks the module from one function, each function's flow computed once per pattern of arguments.
class kernel_dataflow {
public:
  explicit kernel_dataflow(const hlo_module& module) : m_module(module) {}

  // Per result of the function: does it depend on a kernel, given which arguments do.
  std::vector<bool> function_flow(const std::string& name, const std::vector<bool>& args, std::size_t line) {
    const auto key = std::make_pair(name, args);
    if (auto it = m_flows.find(key); it != m_flows.end()) return it->second;
    const hlo_function& fn = enter_function(m_module, name, line, m_flowing, args.size());
    scope values;
    auto result = flow_region(fn.body, fn.args, args, values);
    m_flowing.erase(name);
    return m_flows[key] = std::move(result);
  }

private:
  const hlo_module& m_module;
  std::map<std::pair<std::string, std::vector<bool>>, std::vector<bool>> m_flows;
  std::set<std::string> m_flowing;

  // The dependence of the values the region returns (its terminator's operands).
  std::vector<bool> flow_region(const hlo_region& region, const std::vector<std::string>& names,
                                const std::vector<bool>& args, scope& values) {
    values.push();
    for (std::size_t i = 0; i < names.size(); ++i) values.define(names[i], i < args.size() && args[i]);
    std::vector<bool> returned;
    for (const auto& op : region.ops) {
      if (short_name(op.name) == "return") {
        returned.clear();
        for (const auto& operand : op.operands) returned.push_back(values.lookup(operand, op.line));
        continue;
      }
      flow_op(op, values);
    }
    values.pop();
    return returned;
  }

  std::vector<bool> operand_flow(const hlo_op& op, const scope& values) const {
    std::vector<bool> deps;
    for (const auto& operand : op.operands) deps.push_back(values.lookup(operand, op.line));
    return deps;
  }

  std::vector<bool> op_flow(const hlo_op& op, scope& values);

  void flow_op(const hlo_op& op, scope& values) {
    const std::vector<bool> deps = op_flow(op, values);
    if (deps.size() != op.results.size())
      throw module_parse_error(
          op.line, fmt::format("{} returns {} values to {} results", op.name, deps.size(), op.results.size()));
    for (std::size_t i = 0; i < deps.size(); ++i) values.define(op.results[i], deps[i]);
  }
};

std::vector<bool> kernel_dataflow::op_flow(const hlo_op& op, scope& values) {
  const std::string_view kind = short_name(op.name);
  const std::vector<bool> deps = operand_flow(op, values);
  const std::size_t n = op.results.size();
  if (kind == "custom_call" && is_pallas_target(op.callee)) return std::vector<bool>(n, true);
  if (kind == "call" || kind == "composite") return function_flow(op.callee, deps, op.line);
  if (kind == "case" || kind == "if") {  // a kernel result only if every branch returns one
    std::vector<bool> all(n, true);
    for (const auto& region : op.regions) {
      const auto returned = flow_region(region, region.args, {}, values);
      if (returned.size() != n)
        throw module_parse_error(op.line, fmt::format("a branch of {} returns {} values", op.name, returned.size()));
      for (std::size_t i = 0; i < n; ++i) all[i] = all[i] && returned[i];
    }
    return all;
  }
  if (kind == "while" && op.regions.size() == 2) {  // iterate to the fixed point of the carried values
    std::vector<bool> carried = deps;
    for (;;) {
      (void)flow_region(op.regions[0], op.regions[0].args, carried, values);
      const auto returned = flow_region(op.regions[1], op.regions[1].args, carried, values);
      std::vector<bool> next = carried;
      for (std::size_t i = 0; i < next.size() && i < returned.size(); ++i) next[i] = next[i] || returned[i];
      if (next == carried) break;
      carried = std::move(next);
    }
    carried.resize(n, false);
    return carried;
  }
  bool any = std::find(deps.begin(), deps.end(), true) != deps.end();
  for (const auto& region : op.regions) {  // reducers and comparators see the operands' elements
    const auto returned = flow_region(region, region.args, std::vector<bool>(region.args.size(), any), values);
    any = any || std::find(returned.begin(), returned.end(), true) != returned.end();
  }
  return std::vector<bool>(n, any);
}

}  // namespace

std::vector<bool> results_from_kernel(const hlo_module& module, const std::string& function,
                                      const std::vector<bool>& args, std::size_t line) {
  return kernel_dataflow(module).function_flow(function, args, line);
}

}  // namespace pallasbench::detail
