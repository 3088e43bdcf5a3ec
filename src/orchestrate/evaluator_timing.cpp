// The evaluator's timing phase: an input set of its own, alternating batches of kernel and XLA
// samples, the recheck of every batch's last output, then the launch check and the floor.
#include <algorithm>

#include <fmt/format.h>

#include "detail/evaluator_errors.hpp"
#include "pallasbench/evaluator.hpp"
#include "pallasbench/timing_replies.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

// CUPTI's launches of each sample of a reply ([name, grid x, y, z, threads] each).
void add_launches(const json& reply, std::vector<std::vector<kernel_launch>>& into) {
  if (!reply.contains("sample_launches") || !reply["sample_launches"].is_array()) return;
  for (const auto& sample : reply["sample_launches"]) {
    auto& launches = into.emplace_back();
    for (const auto& l : sample)
      launches.push_back({l.at(0).get<std::string>(),
                          {{l.at(1).get<std::int64_t>(), l.at(2).get<std::int64_t>(), l.at(3).get<std::int64_t>()},
                           l.at(4).get<std::int64_t>()}});
  }
}

// The last timed call's output against the timing inputs' reference: one more batch rechecked,
// or the failure that ends the evaluation.
void recheck_timed_output(const std::filesystem::path& output, const npy_array& reference, const task_info& task,
                          json& recheck) {
  const auto out = npy_array::open(output);
  const auto c = compare(out, reference, task.tol);
  const int batch = recheck.value("batches", 0) + 1;
  recheck["batches"] = batch;
  recheck["max_rel_norm_error"] = std::max(recheck.value("max_rel_norm_error", 0.0), c.rel_norm_error);
  if (!c.passed)
    throw detail::wrong_output(
        fmt::format("differs under timing: the last timed call of batch {}, on the timing inputs, fails the check: {}",
                    batch, c.reason));
}

}  // namespace

void evaluator::time_kernel(task_result& result, const task_info& task) {
  // Timing inputs of their own, never one a check used: a kernel that knows the checked inputs
  // cannot answer them from a table here. Their reference is mapped and unlinked at once.
  const auto dir = m_scratch.fresh(task.name + "/timing");
  const std::uint64_t inputs_seed = m_seeds->timing();
  const auto reply = make_reference(task, inputs_seed, dir);
  const auto reference_output = npy_array::open(reply.at("output").at("path").get<std::string>());
  std::filesystem::remove(reference_output.path());
  const auto paths = detail::input_paths(reply);
  const auto last_output = dir / "last_timed_output.npy";
  // The speed baseline runs at the kernel's precision class: XLA's default (TF32 allowed) when
  // the kernel uses TF32, full f32 otherwise.
  const std::string precision = task.uses_tf32 ? "default" : "highest";
  struct side {
    worker& process;
    json request;
    std::string phase;
    side_sampling sampling;
    bool warm = false;
  };
  side kernel{m_pool.executor(),
              {{"cmd", "time"}, {"inputs", paths}, {"output", last_output.string()}},
              "time",
              side_sampling(m_timing.stopping)};
  side reference{m_pool.reference(),
                 {{"cmd", "time_reference"}, {"inputs", paths}, {"task", task.name}, {"precision", precision}},
                 "time_reference",
                 side_sampling(m_timing.stopping)};
  timing_result timing;
  timing.reference_precision = precision;
  timing.inputs_seed = inputs_seed;
  timing.recheck = {{"batches", 0}, {"max_rel_norm_error", 0.0}};
  const json max_clock = m_environment.value(json::json_pointer("/gpu/device/sm_clock_max_mhz"), json(nullptr));
  if (max_clock.is_number()) timing.sm_clock_max_mhz = max_clock.get<double>();
  std::vector<std::vector<kernel_launch>> launches;
  // Alternate batches of kernel and reference samples, so drift hits both; the stopping rule
  // (C++) decides when each has enough.
  while (!kernel.sampling.rule.finished() || !reference.sampling.rule.finished()) {
    for (side* s : {&kernel, &reference}) {
      if (s->sampling.rule.finished()) continue;
      m_phase = s->phase;
      const auto batch = s->process.call(batch_request(s->request, s->sampling.typical_cost_us(), s->warm), timeout());
      s->warm = true;
      add_timing_reply(batch, s->sampling, timing);
      if (s != &kernel) continue;
      if (batch.contains("peak_bytes") && batch["peak_bytes"].is_number()) result.peak_bytes = batch["peak_bytes"];
      add_launches(batch, launches);
      recheck_timed_output(last_output, reference_output, task, timing.recheck);
    }
  }
  timing.recheck["passed"] = true;
  auto finish = [](side& s) {
    const auto& rule = s.sampling.rule;
    s.sampling.kept.series = timed_series{summarize(rule.samples()), rule.converged(), rule.state()};
    return std::move(s.sampling.kept);
  };
  const auto& kernel_samples = kernel.sampling.rule.samples();  // finish() moves `kept`, not the rule
  const auto& reference_samples = reference.sampling.rule.samples();
  timing.kernel = finish(kernel);
  timing.reference = finish(reference);
  result.timing = std::move(timing);
  check_timing(result, task, reference_output, launches, kernel_samples, reference_samples);
}

void evaluator::check_timing(task_result& result, const task_info& task, const npy_array& reference,
                             const std::vector<std::vector<kernel_launch>>& launches, std::span<const double> kernel_us,
                             std::span<const double> reference_us) {
  auto& timing = *result.timing;
  const bool device_timed = timing.timer == "cupti";
  const auto launch = device_timed ? check_launches(m_module_kernels, launches)
                                   : launches_not_visible("the wall-clock timer sees no kernel launches");
  timing.launch_check = launch.to_json();
  floor_check floor;
  if (m_timing.ceilings) {
    const auto size = m_config.size;
    const work_model work{task.bytes.contains(size) ? static_cast<double>(task.bytes.at(size)) : 0.0,
                          static_cast<double>(reference.data().size()),
                          task.flops.contains(size) ? static_cast<double>(task.flops.at(size)) : 0.0, task.integer_ops};
    floor = check_floor(work, *m_timing.ceilings, kernel_us, reference_us);
  } else {
    floor = floor_not_applied(m_timing.no_ceilings_reason);
  }
  timing.floor = floor.to_json();
  if (launch.applicable && !launch.passed) {
    result.status = task_status::timing_rejected;
    result.failure = failure_info{"time", launch.reason, ""};
  } else if (floor.applied && !floor.passed) {
    result.status = task_status::timing_rejected;
    result.failure = failure_info{"time", floor.reason, ""};
  }
}

json evaluator::batch_request(json request, double typical_cost_us, bool warm) const {
  const int batch = batch_size(typical_cost_us, m_timing.batch_seconds, m_timing.stopping.min_samples);
  request["warmup"] = warm ? 0 : m_timing.warmup;
  request["samples"] = batch;
  // One batch may take at most the batch's share of time (device-timed samples cost far more host
  // time than they measure: flush, dispatch, synchronisation).
  request["max_seconds"] = std::min(m_timing.stopping.budget_s, std::max(m_timing.batch_seconds * 4, 0.2));
  return request;
}

}  // namespace pallasbench
