// The evaluator's timing phase: an input set of its own, alternating batches of kernel and XLA
// samples, the recheck of every batch's last output, then the launch check and the floor.
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "detail/evaluator_errors.hpp"
#include "pallasbench/measure/timing_replies.hpp"
#include "pallasbench/measure/warm_up.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"

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

}  // namespace

void evaluator::recheck_timed_output(const std::filesystem::path& output, const npy_array& reference,
                                     const task_info& task, const protocol::reference_request& request,
                                     json& recheck) {
  const auto out = npy_array::open(output);
  const auto c = judge_case(compare(out, reference, task.tol), request, reference, task.tol);
  const int batch = recheck.value("batches", 0) + 1;
  recheck["batches"] = batch;
  recheck["max_rel_norm_error"] = std::max(recheck.value("max_rel_norm_error", 0.0), c.rel_norm_error);
  if (!c.passed)
    throw detail::wrong_output(
        fmt::format("differs under timing: the last timed call of batch {}, on the timing inputs, fails the check: {}",
                    batch, c.reason));
}

namespace {

// One side of the timing (the kernel's, or the XLA reference's): its worker, its request, its
// warm-up and stopping rules.
struct timed_side_state {
  worker& process;
  failure_phase phase;
  std::function<json(const protocol::timing_batch&)> request;
  warm_up_rule warm_up;
  side_sampling sampling;
};

// The host time of each warm-up call a reply reports: exactly as many as were asked for, or the
// worker broke the protocol (and the warm-up rule could never settle).
std::vector<double> warmup_times(const json& reply, int asked) {
  std::vector<double> times;
  if (reply.contains("warmup_us") && reply["warmup_us"].is_array())
    for (const auto& t : reply["warmup_us"])
      if (t.is_number()) times.push_back(t.get<double>());
  if (times.size() != static_cast<std::size_t>(asked))
    throw protocol::reply_error(
        fmt::format("a timing reply reports {} warm-up calls of the {} asked for", times.size(), asked));
  return times;
}

}  // namespace

