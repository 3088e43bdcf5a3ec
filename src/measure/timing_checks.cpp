#include "pallasbench/measure/timing_checks.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace pallasbench {
namespace {

using nlohmann::json;

std::optional<launch_geometry> geometry_of(const json& k) {
  for (const char* key : {"grid_x", "grid_y", "grid_z"})
    if (!k.contains(key) || !k[key].is_number_integer()) return std::nullopt;
  std::int64_t threads = 0;
  if (k.contains("block_threads") && k["block_threads"].is_number_integer())
    threads = k["block_threads"].get<std::int64_t>();  // a Mosaic GPU launch: its block's threads
  else if (k.contains("num_warps") && k["num_warps"].is_number_integer())
    threads = 32 * k["num_warps"].get<std::int64_t>();  // Triton runs num_warps warps of 32 threads
  else
    return std::nullopt;
  return launch_geometry{
      {k["grid_x"].get<std::int64_t>(), k["grid_y"].get<std::int64_t>(), k["grid_z"].get<std::int64_t>()}, threads};
}

bool named_in(const std::string& name, std::span<const module_kernel> kernels) {
  return !name.empty() && std::any_of(kernels.begin(), kernels.end(), [&](const auto& k) { return k.name == name; });
}

bool shaped_as(const launch_geometry& g, std::span<const module_kernel> kernels) {
  return std::any_of(kernels.begin(), kernels.end(), [&](const auto& k) { return k.geometry && *k.geometry == g; });
}

}  // namespace

std::vector<module_kernel> module_kernel::from_load_reply(const json& kernels) {
  std::vector<module_kernel> out;
  if (!kernels.is_array()) return out;
  for (const auto& k : kernels) {
    module_kernel m;
    if (k.contains("name") && k["name"].is_string()) m.name = k["name"].get<std::string>();
    m.geometry = geometry_of(k);
    if (!m.name.empty() || m.geometry) out.push_back(std::move(m));
    // A Mosaic GPU module launches its kernels under names of their own (the decoder reads them
    // from the module: "<function>_kernel", with the launch's grid and block where constant).
    if (k.contains("launches") && k["launches"].is_array())
      for (const auto& launch : k["launches"])
        if (launch.is_object() && launch.contains("name") && launch["name"].is_string() &&
            !launch["name"].get<std::string>().empty())
          out.push_back({launch["name"].get<std::string>(), geometry_of(launch)});
  }
  return out;
}

launch_check check_launches(std::span<const module_kernel> kernels,
                            std::span<const std::vector<kernel_launch>> samples) {
  launch_check check;
  check.applicable = true;
  check.samples = samples.size();
  if (kernels.empty()) {
    check.reason = "the module's kernels cannot be identified (no decoded Pallas kernel): no launch can be matched";
    check.without = samples.size();
    return check;
  }
  for (const auto& launches : samples) {
    if (std::any_of(launches.begin(), launches.end(), [&](const auto& l) { return named_in(l.name, kernels); }))
      ++check.by_name;
    else if (std::any_of(launches.begin(), launches.end(),
                         [&](const auto& l) { return shaped_as(l.geometry, kernels); }))
      ++check.by_geometry;
    else
      ++check.without;
  }
  check.passed = check.without == 0 && check.samples > 0;
  if (check.samples == 0)
    check.reason = "no timed samples";
  else if (!check.passed)
    check.reason =
        fmt::format("{} of {} timed samples launched no kernel the module defines", check.without, check.samples);
  return check;
}

launch_check launches_not_visible(std::string reason) {
  launch_check check;
  check.reason = std::move(reason);
  return check;
}

json launch_check::to_json() const {
  return {{"applicable", applicable},
          {"passed", applicable ? json(passed) : json(nullptr)},
          {"samples", samples},
          {"by_name", by_name},
          {"by_geometry", by_geometry},
          {"without", without},
          {"reason", reason.empty() ? json(nullptr) : json(reason)}};
}

