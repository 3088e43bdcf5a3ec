#include "data_movement.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "hlo_ops.hpp"
#include "movement_ops.hpp"
#include "value_scope.hpp"

namespace pallasbench::detail {

void movement_totals::add(const movement_totals& other) {
  moved_bytes += other.moved_bytes;
  for (const auto& [op, bytes] : other.op_bytes) op_bytes[op] += bytes;
  for (const auto& use : other.addressing) {
    const auto same = [&](const addressing_use& u) { return u.op == use.op && u.line == use.line; };
    if (std::find_if(addressing.begin(), addressing.end(), same) == addressing.end()) addressing.push_back(use);
  }
}

namespace {

using taint_scope = value_scope<arg_set>;
using taints = std::vector<arg_set>;

void merge(arg_set& into, const arg_set& from) { into.insert(from.begin(), from.end()); }

arg_set merged(const taints& list) {
  arg_set out;
  for (const auto& t : list) merge(out, t);
  return out;
}

// Walks the module from @main, each function's flow and totals computed once per pattern of
// argument taints; a caller adds a callee's totals per call site.
class movement_flow {
public:
  movement_flow(const hlo_module& module, const std::vector<bool>& weight_args, double scalar_setup_elements)
      : m_module(module), m_weight_args(weight_args), m_scalar_setup(scalar_setup_elements) {}

  struct flow {
    taints results;
    movement_totals totals;
  };

  const flow& function_flow(const std::string& name, const taints& args, std::size_t line) {
    const auto key = std::make_pair(name, args);
    if (auto it = m_flows.find(key); it != m_flows.end()) return it->second;
    const hlo_function& fn = enter_function(m_module, name, line, m_flowing, args.size());
    flow f;
    taint_scope values;
    f.results = flow_region(fn.body, fn.args, args, values, &f.totals);
    m_flowing.erase(name);
    return m_flows[key] = std::move(f);
  }

private:
  const hlo_module& m_module;
  const std::vector<bool>& m_weight_args;
  double m_scalar_setup;
  std::map<std::pair<std::string, taints>, flow> m_flows;
  std::set<std::string> m_flowing;

  // The data counts when it derives from some input that is not a weight.
  [[nodiscard]] bool counted(const arg_set& args) const {
    return std::any_of(args.begin(), args.end(),
                       [&](std::size_t a) { return a >= m_weight_args.size() || !m_weight_args[a]; });
  }

  // The taints the region returns (its terminator's operands). sink: where the region's ops add
  // what they move (none while a loop's taints are still growing).
  taints flow_region(const hlo_region& region, const std::vector<std::string>& names, const taints& args,
                     taint_scope& values, movement_totals* sink) {
    values.push();
    for (std::size_t i = 0; i < names.size(); ++i) values.define(names[i], i < args.size() ? args[i] : arg_set{});
    taints returned;
    for (const auto& op : region.ops) {
      if (short_name(op.name) == "return") {
        returned.clear();
        for (const auto& operand : op.operands) returned.push_back(values.lookup(operand, op.line));
        continue;
      }
      const taints results = op_flow(op, values, sink);
      for (std::size_t i = 0; i < op.results.size(); ++i)
        values.define(op.results[i], i < results.size() ? results[i] : merged(results));
    }
    values.pop();
    return returned;
  }

  taints operand_taints(const hlo_op& op, const taint_scope& values) const {
    taints out;
    for (const auto& operand : op.operands) out.push_back(values.lookup(operand, op.line));
    return out;
  }

  void note_addressing(const hlo_op& op, std::string what, const arg_set& args, movement_totals* sink) const {
    if (sink == nullptr || args.empty()) return;
    sink->add({0, {}, {{op.name, std::move(what), op.line, args}}});
  }

