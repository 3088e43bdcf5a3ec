#include "pallasbench/suite/task_info.hpp"

#include <algorithm>

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
  for (const auto& in : j.at("inputs")) t.inputs.push_back({in.at("name"), in.at("domain"), in.value("weight", false)});
  for (const auto& [size, inputs] : j.at("shapes").items())
    for (const auto& [input, shape] : inputs.items()) t.shapes[size][input] = shape.get<std::vector<std::int64_t>>();
  const auto tolerance_of = [](const nlohmann::json& tol) {
    return tolerance{tol.at("atol").get<double>(), tol.at("rtol").get<double>(), tol.at("rel_norm").get<double>()};
  };
  t.tol = tolerance_of(j.at("tolerance"));
  if (j.contains("views") && j["views"].is_object())
    for (const auto& [dtype, view] : j["views"].items()) {
      dtype_view v{tolerance_of(view.at("tolerance")), view.at("dtypes").get<std::map<std::string, std::string>>(),
                   view.at("output_dtype").get<std::string>(), std::nullopt};
      if (view.contains("bytes")) v.bytes = view["bytes"].get<std::map<std::string, std::int64_t>>();
      t.views[dtype] = std::move(v);
    }
  t.uses_tf32 = j.value("uses_tf32", false);
  t.order_dependent = j.value("order_dependent", false);
  t.integer_ops = j.value("integer_ops", false);
  if (j.contains("stress") && j["stress"].is_object()) {
    t.stress_cases = j["stress"].value("run", std::vector<std::string>{});
    t.stress_skipped = j["stress"].value("skipped", std::map<std::string, std::string>{});
  }
  for (const auto& name : j.value("backends", std::vector<std::string>{"triton"}))
    t.backends.push_back(parse_enum<kernel_backend>(name));
  for (const auto& name : j.value("gpu_only_backends", std::vector<std::string>{}))
    t.gpu_only.push_back(parse_enum<kernel_backend>(name));
  t.dtypes = j.value("dtypes", std::map<std::string, std::string>{});
  t.flops = j.value("flops", std::map<std::string, std::int64_t>{});
  t.bytes = j.value("bytes", std::map<std::string, std::int64_t>{});
  t.output_dtype = j.value("output_dtype", "");
  const auto configs = j.value("kernel_configs", nlohmann::json::object());  // items() must not outlive it
  for (const auto& [backend, config] : configs.items()) t.kernel_configs[parse_enum<kernel_backend>(backend)] = config;
  t.source = j.value("kernel_source", "");
  t.bundled_source = j.value("kernel_bundled_source", t.source);
  t.reference_source = j.value("reference_source", "");
  return t;
}

task_info task_info::at(float_dtype dtype) const {
  const std::string name(to_string(dtype));
  const auto it = views.find(name);
  if (it == views.end())
    throw std::runtime_error(
        fmt::format("task '{}' has no view at {} (its describe has no views.{})", this->name, name, name));
  const auto& view = it->second;
  task_info t = *this;
  t.tol = view.tol;
  t.dtypes = view.dtypes;
  t.output_dtype = view.output_dtype;
  t.bytes = view.bytes.value_or(std::map<std::string, std::int64_t>{});
  return t;
}

std::vector<kernel_backend> task_info::implementations(backend_choice choice, bool on_gpu) const {
  if (backends.empty()) throw std::runtime_error(fmt::format("task '{}' declares no implementation", name));
  std::vector<kernel_backend> runnable;
  for (const auto b : backends)
    if (on_gpu || std::find(gpu_only.begin(), gpu_only.end(), b) == gpu_only.end()) runnable.push_back(b);
  const auto only = [&](kernel_backend b) {
    return std::find(runnable.begin(), runnable.end(), b) != runnable.end() ? std::vector{b}
                                                                            : std::vector<kernel_backend>{};
  };
  switch (choice) {
    case backend_choice::preferred:
      return runnable.empty() ? runnable : std::vector{runnable.front()};
    case backend_choice::all:
      return runnable;
    case backend_choice::mosaic_gpu:
      return only(kernel_backend::mosaic_gpu);
    case backend_choice::triton:
      return only(kernel_backend::triton);
  }
  return {};
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