std::optional<device_ceilings> device_ceilings::from_json(const json& ceilings, const json& l2_bytes,
                                                          std::string source) {
  if (!ceilings.is_object()) return std::nullopt;
  device_ceilings c;
  c.source = std::move(source);
  const json copy = ceilings.value("copy", json::object());
  c.copy_gbps = copy.is_object() ? copy.value("gbps", 0.0) : 0.0;
  if (c.copy_gbps <= 0) return std::nullopt;
  for (const char* name : {"matmul_f32", "matmul_tf32", "matmul_bf16", "matmul_f16"}) {
    const json peak = ceilings.value(name, json::object());
    const double tflops = peak.is_object() ? peak.value("tflops", 0.0) : 0.0;
    if (tflops > c.peak_tflops) {
      c.peak_tflops = tflops;
      c.peak_name = name;
    }
  }
  if (l2_bytes.is_number_integer()) c.l2_bytes = l2_bytes.get<std::int64_t>();
  return c;
}

floor_check check_floor(const work_model& work, const device_ceilings& ceilings, std::span<const double> kernel_us,
                        std::span<const double> reference_us) {
  floor_check check;
  check.applied = true;
  check.ceilings = ceilings;
  // Reads come from memory (the L2 was flushed); writes up to the L2's size may still sit in it
  // when the sample ends.
  const double absorbed = std::min(work.output_bytes, static_cast<double>(ceilings.l2_bytes.value_or(0)));
  const double bytes = std::max(0.0, work.bytes - absorbed);
  check.bytes_floor_us = bytes / (ceilings.copy_gbps * 1e3);  // 1 GB/s = 1e3 bytes per us
  if (!work.integer_ops && ceilings.peak_tflops > 0) check.flops_floor_us = work.flops / (ceilings.peak_tflops * 1e6);
  check.bound = check.flops_floor_us > check.bytes_floor_us ? "flops" : "bytes";
  check.floor_us = (1 - k_floor_margin) * std::max(check.bytes_floor_us, check.flops_floor_us);
  check.fastest_us = kernel_us.empty() ? 0 : *std::min_element(kernel_us.begin(), kernel_us.end());
  check.below = static_cast<std::size_t>(
      std::count_if(kernel_us.begin(), kernel_us.end(), [&](double t) { return t < check.floor_us; }));
  check.reference_below = static_cast<std::size_t>(
      std::count_if(reference_us.begin(), reference_us.end(), [&](double t) { return t < check.floor_us; }));
  check.passed = check.below == 0;
  if (!check.passed)
    check.reason = fmt::format(
        "faster than the hardware allows: {} of {} samples under the {} floor of {:.3g} us (fastest {:.3g} us)",
        check.below, kernel_us.size(), check.bound, check.floor_us, check.fastest_us);
  return check;
}

floor_check floor_not_applied(std::string reason) {
  floor_check check;
  check.reason = std::move(reason);
  return check;
}

json floor_check::to_json() const {
  json j = {{"applied", applied},
            {"passed", applied ? json(passed) : json(nullptr)},
            {"reason", reason.empty() ? json(nullptr) : json(reason)}};
  if (!applied) return j;
  j.update({{"floor_us", floor_us},
            {"bound", bound},
            {"bytes_floor_us", bytes_floor_us},
            {"flops_floor_us", flops_floor_us},
            {"margin", k_floor_margin},
            {"fastest_us", fastest_us},
            {"samples_below", below},
            {"reference_samples_below", reference_below}});
  if (ceilings)
    j["ceilings"] = {{"copy_gbps", ceilings->copy_gbps},
                     {"peak_tflops", ceilings->peak_tflops},
                     {"peak", ceilings->peak_name},
                     {"l2_bytes", ceilings->l2_bytes ? json(*ceilings->l2_bytes) : json(nullptr)},
                     {"source", ceilings->source}};
  return j;
}

}  // namespace pallasbench
