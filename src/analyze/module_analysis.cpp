#include "pallasbench/analyze/module_analysis.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <span>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pallasbench {
namespace {

using json = nlohmann::json;

using name_set = std::set<std::string, std::less<>>;

// The words of a space-separated list.
name_set words(std::string_view list) {
  name_set out;
  for (std::size_t begin = list.find_first_not_of(' '); begin != std::string_view::npos;) {
    const std::size_t end = std::min(list.find(' ', begin), list.size());
    out.emplace(list.substr(begin, end - begin));
    begin = list.find_first_not_of(' ', end);
  }
  return out;
}

// Bookkeeping and data movement: no arithmetic XLA would have to do (case/if and the Pallas
// custom calls are containers: what they hold is counted, not they).
const name_set k_free = words(
    "constant reshape broadcast_in_dim broadcast transpose slice dynamic_slice real_dynamic_slice pad concatenate "
    "reverse iota get_tuple_element tuple bitcast_convert optimization_barrier return get_dimension_size after_all "
    "create_token partition_id replica_id case if");
// Work that belongs inside a kernel, or a route around the precision policy (convert,
// reduce_precision), or communication a single-device kernel never needs.
const name_set k_forbidden = words(
    "dot_general dot convolution gather scatter dynamic_update_slice sort top_k fft triangular_solve cholesky "
    "reduce_window select_and_scatter rng rng_bit_generator convert reduce_precision all_reduce all_gather "
    "all_to_all reduce_scatter collective_permute collective_broadcast infeed outfeed send recv");
// Ops whose work grows with their operands, not their results.
const name_set k_reductions = words("reduce reduce_window dot dot_general convolution select_and_scatter");

// "stablehlo.add" -> "add", "func.return" -> "return".
std::string_view short_name(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

bool is_pallas_target(std::string_view target) {
  return std::find(k_pallas_targets.begin(), k_pallas_targets.end(), target) != k_pallas_targets.end();
}

double elements_of(std::span<const hlo_type> types) {
  double total = 0;
  for (const auto& type : types) total += type.elements;
  return total;
}

// The integers of "key = [1, 2]" in text (empty when absent).
std::vector<std::size_t> index_list(std::string_view text, std::string_view key) {
  std::vector<std::size_t> out;
  const std::size_t at = text.find(fmt::format("{} = [", key));
  if (at == std::string_view::npos) return out;
  std::size_t i = at + key.size() + 4;
  while (i < text.size() && text[i] != ']') {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      std::size_t end = i;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      out.push_back(std::stoul(std::string(text.substr(i, end - i))));
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

// Dimension `index` of type (1 when it has none there).
double dim_of(const hlo_type& type, std::size_t index) { return index < type.dims.size() ? type.dims[index] : 1.0; }

double contraction_size(const hlo_op& op, std::string_view kind) {
  if (op.operand_types.empty()) return 1;
  const hlo_type& lhs = op.operand_types[0];
  if (kind == "dot") return lhs.dims.empty() ? 1 : lhs.dims.back();
  if (kind == "dot_general") {
    auto dims = index_list(op.text, "contracting_dims");
    if (dims.empty()) dims = index_list(op.text, "lhs_contracting_dimensions");
    return std::accumulate(dims.begin(), dims.end(), 1.0,
                           [&](double product, std::size_t d) { return product * dim_of(lhs, d); });
  }
  // convolution: each output element reads the kernel elements of one output feature.
  if (op.operand_types.size() < 2) return 1;
  const hlo_type& rhs = op.operand_types[1];
  std::size_t feature = rhs.dims.empty() ? 0 : rhs.dims.size() - 1;
  const std::size_t arrow = op.text.find("]x[");
  if (arrow != std::string::npos) {  // dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f]
    const std::string_view spec = std::string_view(op.text).substr(arrow + 3, op.text.find(']', arrow + 3) - arrow - 3);
    std::size_t index = 0;
    for (std::size_t i = 0; i < spec.size(); ++i) {
      if (spec[i] == ',') ++index;
      if (spec[i] == 'o') feature = index;
    }
  }
  const double features = dim_of(rhs, feature);
  return features > 0 ? rhs.elements / features : 1;
}

// Work of one op outside the kernels, in element operations (2 per multiply-add).
double work_of(const hlo_op& op, std::string_view kind) {
  const double results = elements_of(op.result_types);
  if (kind == "reduce" || kind == "reduce_window")
    return elements_of(std::span(op.operand_types).first(op.operand_types.size() / 2));
  if (kind == "dot" || kind == "dot_general" || kind == "convolution") return 2 * results * contraction_size(op, kind);
  return results;
}

// What a function (or @main) does outside the kernels, per call.
struct totals {
  double pallas_calls = 0, outside_work = 0, kernel_output_elements = 0;
  std::map<std::string, double> op_work;
  std::vector<std::string> refused, forbidden, loops;  // each message once

  static void add_unique(std::vector<std::string>& list, const std::string& message) {
    if (std::find(list.begin(), list.end(), message) == list.end()) list.push_back(message);
  }
  void add(const totals& other) {
    pallas_calls += other.pallas_calls;
    outside_work += other.outside_work;
    kernel_output_elements += other.kernel_output_elements;
    for (const auto& [op, work] : other.op_work) op_work[op] += work;
    for (const auto& m : other.refused) add_unique(refused, m);
    for (const auto& m : other.forbidden) add_unique(forbidden, m);
    for (const auto& m : other.loops) add_unique(loops, m);
  }
};

// Which values depend on a Pallas kernel result, region by region (inner regions see outer values).
class scope {
public:
  void push() { m_frames.emplace_back(); }
  void pop() { m_frames.pop_back(); }
  void define(const std::string& name, bool from_kernel) { m_frames.back()[name] = from_kernel; }
  [[nodiscard]] bool lookup(const std::string& name, std::size_t line) const {
    // "%4" and "%4#0" name the same value of a one-result op.
    const std::string alternative = name.ends_with("#0")                  ? name.substr(0, name.size() - 2)
                                    : name.find('#') == std::string::npos ? name + "#0"
                                                                          : "";
    for (auto frame = m_frames.rbegin(); frame != m_frames.rend(); ++frame) {
      if (auto it = frame->find(name); it != frame->end()) return it->second;
      if (auto it = frame->find(alternative); !alternative.empty() && it != frame->end()) return it->second;
    }
    throw module_parse_error(line, fmt::format("use of undefined value {}", name));
  }

private:
  std::vector<std::map<std::string, bool>> m_frames;
};

class analyzer {
public:
  analyzer(const hlo_module& module, const module_analysis_options& options) : m_module(module), m_options(options) {}

  const totals& function_totals(const std::string& name, std::size_t line) {
    if (auto it = m_totals.find(name); it != m_totals.end()) return it->second;
    const hlo_function& fn = function(name, line);
    if (!m_counting.insert(name).second) throw module_parse_error(line, fmt::format("recursive call to @{}", name));
    totals t;
    count_region(fn.body, t);
    m_counting.erase(name);
    return m_totals[name] = std::move(t);
  }

  // Per result of the function: does it depend on a kernel, given which arguments do.
  std::vector<bool> function_flow(const std::string& name, const std::vector<bool>& args, std::size_t line) {
    const auto key = std::make_pair(name, args);
    if (auto it = m_flows.find(key); it != m_flows.end()) return it->second;
    const hlo_function& fn = function(name, line);
    if (fn.args.size() != args.size())
      throw module_parse_error(
          line, fmt::format("@{} takes {} arguments, called with {}", name, fn.args.size(), args.size()));
    if (!m_flowing.insert(name).second) throw module_parse_error(line, fmt::format("recursive call to @{}", name));
    scope values;
    auto result = flow_region(fn.body, fn.args, args, values);
    m_flowing.erase(name);
    return m_flows[key] = std::move(result);
  }

private:
  const hlo_module& m_module;
  const module_analysis_options& m_options;
  std::map<std::string, totals> m_totals;
  std::map<std::pair<std::string, std::vector<bool>>, std::vector<bool>> m_flows;
  std::set<std::string> m_counting, m_flowing;

  const hlo_function& function(const std::string& name, std::size_t line) const {
    const auto it = m_module.functions.find(name);
    if (it == m_module.functions.end())
      throw module_parse_error(line, fmt::format("call to undefined function @{}", name));
    return it->second;
  }

  void count_region(const hlo_region& region, totals& t) {
    for (const auto& op : region.ops) count_op(op, t);
  }

  void count_op(const hlo_op& op, totals& t) {
    const std::string_view kind = short_name(op.name);
    if (kind == "custom_call") {
      if (is_pallas_target(op.callee)) {
        t.pallas_calls += 1;
        t.kernel_output_elements += elements_of(op.result_types);
      } else {
        totals::add_unique(t.refused, op.callee);
      }
      return;
    }
    if (kind == "call" || kind == "composite") return t.add(function_totals(op.callee, op.line));
    for (const auto& region : op.regions) count_region(region, t);
    if (kind == "while") {
      const auto& carried = op.result_types.empty() ? op.operand_types : op.result_types;
      for (const auto& type : carried)
        if (type.elements > m_options.scalar_setup_elements)
          totals::add_unique(t.loops, fmt::format("{} on line {} carries {}", op.name, op.line, type.text));
      return;
    }
    if (k_free.contains(kind)) return;
    const double results = elements_of(op.result_types);
    const double touched = k_reductions.contains(kind) ? std::max(results, elements_of(op.operand_types)) : results;
    if (touched <= m_options.scalar_setup_elements) return;
    if (k_forbidden.contains(kind))
      totals::add_unique(t.forbidden, fmt::format("{} outside the Pallas kernels ({} elements)", op.name,
                                                  results > m_options.scalar_setup_elements ? results : touched));
    const double work = work_of(op, kind);
    t.outside_work += work;
    t.op_work[op.name] += work;
  }

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

std::vector<bool> analyzer::op_flow(const hlo_op& op, scope& values) {
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

// "stablehlo.exponential 3.28e+04, stablehlo.divide 3.28e+04, ...": the ops doing most work first.
std::string largest_ops(const std::map<std::string, double>& op_work) {
  constexpr std::size_t k_shown = 5;
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [op, work] : op_work) ranked.emplace_back(-work, op);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < std::min(k_shown, ranked.size()); ++i)
    out.push_back(fmt::format("{} {:.3g}", ranked[i].second, -ranked[i].first));
  if (ranked.size() > k_shown) out.push_back(fmt::format("{} more", ranked.size() - k_shown));
  return fmt::format("{}", fmt::join(out, ", "));
}

// Pallas custom calls written in the region, each once (the executor decodes one IR per call).
std::size_t written_pallas_calls(const hlo_region& region) {
  std::size_t n = 0;
  for (const auto& op : region.ops) {
    n += short_name(op.name) == "custom_call" && is_pallas_target(op.callee);
    for (const auto& inner : op.regions) n += written_pallas_calls(inner);
  }
  return n;
}

module_analysis summarize(const totals& t, const std::vector<bool>& outputs, const module_analysis_options& options) {
  module_analysis a;
  a.pallas_calls = static_cast<std::size_t>(t.pallas_calls);
  a.refused_custom_calls = t.refused;
  a.outside_work = t.outside_work;
  a.kernel_output_elements = t.kernel_output_elements;
  const double denominator = std::max(options.task_flops, t.outside_work + t.kernel_output_elements);
  a.outside_share = denominator > 0 ? t.outside_work / denominator : 0.0;
  for (const auto& [op, work] : t.op_work) a.outside_ops.insert(op);
  a.forbidden_outside = t.forbidden;
  a.outside_loops = t.loops;
  a.output_from_kernel = !outputs.empty() && std::all_of(outputs.begin(), outputs.end(), [](bool b) { return b; });
  return a;
}

// The problems of the module's text, in the order the header lists them (precision follows).
std::vector<std::string> module_problems(const module_analysis& a, const totals& t,
                                         const module_analysis_options& options) {
  std::vector<std::string> problems;
  if (a.pallas_calls == 0) problems.emplace_back("no Pallas kernel call in the module");
  for (const auto& target : a.refused_custom_calls)
    problems.push_back(fmt::format("custom call '{}' (host callbacks and foreign kernels are refused)", target));
  problems.insert(problems.end(), a.forbidden_outside.begin(), a.forbidden_outside.end());
  for (const auto& loop : a.outside_loops)
    problems.push_back(fmt::format("a loop outside the Pallas kernels carries tensor data ({})", loop));
  if (a.pallas_calls > 0 && !a.output_from_kernel) problems.emplace_back("no Pallas kernel result reaches the output");
  if (a.outside_share > options.max_outside_share)
    problems.push_back(fmt::format("{:.1f}% of the work outside the Pallas kernels ({})", 100 * a.outside_share,
                                   largest_ops(t.op_work)));
  return problems;
}

}  // namespace

module_analysis analyze_module(std::string_view stablehlo, const std::vector<kernel_ir>& kernels,
                               const module_analysis_options& options) {
  const hlo_module module = parse_stablehlo(strip_locations(stablehlo));
  const auto main = module.functions.find("main");
  if (main == module.functions.end()) throw module_parse_error(1, "expected a func.func @main in the module");
  analyzer walk(module, options);
  const hlo_function& fn = main->second;
  const totals& t = walk.function_totals("main", fn.line);
  module_analysis a =
      summarize(t, walk.function_flow("main", std::vector<bool>(fn.args.size(), false), fn.line), options);
  a.problems = module_problems(a, t, options);
  a.precision = analyze_kernel_precision(kernels, options);
  std::size_t written = 0;
  for (const auto& [name, f] : module.functions) written += written_pallas_calls(f.body);
  if (options.float32_task && kernels.size() < written)
    a.precision.problems.push_back(
        fmt::format("the module has {} Pallas custom call(s) but the IR of {} kernel(s) was given: precision "
                    "unverified",
                    written, kernels.size()));
  a.problems.insert(a.problems.end(), a.precision.problems.begin(), a.precision.problems.end());
  return a;
}

json module_analysis::to_json() const {
  return {{"passed", passed()},
          {"pallas_calls", pallas_calls},
          {"refused_custom_calls", refused_custom_calls},
          {"outside_work", outside_work},
          {"kernel_output_elements", kernel_output_elements},
          {"outside_share", outside_share},
          {"outside_ops", outside_ops},
          {"forbidden_outside", forbidden_outside},
          {"outside_loops", outside_loops},
          {"output_from_kernel", output_from_kernel},
          {"problems", problems},
          {"precision", precision.to_json()}};
}

}  // namespace pallasbench