  taints op_flow(const hlo_op& op, taint_scope& values, movement_totals* sink);
  taints branch_flow(const hlo_op& op, const taints& operands, taint_scope& values, movement_totals* sink);
  taints loop_flow(const hlo_op& op, const taints& operands, taint_scope& values, movement_totals* sink);
};

taints movement_flow::op_flow(const hlo_op& op, taint_scope& values, movement_totals* sink) {
  const std::string_view kind = short_name(op.name);
  const taints operands = operand_taints(op, values);
  const std::size_t n = op.results.size();
  if (kind == "call" || kind == "composite") {
    const flow& f = function_flow(op.callee, operands, op.line);
    if (sink != nullptr) sink->add(f.totals);
    return f.results;
  }
  if (kind == "case" || kind == "if") return branch_flow(op, operands, values, sink);
  if (kind == "while" && op.regions.size() == 2) return loop_flow(op, operands, values, sink);
  for (const std::size_t i : address_operands(op, kind))
    note_addressing(
        op, kind == "gather" || kind == "scatter" || kind == "dynamic_gather" ? "its indices" : "its start indices",
        operands[i], sink);
  if (sink != nullptr && is_movement_op(kind)) {
    std::vector<bool> counts;
    for (const auto& t : operands) counts.push_back(counted(t));
    if (const double bytes = moved_bytes(op, kind, counts); bytes > 0) {
      sink->moved_bytes += bytes;
      sink->op_bytes[op.name] += bytes;
    }
  }
  // Everything else, Pallas custom calls included: each result derives from every operand and
  // from what the op's regions (reducers, comparators) return over them.
  arg_set all = merged(operands);
  for (const auto& region : op.regions)
    merge(all, merged(flow_region(region, region.args, taints(region.args.size(), all), values, sink)));
  return taints(n, all);
}

// case/if: a result derives from what every branch returns and from the branch's selector; a
// selector from an input picks data by that input's value when the branches return more than setup.
taints movement_flow::branch_flow(const hlo_op& op, const taints& operands, taint_scope& values,
                                  movement_totals* sink) {
  const arg_set selector = operands.empty() ? arg_set{} : operands.front();
  if (elements_of(op.result_types) > m_scalar_setup) note_addressing(op, "its branch", selector, sink);
  taints out(op.results.size(), selector);
  for (const auto& region : op.regions) {
    const taints returned = flow_region(region, region.args, {}, values, sink);
    for (std::size_t i = 0; i < out.size() && i < returned.size(); ++i) merge(out[i], returned[i]);
  }
  return out;
}

// while: the carried taints grow to a fixed point (the condition's taint reaches every carried
// value: it decides how often the body runs); the body's movement is then counted once.
taints movement_flow::loop_flow(const hlo_op& op, const taints& operands, taint_scope& values, movement_totals* sink) {
  taints carried = operands;
  for (;;) {
    const taints condition = flow_region(op.regions[0], op.regions[0].args, carried, values, nullptr);
    const taints returned = flow_region(op.regions[1], op.regions[1].args, carried, values, nullptr);
    taints next = carried;
    for (std::size_t i = 0; i < next.size(); ++i) {
      if (i < returned.size()) merge(next[i], returned[i]);
      merge(next[i], merged(condition));
    }
    if (next == carried) break;
    carried = std::move(next);
  }
  (void)flow_region(op.regions[0], op.regions[0].args, carried, values, sink);
  (void)flow_region(op.regions[1], op.regions[1].args, carried, values, sink);
  carried.resize(op.results.size());
  return carried;
}

}  // namespace

movement_totals count_data_movement(const hlo_module& module, const std::vector<bool>& weight_args,
                                    double scalar_setup_elements) {
  const hlo_function& main = find_function(module, "main", 1);
  taints args;
  for (std::size_t i = 0; i < main.args.size(); ++i) args.push_back({i});
  return movement_flow(module, weight_args, scalar_setup_elements).function_flow("main", args, main.line).totals;
}

}  // namespace pallasbench::detail
