#include "pallasbench/suite/task_info.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pallasbench {

task_info task_info::from_json(const nlohmann::json& j) {
  task_info t;
  t.name = j.at("name").get<std::string>();
  t.level = j.at("level").get<int>();
  t.category = j.at("category").get<std::string>();
  t.path = j.value("path", "");
  t.sha256 = j.value("sha256", "");
  for (const auto& in : j.at("inputs")) t.inputs.push_back({in.at("name"), in.at("domain")});
  for (const auto& [size, inputs] : j.at("shapes").items())
    for (const auto& [input, shape] : inputs.items()) t.shapes[size][input] = shape.get<std::vector<std::int64_t>>();
  const auto tolerance_of = [](const nlohmann::json& tol) {
    return tolerance{tol.at("atol").get<double>(), tol.at("rtol").get<double>(), tol.at("rel_norm").get<double>()};
  };
  t.tol = tolerance_of(j.at("tolerance"));
  if (j.contains("tolerances") && j["tolerances"].is_object())
    for (const auto& [dtype, tol] : j["tolerances"].items()) t.tolerances[dtype] = tolerance_of(tol);
  t.uses_tf32 = j.value("uses_tf32", false);
  t.order_dependent = j.value("order_dependent", false);
  t.integer_ops = j.value("integer_ops", false);
  if (j.contains("stress") && j["stress"].is_object()) {
    t.stress_cases = j["stress"].value("run", std::vector<std::string>{});
    t.stress_skipped = j["stress"].value("skipped", std::map<std::string, std::string>{});
  }
  t.reference_float64 = j.value("reference_float64", false);
  t.dtypes = j.value("dtypes", std::map<std::string, std::string>{});
  t.flops = j.value("flops", std::map<std::string, std::int64_t>{});
  t.bytes = j.value("bytes", std::map<std::string, std::int64_t>{});
  t.bytes_by_dtype = j.value("bytes_by_dtype", std::map<std::string, std::map<std::string, std::int64_t>>{});
  t.output_dtype = j.value("output_dtype", "");
  t.kernel_config = j.value("kernel_config", nlohmann::json());
  t.source = j.value("kernel_source", "");
  t.bundled_source = j.value("kernel_bundled_source", t.source);
  t.reference_source = j.value("reference_source", "");
  return t;
}

task_info task_info::at(float_dtype dtype) const {
  task_info t = *this;
  const std::string name(to_string(dtype));
  if (dtype == float_dtype::float32) return t;
  const auto it = tolerances.find(name);
  if (it == tolerances.end())
    throw std::runtime_error(fmt::format("task '{}' declares no tolerance at {} (its describe has no "
                                         "tolerances.{})", this->name, name, name));
  t.tol = it->second;
  // The float32 byte model would double a 2-byte kernel's bandwidth: without one at the dtype,
  // none (no bandwidth figure, no bytes floor).
  const auto bytes = bytes_by_dtype.find(name);
  t.bytes = bytes == bytes_by_dtype.end() ? std::map<std::string, std::int64_t>{} : bytes->second;
  // A float32 output follows the float inputs; with none, nothing the kernel is given names a
  // float type, and the output keeps its own (task/dtypes.py's output_at_dtype).
  bool float_input = false;
  for (auto& [input, input_dtype] : t.dtypes) {
    float_input = float_input || input_dtype == "float32";
    input_dtype = at_dtype(input_dtype, dtype);
  }
  if (float_input) t.output_dtype = at_dtype(output_dtype, dtype);
  return t;
}

std::string task_info::shape_summary(problem_size size) const {
  std::vector<std::string> parts;
  const auto& by_input = shapes.at(std::string(to_string(size)));
  for (const auto& in : inputs) parts.push_back(fmt::format("{}({})", in.name, fmt::join(by_input.at(in.name), ",")));
  return fmt::format("{}", fmt::join(parts, " "));
}

namespace {

std::optional<double> at_size(const std::map<std::string, std::int64_t>& model, problem_size size) {
  const auto it = model.find(std::string(to_string(size)));
  return it == model.end() ? std::nullopt : std::optional<double>(static_cast<double>(it->second));
}

}  // namespace

std::optional<double> task_info::flops_at(problem_size size) const { return at_size(flops, size); }
std::optional<double> task_info::bytes_at(problem_size size) const { return at_size(bytes, size); }

}  // namespace pallasbench
