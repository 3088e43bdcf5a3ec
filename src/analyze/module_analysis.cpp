#include "pallasbench/analyze/module_analysis.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/data_movement.hpp"
#include "detail/hlo_ops.hpp"
#include "detail/kernel_dataflow.hpp"
#include "detail/outside_work.hpp"

namespace pallasbench {
namespace {

using detail::is_pallas_target;
using detail::outside_totals;
using detail::short_name;
using json = nlohmann::json;

// "stablehlo.exponential 3.28e+04, stablehlo.divide 3.28e+04, ...": the ops doing most work (or
// moving most bytes) first.
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

module_analysis summarize(const outside_totals& t, const std::vector<bool>& outputs,
                          const module_analysis_options& options) {
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
std::vector<std::string> module_problems(const module_analysis& a, const outside_totals& t,
                                         const module_analysis_options& options) {
  std::vector<std::string> problems;
  if (a.pallas_calls == 0) problems.emplace_back("no Pallas kernel call in the module");
  for (const auto& target : a.refused_custom_calls)
    problems.push_back(fmt::format("custom call '{}' (host callbacks and foreign kernels are refused)", target));
  problems.insert(problems.end(), a.forbidden_outside.begin(), a.forbidden_outside.end());
  if (!a.data_dependent_addressing.empty())
    problems.push_back(
        fmt::format("data-dependent addressing outside the Pallas kernels: {}{} (gathers belong in the kernel)",
                    a.data_dependent_addressing.front(),
                    a.data_dependent_addressing.size() > 1
                        ? fmt::format(", and {} more op(s) like it", a.data_dependent_addressing.size() - 1)
                        : ""));
  for (const auto& loop : a.outside_loops)
    problems.push_back(fmt::format("a loop outside the Pallas kernels carries tensor data ({})", loop));
  if (a.pallas_calls > 0 && !a.output_from_kernel) problems.emplace_back("no Pallas kernel result reaches the output");
  if (a.outside_share > options.max_outside_share)
    problems.push_back(fmt::format("{:.1f}% of the work outside the Pallas kernels ({})", 100 * a.outside_share,
                                   largest_ops(t.op_work)));
  if (a.moved_share > options.max_moved_share)
    problems.push_back(fmt::format(
        "{:.1f}% of the task's bytes moved outside the Pallas kernels (bytes: {}; data movement belongs in the "
        "kernel, only weights may be packed outside)",
        100 * a.moved_share, largest_ops(a.moved_ops)));
  return problems;
}

// Per @main argument, the task input it is (see module_analysis_options::main_inputs).
std::vector<std::size_t> main_argument_inputs(const hlo_function& main, const module_analysis_options& options) {
  std::vector<std::size_t> map = options.main_inputs;
  if (map.empty())
    for (std::size_t i = 0; i < main.args.size(); ++i) map.push_back(i);
  if (map.size() != main.args.size())
    throw module_parse_error(
        main.line, fmt::format("@main takes {} arguments but {} task inputs were kept", main.args.size(), map.size()));
  if (!options.inputs.empty())
    for (const std::size_t input : map)
      if (input >= options.inputs.size())
        throw module_parse_error(main.line, fmt::format("@main's arguments are {} of the task's {} inputs",
                                                        fmt::join(map, ", "), options.inputs.size()));
  return map;
}

// "input 'ids'", "inputs 'ids', 'x'" (an argument's %name when the task's inputs are not known).
std::string input_names(const detail::arg_set& args, const hlo_function& main, const std::vector<std::size_t>& map,
                        const module_analysis_options& options) {
  std::vector<std::string> names;
  for (const std::size_t arg : args)
    names.push_back(fmt::format("'{}'", options.inputs.empty() ? main.args[arg] : options.inputs[map[arg]]));
  return fmt::format("input{} {}", names.size() > 1 ? "s" : "", fmt::join(names, ", "));
}

// Without a byte model at this dtype: reading every input once and writing the output once.
double io_bytes(const hlo_function& main) {
  double bytes = 0;
  for (const auto& type : main.arg_types) bytes += detail::bytes_of(type, main.line);
  for (const auto& type : main.result_types) bytes += detail::bytes_of(type, main.line);
  return bytes;
}

// Data-dependent addressing and the moved share (the rules at the top of module_analysis.hpp).
void add_movement(module_analysis& a, const hlo_module& module, const hlo_function& main,
                  const module_analysis_options& options) {
  const auto map = main_argument_inputs(main, options);
  std::vector<bool> weight_args;
  for (std::size_t i = 0; i < main.args.size(); ++i)
    weight_args.push_back(!options.inputs.empty() && options.weights.contains(options.inputs[map[i]]));
  const auto totals = detail::count_data_movement(module, weight_args, options.scalar_setup_elements);
  for (const auto& use : totals.addressing)
    a.data_dependent_addressing.push_back(fmt::format("{} on line {} takes {} from {}", use.op, use.line, use.what,
                                                      input_names(use.args, main, map, options)));
  a.moved_bytes = totals.moved_bytes;
  a.moved_ops = totals.op_bytes;
  const double bytes_model = options.task_bytes > 0 ? options.task_bytes : io_bytes(main);
  a.task_volume_bytes = std::max(bytes_model, options.task_flops * options.flop_element_bytes);
  a.moved_share = a.task_volume_bytes > 0 ? a.moved_bytes / a.task_volume_bytes : (a.moved_bytes > 0 ? 1.0 : 0.0);
}

}  // namespace

module_analysis analyze_module(std::string_view stablehlo, const std::vector<kernel_ir>& kernels,
                               const module_analysis_options& options) {
  const hlo_module module = parse_stablehlo(strip_locations(stablehlo));
  const auto main = module.functions.find("main");
  if (main == module.functions.end()) throw module_parse_error(1, "expected a func.func @main in the module");
  const hlo_function& fn = main->second;
  const outside_totals t = detail::count_outside_work(module, "main", fn.line, options);
  module_analysis a = summarize(
      t, detail::results_from_kernel(module, "main", std::vector<bool>(fn.args.size(), false), fn.line), options);
  add_movement(a, module, fn, options);
  a.problems = module_problems(a, t, options);
  a.precision = analyze_kernel_precision(kernels, options);
  std::size_t written = 0;
  for (const auto& [name, f] : module.functions) written += written_pallas_calls(f.body);
  if (options.float_task && kernels.size() < written)
    a.precision.problems.push_back(
        fmt::format("the module has {} Pallas custom call(s) but the IR of {} kernel(s) was given: precision "
                    "unverified",
                    written, kernels.size()));
  a.problems.insert(a.problems.end(), a.precision.problems.begin(), a.precision.problems.end());
  for (const auto& k : kernels)
    if (const auto backend = backend_of_target(k.target)) a.backends.insert(std::string(to_string(*backend)));
  return a;
}

std::optional<kernel_backend> backend_of_target(std::string_view target) {
  if (target == "mosaic_gpu_v2") return kernel_backend::mosaic_gpu;
  if (target == "__gpu$xla.gpu.triton" || target == "triton_kernel_call_ffi") return kernel_backend::triton;
  return std::nullopt;
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
          {"data_dependent_addressing", data_dependent_addressing},
          {"moved_bytes", moved_bytes},
          {"task_volume_bytes", task_volume_bytes},
          {"moved_share", moved_share},
          {"moved_ops", moved_ops},
          {"output_from_kernel", output_from_kernel},
          {"problems", problems},
          {"backends", backends},
          {"precision", precision.to_json()}};
}

}  // namespace pallasbench