void evaluator::profile(task_result& result, const task_info& task) {
  // Timing inputs of their own, never one a check used: a kernel that knows the checked inputs
  // cannot answer them from a table here. Their reference is mapped and unlinked at once.
  const auto dir = m_scratch.fresh(task.name + "/timing");
  const std::uint64_t inputs_seed = m_seeds->timing();
  const auto timing_request = reference_request(task, inputs_seed, dir);
  const auto reply = make_reference(timing_request);
  const auto reference_output = npy_array::open(reply.output.path);
  std::filesystem::remove(reference_output.path());
  const auto paths = reply.input_paths();
  const auto last_output = dir / "last_timed_output.npy";
  // The speed baseline runs at the kernel's precision class: XLA's default (TF32 allowed) when
  // the kernel uses TF32, full f32 otherwise; at a low-precision dtype, XLA's default on the
  // dtype's arrays (its bf16/f16 tensor-core paths).
  const bool low_precision = m_config.dtype != float_dtype::float32;
  const std::string precision = task.uses_tf32 || low_precision ? "default" : "highest";
  std::string kernel_output;  // where the batch's last output goes for the recheck; empty: not saved
  timed_side_state kernel{m_pool.executor(), failure_phase::time,
                          [&](const protocol::timing_batch& b) {
                            return protocol::time_request{paths, kernel_output, b}.to_json();
                          },
                          warm_up_rule(m_timing.warmup), side_sampling(m_timing.stopping)};
  timed_side_state reference{
      m_pool.reference(), failure_phase::time_reference,
      [&](const protocol::timing_batch& b) {
        return protocol::time_reference_request{paths, task.name, precision, b, m_config.dtype}.to_json();
      },
      warm_up_rule(m_timing.warmup), side_sampling(m_timing.stopping)};
  timing_result timing;
  timing.reference_precision = precision;
  timing.inputs_seed = inputs_seed;
  timing.recheck = {{"batches", 0}, {"max_rel_norm_error", 0.0}};
  const json max_clock = m_environment.value(json::json_pointer("/gpu/device/sm_clock_max_mhz"), json(nullptr));
  if (max_clock.is_number()) timing.sm_clock_max_mhz = max_clock.get<double>();
  std::vector<std::vector<kernel_launch>> launches;
  {
    // One untimed call of each side under a shared lease first: what a first batch would
    // otherwise do holding the device alone (the XLA baseline's compile and autotuning, the
    // inputs' upload, the device timer's start) overlaps other lanes' work instead. Its samples
    // are dropped; the warm-up rule still judges the batches that follow.
    const auto lease = gpu_work();
    for (auto* s : {&kernel, &reference}) {
      m_phase = s->phase;
      (void)s->process.call(s->request({1, 1, m_timing.stopping.budget_s}), timeout());
    }
  }
  // No other lane's work runs on the device while the series are timed (device_token.hpp).
  const alone_scope alone(*this, &m_clock);
  int kernel_batch = 0;
  // Alternate batches of kernel and reference samples, so drift hits both. The warm-up rule and
  // the stopping rule (C++, both) decide when each side is warm and when it has enough: the first
  // batch warms up and samples at once; its samples count only if the warm-up settled in it.
  while (!kernel.sampling.rule.finished() || !reference.sampling.rule.finished()) {
    for (auto* s : {&kernel, &reference}) {
      if (s->sampling.rule.finished()) continue;
      m_phase = s->phase;
      const bool recheck = s == &kernel && rechecked_batch(++kernel_batch);
      kernel_output = recheck ? last_output.string() : std::string();
      const protocol::timing_batch batch{
          s->warm_up.next_calls(),
          batch_size(s->sampling.typical_cost_us(), m_timing.batch_seconds, m_timing.stopping.min_samples),
          // One batch may take at most the batch's share of time (device-timed samples cost far
          // more host time than they measure: flush, dispatch, synchronisation).
          std::min(m_timing.stopping.budget_s, std::max(m_timing.batch_seconds * 4, 0.2))};
      const auto answer = s->process.call(s->request(batch), timeout());
      s->warm_up.add(warmup_times(answer, batch.warmup));
      if (s->warm_up.settled()) add_timing_reply(answer, s->sampling, timing);
      if (s != &kernel) continue;
      if (answer.contains("peak_bytes") && answer["peak_bytes"].is_number()) result.peak_bytes = answer["peak_bytes"];
      if (s->warm_up.settled()) add_launches(answer, launches);
      if (recheck) recheck_timed_output(last_output, reference_output, task, timing_request, timing.recheck);
    }
  }
  timing.recheck["passed"] = true;
  auto finish_side = [](timed_side_state& s) {
    const auto& rule = s.sampling.rule;
    s.sampling.kept.series = timed_series{summarize(rule.samples()), rule.converged(), rule.state()};
    return std::move(s.sampling.kept);
  };
  const auto& kernel_samples = kernel.sampling.rule.samples();  // finish_side() moves `kept`, not the rule
  const auto& reference_samples = reference.sampling.rule.samples();
  timing.kernel = finish_side(kernel);
  timing.reference = finish_side(reference);
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
    const work_model work{task.bytes_at(m_config.size).value_or(0.0), static_cast<double>(reference.data().size()),
                          task.flops_at(m_config.size).value_or(0.0), task.integer_ops};
    floor = check_floor(work, *m_timing.ceilings, kernel_us, reference_us);
  } else {
    floor = floor_not_applied(m_timing.no_ceilings_reason);
  }
  timing.floor = floor.to_json();
  m_phase = failure_phase::time;
  if (launch.applicable && !launch.passed) throw detail::refused_timing(launch.reason);
  if (floor.applied && !floor.passed) throw detail::refused_timing(floor.reason);
}

}  // namespace pallasbench
