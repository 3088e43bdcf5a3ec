// The evaluator's steps and the candidate's loading: trace, load, analyse, compile.
#include "pallasbench/orchestrate/evaluator.hpp"

#include <chrono>

#include <fmt/format.h>

#include "detail/evaluator_errors.hpp"
#include "pallasbench/check/filters/registry.hpp"
#include "pallasbench/check/filters/source_analysis.hpp"
#include "pallasbench/core/uuid.hpp"
#include "pallasbench/record/compiler_record.hpp"

namespace pallasbench {
namespace {

using detail::refused_candidate;
using detail::refused_module;
using nlohmann::json;

// Host seconds since t0, as the harness measured them (the record's trust.phase_s).
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

evaluator::evaluator(worker_pool& pool, const scratch_dir& scratch, run_config config, timing_options timing,
                     json environment, std::optional<std::string> project_sha, std::string run_id)
    : m_pool(pool),
      m_scratch(scratch),
      m_default_config(config),
      m_config(std::move(config)),
      m_timing(std::move(timing)),
      m_environment(std::move(environment)),
      m_project_sha(std::move(project_sha)),
      m_run_id(std::move(run_id)) {}

task_result evaluator::evaluate(const evaluation_job& job) {
  m_config = job.config;
  auto result = evaluate_configured(job.task, job.candidate);
  result.request_id = job.request_id;
  return result;
}

task_result evaluator::evaluate(const task_info& task, const candidate_spec& candidate) {
  m_config = m_default_config;
  return evaluate_configured(task, candidate);
}

void evaluator::set_trace(run_trace& trace, int track) {
  m_trace = &trace;
  m_trace_track = track;
  m_clock.on_segment(
      [this](work_phase phase, phase_clock::clock::time_point begin, phase_clock::clock::time_point end) {
        m_trace->span(m_trace_track, std::string(to_string(phase)), "phase", begin, end, {{"task", m_trace_task}});
      });
}

task_result evaluator::evaluate_attempt(const task_info& described, const candidate_spec& candidate) {
  // Every instant until the result is returned counts in one phase: the checks unless a step
  // below says otherwise.
  const auto began = phase_clock::clock::now();
  m_trace_task = fmt::format("{} ({})", described.name, m_config.label());
  m_clock.start(work_phase::checks);
  const auto task = described.at(m_config.dtype);  // its tolerance and dtypes at the run's dtype
  auto result = prepare(task, candidate);
  const auto task_dir = m_scratch.fresh(task.name);
  try {
    evidence kept;
    verify(result, task, candidate, kept);  // ok, or it threw: the steps below run for a correct kernel only
    {
      const auto filtering = m_clock.enter(work_phase::filters);
      screen(result, task, kept);
    }
    collect_artifacts(result, m_timing.enabled);
    if (m_timing.enabled) {
      const auto timing = m_clock.enter(work_phase::timing);
      profile(result, task);
    }
  } catch (...) {
    fail(result, std::current_exception());  // rethrows interrupted_error (the scopes unwound)
  }
  finish(result, task_dir);
  m_clock.stop();
  result.phases = m_clock.to_json();
  result.device_index = m_device->index;
  result.device_uuid = m_device->uuid;
  if (m_trace)
    m_trace->span(m_trace_track, m_trace_task, "evaluation", began, phase_clock::clock::now(),
                  {{"status", std::string(to_string(result.status))}, {"uuid", result.uuid}});
  return result;
}

task_result evaluator::prepare(const task_info& task, const candidate_spec& candidate) {
  task_result result;
  result.run_id = m_run_id;
  result.uuid = make_uuid();
  result.task = task;
  result.config = m_config;
  const bool user = candidate.kind == candidate_kind::user;
  result.candidate.kind = candidate.kind;
  result.candidate.path = !user                             ? task.path
                          : candidate.recorded_name.empty() ? candidate.file.string()
                                                            : candidate.recorded_name;
  result.candidate.sha256 = candidate.sha256;
  result.candidate.source = user ? candidate.source : task.source;
  result.candidate.bundled_source = user ? candidate.bundled_source : task.bundled_source;
  if (!user) result.candidate.reference_source = task.reference_source;
  result.candidate.diff = user ? candidate.diff : "";
  result.environment = m_environment;
  result.project_sha = m_project_sha;
  m_analysis.reset();
  m_below_class = false;
  m_module_kernels.clear();
  m_pending_artifacts = nullptr;
  m_loaded.reset();
  m_seeds = seed_plan::for_evaluation(m_config.seed);
  result.seed = m_seeds->to_json();
  m_pool.clear_stderr_tails();
  return result;
}

void evaluator::verify(task_result& result, const task_info& task, const candidate_spec& candidate, evidence& kept) {
  if (!candidate.refused.empty()) {
    m_phase = failure_phase::load;
    throw refused_candidate(candidate.refused);
  }
  check_seeds(result, task, candidate, kept);  // each throws failed_check for a wrong output
  check_stress(result, task);
  result.status = task_status::ok;  // correct; every other status is fail()'s
}

void evaluator::finish(task_result& result, const std::filesystem::path& task_dir) {
  if (!m_pending_artifacts.is_null() && m_pool.has_executor()) {
    try {
      collect_artifacts(result, false);
    } catch (const std::exception&) {  // the task's status already says what went wrong
    }
  }
  m_pending_artifacts = nullptr;
  // A filter that could not run is a failed filter with its reason, never a silent pass.
  if (!result.robustness_passed) {
    result.robustness_passed = false;
    for (const auto& description : filter_descriptions())
      if (!result.filters.contains(description.name))
        result.filters[description.name] = {{"passed", false},
                                            {"value", nullptr},
                                            {"threshold", nullptr},
                                            {"direction", to_string(description.direction)},
                                            {"reason", fmt::format("not run: status {}", to_string(result.status))}};
  }
  if (result.stderr_tail.empty() && result.status != task_status::ok && m_pool.has_executor()) {
    // Executor stderr explains most failures past tracing (XLA messages): keep its tail.
    result.stderr_tail = m_pool.executor().stderr_tail();
  }
  result.trust["worker_memory"] = worker_memory();
  std::error_code ignored;
  std::filesystem::remove_all(task_dir, ignored);
}

void evaluator::load_candidate(task_result& result, const task_info& task, const candidate_spec& candidate,
                               const protocol::reference_reply& reference) {
  const auto specs = reference.input_specs();
  const auto traced = trace(result, task, candidate, specs);
  const auto compiling = m_clock.enter(work_phase::compile);
  m_phase = failure_phase::load;
  const auto t0 = std::chrono::steady_clock::now();
  m_loaded = protocol::load_request{traced.module, traced.analysis_module, specs};
  const auto loaded = protocol::call(m_pool.executor(), *m_loaded, timeout());
  result.trust["phase_s"]["load"] = seconds_since(t0);
  result.stablehlo = loaded.value("stablehlo", "");
  // The kernels of the module that runs (on the CPU, its interpret twin has none; the CUDA
  // lowering's are what a GPU would launch).
  m_module_kernels = module_kernel::from_load_reply(loaded.value("kernels", json::array()));
  const auto t1 = std::chrono::steady_clock::now();
  analyse(result, task, loaded);
  result.trust["phase_s"]["analysis"] = seconds_since(t1);
  const auto t2 = std::chrono::steady_clock::now();
  compile(result, task);
  result.trust["phase_s"]["compile"] = seconds_since(t2);
}

protocol::trace_reply evaluator::trace(task_result& result, const task_info& task, const candidate_spec& candidate,
                                       const std::vector<protocol::input_spec>& inputs) {
  m_phase = failure_phase::trace;
  const auto tracing = m_clock.enter(work_phase::trace);
  const bool user = candidate.kind == candidate_kind::user;
  // The harness sends the source the trusted reference process read: what the record holds is
  // what was traced, whatever the candidate says of its own __file__.
  protocol::trace_request request;
  if (user) {
    request.source = candidate.source;
    request.encoding = candidate.encoding;
    request.name = candidate.file.filename().string();
  } else {
    request.task = task.name;
    request.backend = m_config.backend;
  }
  request.inputs = inputs;
  request.platform = m_config.device;
  // The tracer sees no GPU: it lowers for the one the trusted processes see.
  if (m_config.device == device_kind::gpu) request.gpu_kind = m_environment.value("device_kind", "");
  json reply;
  const auto t0 = std::chrono::steady_clock::now();
  if (user) {
    auto tracer = m_pool.take_tracer();
    reply = call_tracer(result, *tracer, request, t0);
  } else {
    try {
      reply = call_tracer(result, m_pool.suite_tracer(), request, t0);
    } catch (const worker_failure&) {
      m_pool.discard_suite_tracer();
      throw;
    }
  }  // a user candidate's tracer, and everything it started, is killed here
  auto traced = protocol::trace_reply::from_json(reply);
  // What the tracer reports is recorded for people to read; it decides nothing but refusals.
  result.jaxpr = traced.jaxpr;
  result.pallas_calls = traced.pallas_calls;
  result.jaxpr_dag = traced.jaxpr_dag;
  result.task_modules_loaded = traced.task_modules_loaded;
  result.trust["jaxpr"] = "reported by the tracer (untrusted): for reading, not for the verdict";
  return traced;
}

json evaluator::call_tracer(task_result& result, worker& tracer, const protocol::trace_request& request,
                            std::chrono::steady_clock::time_point t0) {
  if (tracer.sandbox()) {
    result.trust["tracer_sandbox"] = tracer.sandbox()->to_json();
    result.trust["tracer_sandbox"]["memory_limit"] = tracer.memory_limit().to_json();
  }
  (void)tracer.hello();  // a prestarted tracer may still be starting: its wait is part of the cost
  result.trust["phase_s"]["tracer_ready"] = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  try {
    tracer.clear_stderr_tail();  // the suite's tracer serves many tasks: keep this one's only
    auto reply = protocol::call(tracer, request, timeout());
    result.trust["phase_s"]["trace"] = seconds_since(t1);
    return reply;
  } catch (const command_failed&) {
    result.stderr_tail = tracer.stderr_tail();
    rethrow_with_tracer_limits(tracer);
  } catch (const worker_failure&) {
    rethrow_with_tracer_limits(tracer);
  }
}

namespace {

// Bytes of one element of a numpy dtype ("float32" 4, "bfloat16" 2, "uint8" 1, "bool" 1): the
// width its name ends with.
double numpy_element_bytes(const std::string& name) {
  const std::size_t digits = name.find_first_of("0123456789");
  if (name == "bool" || digits == std::string::npos) return 1;
  return std::max(1, std::stoi(name.substr(digits)) / 8);
}

// What the data-movement rule needs (module_analysis.hpp): the task's inputs and weights, which
// of them @main takes (the executor reads it off the deserialized module: jax.export drops
// unused inputs), and the task's byte model and output element at this size and dtype.
void set_movement_options(module_analysis_options& options, const task_info& task, problem_size size,
                          const json& loaded) {
  for (const auto& input : task.inputs) {
    options.inputs.push_back(input.name);
    if (input.weight) options.weights.insert(input.name);
  }
  if (loaded.contains("main_inputs")) options.main_inputs = loaded.at("main_inputs").get<std::vector<std::size_t>>();
  options.task_bytes = task.bytes_at(size).value_or(0.0);
  options.flop_element_bytes = numpy_element_bytes(task.output_dtype);
}

}  // namespace

void evaluator::analyse(task_result& result, const task_info& task, const json& loaded) {
  m_phase = failure_phase::analysis;
  const bool cpu_pair = loaded.contains("analysis_stablehlo") && loaded["analysis_stablehlo"].is_string();
  const std::string text = cpu_pair ? loaded["analysis_stablehlo"].get<std::string>() : result.stablehlo;
  std::vector<kernel_ir> kernels;
  for (const auto& k : loaded.value("kernels", json::array()))
    kernels.push_back({k.value("target", ""), k["name"].is_string() ? k["name"].get<std::string>() : "",
                       k["ir"].is_string() ? k["ir"].get<std::string>() : "",
                       k.contains("error") && k["error"].is_string() ? k["error"].get<std::string>() : ""});
  module_analysis_options options;
  // The policy is the output's dtype's: less precise types inside the kernel are downgrades (fp8 in
  // a bfloat16 task, bf16 in a float16 one). TF32 is more precise than either low-precision dtype.
  static const std::map<std::string, std::string> ir_type = {
      {"float32", "f32"}, {"bfloat16", "bf16"}, {"float16", "f16"}};
  const auto task_float = ir_type.find(task.output_dtype);
  options.float_task = task_float != ir_type.end();
  if (options.float_task) options.task_float = task_float->second;
  options.allow_tf32 = task.uses_tf32 || (options.float_task && options.task_float != "f32");
  options.task_flops = task.flops_at(m_config.size).value_or(0.0);
  options.max_outside_share = thresholds::max_outside_work;
  options.scalar_setup_elements = thresholds::scalar_setup_elements;
  options.max_moved_share = thresholds::max_moved_share;
  set_movement_options(options, task, m_config.size, loaded);
  result.trust["analysed_module"] =
      cpu_pair ? "the CUDA lowering the tracer exported beside the interpret-mode module the executor ran "
                 "(CPU: that the two match is not verifiable)"
               : "the module the executor compiled";
  if (cpu_pair) result.trust["analysed_stablehlo"] = text;
  try {
    m_analysis = analyze_module(text, kernels, options);
  } catch (const std::exception& e) {
    throw refused_module(fmt::format("the module's StableHLO cannot be analysed: {}", e.what()));
  }
  m_below_class = !m_analysis->precision.below_class.empty();
  result.precision = m_analysis->precision.to_json();
  result.backends_found = m_analysis->backends;
  result.trust["module_analysis"] = m_analysis->to_json();
  // Foreign custom calls (host callbacks, other libraries' kernels) never reach the compiler.
  if (!m_analysis->refused_custom_calls.empty())
    throw refused_module(
        fmt::format("refused before compiling: custom call '{}' (host callbacks and foreign "
                    "kernels are refused)",
                    m_analysis->refused_custom_calls.front()));
}

void evaluator::compile(task_result& result, const task_info& task) {
  m_phase = failure_phase::compile;
  protocol::compile_request request{m_artifacts.mode, m_artifacts.pass_trail, ""};
  if (m_artifacts.mode != artifact_mode::none) request.dir = m_scratch.fresh(task.name + "/compiler").string();
  const auto reply = [&] {
    const auto lease = gpu_work();  // XLA may autotune on the device while it compiles
    return protocol::compile_reply::from_json(protocol::call(m_pool.executor(), request, timeout()));
  }();
  result.lower_s = reply.lower_s;
  result.compile_s = reply.compile_s;
  result.compile_cache = reply.cache;
  result.memory = reply.memory;
  m_pending_artifacts = reply.artifacts;
  if (!m_pending_artifacts.value("capture_pending", false)) {
    keep_artifacts(result, m_pending_artifacts);
    m_pending_artifacts = nullptr;
  }
}

void evaluator::keep_artifacts(task_result& result, const json& captured) {
  const auto relative_dir = std::filesystem::path("artifacts") /
                            fmt::format("{}.{}.{}", result.task.name, m_config.size_name(), result.uuid.substr(0, 8));
  // Files need a folder beside the records; without one (eval with no --out) they go inline.
  result.compiler = compiler_record(
      captured, m_artifacts.mode == artifact_mode::files ? m_artifacts.records_dir : std::filesystem::path{},
      relative_dir);
}

void evaluator::record_source_analysis(task_result& result) const {
  if (!m_analysis) return;
  filter_inputs in;
  in.analysis = &*m_analysis;
  in.source = result.candidate.source;
  in.task_modules_loaded = result.task_modules_loaded;
  result.filters["source_analysis"] = source_analysis_filter().evaluate(in).to_json();
}

}  // namespace pallasbench
