#include "pallasbench/orchestrate/evaluator.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "detail/evaluator_errors.hpp"
#include "pallasbench/record/compiler_record.hpp"
#include "pallasbench/check/correctness.hpp"
#include "pallasbench/check/filters/registry.hpp"
#include "pallasbench/check/filters/source_analysis.hpp"
#include "pallasbench/analyze/module_analysis.hpp"

namespace pallasbench {
namespace {

using detail::input_paths;
using detail::refused_candidate;
using detail::refused_module;
using detail::wrong_output;
using nlohmann::json;

// Host seconds since t0, as the harness measured them (the record's trust.phase_s).
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

task_status status_for(const std::string& kind) {
  if (kind == "compile_error") return task_status::compile_error;
  if (kind == "runtime_error") return task_status::runtime_error;
  return task_status::harness_error;  // task_error, usage_error: the harness or task is at fault
}

// A filter that could not run is a failed filter with its reason, never a silent pass.
void mark_filters_not_run(task_result& result) {
  result.robustness_passed = false;
  for (const auto& filter : default_filters())
    if (!result.filters.contains(filter->name()))
      result.filters[filter->name()] = {{"passed", false},
                                        {"value", nullptr},
                                        {"threshold", nullptr},
                                        {"reason", fmt::format("not run: status {}", status_name(result.status))}};
}

}  // namespace

evaluator::evaluator(worker_pool& pool, const scratch_dir& scratch, run_config config, timing_options timing,
                     json environment, std::optional<std::string> project_sha, std::string run_id)
    : m_pool(pool),
      m_scratch(scratch),
      m_config(std::move(config)),
      m_timing(timing),
      m_environment(std::move(environment)),
      m_project_sha(std::move(project_sha)),
      m_run_id(std::move(run_id)) {}

std::chrono::milliseconds evaluator::timeout() const {
  return std::chrono::milliseconds(static_cast<long>(m_config.timeout_s * 1000));
}

json evaluator::make_reference(const task_info& task, std::uint64_t seed, const std::filesystem::path& dir,
                               const json& variant) {
  m_phase = "reference";
  json request = {
      {"cmd", "reference"}, {"task", task.name}, {"size", m_config.size}, {"seed", seed}, {"dir", dir.string()}};
  request.update(variant);
  return m_pool.reference().call(request, timeout());
}

void evaluator::load_candidate(task_result& result, const task_info& task, const candidate_spec& candidate,
                               const json& reference_reply) {
  json specs = json::array();
  for (const auto& in : reference_reply.at("inputs"))
    specs.push_back({{"shape", in.at("shape")}, {"dtype", in.at("dtype")}});
  const json traced = trace(result, task, candidate, specs);
  m_phase = "load";
  const auto t0 = std::chrono::steady_clock::now();
  const auto loaded = m_pool.executor().call({{"cmd", "load"},
                                              {"module", traced.at("module")},
                                              {"analysis_module", traced.value("analysis_module", json(nullptr))},
                                              {"inputs", specs}},
                                             timeout());
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

json evaluator::trace(task_result& result, const task_info& task, const candidate_spec& candidate,
                      const json& input_specs) {
  m_phase = "trace";
  const bool user = candidate.kind == "user";
  // The harness sends the source the trusted reference process read: what the record holds is
  // what was traced, whatever the candidate says of its own __file__.
  const json which = user ? json{{"source", candidate.source},
                                 {"encoding", candidate.encoding},
                                 {"name", candidate.file.filename().string()}}
                          : json{{"task", task.name}};
  json request = {{"cmd", "trace"}, {"candidate", which}, {"inputs", input_specs}, {"platform", m_config.device}};
  // The tracer sees no GPU: it lowers for the one the trusted processes see.
  if (m_config.device == "gpu") request["device_kind"] = m_environment.value("device_kind", "");
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
  if (!reply.contains("module") || !reply["module"].is_string())
    throw command_failed("compile_error", "the tracer handed over no module", "");
  // What the tracer reports is recorded for people to read; it decides nothing but refusals.
  result.jaxpr = reply.value("jaxpr", "");
  result.pallas_calls = reply.value("pallas_calls", json::array());
  result.jaxpr_dag = reply.value("jaxpr_dag", json(nullptr));
  if (reply.contains("task_modules_loaded") && reply["task_modules_loaded"].is_array())
    for (const auto& f : reply["task_modules_loaded"])
      if (f.is_string()) result.task_modules_loaded.push_back(f);
  result.trust["jaxpr"] = "reported by the tracer (untrusted): for reading, not for the verdict";
  return reply;
}

json evaluator::call_tracer(task_result& result, worker& tracer, const json& request,
                            std::chrono::steady_clock::time_point t0) {
  if (tracer.sandbox()) result.trust["tracer_sandbox"] = tracer.sandbox()->to_json();
  (void)tracer.hello();  // a prestarted tracer may still be starting: its wait is part of the cost
  result.trust["phase_s"]["tracer_ready"] = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  try {
    tracer.clear_stderr_tail();  // the suite's tracer serves many tasks: keep this one's only
    auto reply = tracer.call(request, timeout());
    result.trust["phase_s"]["trace"] = seconds_since(t1);
    return reply;
  } catch (const command_failed&) {
    result.stderr_tail = tracer.stderr_tail();
    throw;
  }
}

void evaluator::analyse(task_result& result, const task_info& task, const json& loaded) {
  m_phase = "analysis";
  const bool cpu_pair = loaded.contains("analysis_stablehlo") && loaded["analysis_stablehlo"].is_string();
  const std::string text = cpu_pair ? loaded["analysis_stablehlo"].get<std::string>() : result.stablehlo;
  std::vector<kernel_ir> kernels;
  for (const auto& k : loaded.value("kernels", json::array()))
    kernels.push_back({k.value("target", ""), k["name"].is_string() ? k["name"].get<std::string>() : "",
                       k["ir"].is_string() ? k["ir"].get<std::string>() : "",
                       k.contains("error") && k["error"].is_string() ? k["error"].get<std::string>() : ""});
  module_analysis_options options;
  options.float32_task = task.output_dtype == "float32";
  options.allow_tf32 = task.uses_tf32;
  options.task_flops = task.flops.contains(m_config.size) ? static_cast<double>(task.flops.at(m_config.size)) : 0.0;
  options.max_outside_share = thresholds::max_outside_work;
  options.scalar_setup_elements = thresholds::scalar_setup_elements;
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
  result.precision = m_analysis->precision.to_json();
  result.trust["module_analysis"] = m_analysis->to_json();
  // Foreign custom calls (host callbacks, other libraries' kernels) never reach the compiler.
  if (!m_analysis->refused_custom_calls.empty())
    throw refused_module(
        fmt::format("refused before compiling: custom call '{}' (host callbacks and foreign "
                    "kernels are refused)",
                    m_analysis->refused_custom_calls.front()));
}

void evaluator::compile(task_result& result, const task_info& task) {
  m_phase = "compile";
  json request = {{"cmd", "compile"},
                  {"artifacts", {{"mode", m_artifacts.mode}, {"pass_trail", m_artifacts.pass_trail}}}};
  if (m_artifacts.mode != "none") request["artifacts"]["dir"] = m_scratch.fresh(task.name + "/compiler").string();
  const auto reply = m_pool.executor().call(request, timeout());
  result.lower_s = reply.value("lower_s", 0.0);
  result.compile_s = reply.value("compile_s", 0.0);
  result.memory = reply.value("memory", json::object());
  m_pending_artifacts = reply.value("artifacts", json::object());
  if (!m_pending_artifacts.value("capture_pending", false)) {
    keep_artifacts(result, m_pending_artifacts);
    m_pending_artifacts = nullptr;
  }
}

void evaluator::finish_artifacts(task_result& result) {
  if (m_pending_artifacts.is_null()) return;
  json captured = std::move(m_pending_artifacts);
  m_pending_artifacts = nullptr;
  try {
    const auto reply = m_pool.executor().call({{"cmd", "artifacts"}}, timeout());
    if (reply.contains("artifacts") && reply["artifacts"].is_object()) captured = reply["artifacts"];
  } catch (const command_failed& e) {
    captured["unavailable"]["ptx"] = fmt::format("collecting the background capture failed: {}", e.what());
  }
  keep_artifacts(result, captured);
}

void evaluator::keep_artifacts(task_result& result, const json& captured) {
  const auto relative_dir = std::filesystem::path("artifacts") /
                            fmt::format("{}.{}.{}", result.task.name, m_config.size, result.uuid.substr(0, 8));
  // Files need a folder beside the records; without one (eval with no --out) they go inline.
  result.compiler = compiler_record(
      captured, m_artifacts.mode == "files" ? m_artifacts.records_dir : std::filesystem::path{}, relative_dir);
}

void evaluator::check_seeds(task_result& result, const task_info& task, const candidate_spec& candidate,
                            evidence& kept) {
  correctness_report report;
  std::filesystem::path previous_dir;
  for (int index = 0; index < m_config.seeds; ++index) {
    const std::uint64_t seed = m_seeds->check(index);
    const auto dir = m_scratch.fresh(fmt::format("{}/seed{}", task.name, index));
    // Mapped arrays outlive their files: keep scratch memory to the seed in flight.
    if (!previous_dir.empty()) std::filesystem::remove_all(previous_dir);
    previous_dir = dir;
    const auto reference_reply = make_reference(task, seed, dir);
    if (index == 0) load_candidate(result, task, candidate, reference_reply);
    auto [reference, first] = run_candidate(reference_reply, dir / "out_first.npy", dir / "out_second.npy");
    const auto second = npy_array::open(dir / "out_second.npy");
    report.add(check_seed(seed, first, second, reference, task.tol, task.order_dependent));
    result.seeds.push_back(seed);
    kept.seeds.push_back({std::move(first), std::move(reference)});
    if (!report.passed()) break;  // a failing seed is enough; more seeds only cost time
  }
  report.set_stress_skipped(task.stress_skipped);
  result.correctness = report;
  result.status = report.passed() ? task_status::ok : task_status::incorrect;
  if (!report.passed()) result.failure = failure_info{"check", report.first_failure().value_or("failed"), ""};
}

void evaluator::check_stress(task_result& result, const task_info& task) {
  auto& report = *result.correctness;
  for (const auto& name : task.stress_cases) {
    const std::uint64_t seed = m_seeds->stress(name);
    const auto dir = m_scratch.fresh(fmt::format("{}/stress_{}", task.name, name));
    const auto reply = make_reference(task, seed, dir, {{"stress", name}});
    auto [reference, output] = run_candidate(reply, dir / "out.npy", {});
    stress_outcome outcome{name, seed, 1, {}};
    outcome.against_reference = compare(output, reference, stress_tolerance(task.tol, reference, outcome.atol_scale));
    report.add(std::move(outcome));
    std::filesystem::remove_all(dir);
  }
  // Every case runs (the record names each case's error); the first failure is the verdict's.
  if (!report.passed()) {
    result.status = task_status::incorrect;
    result.failure = failure_info{"check", report.first_failure().value_or("failed"), ""};
  }
}

std::pair<npy_array, npy_array> evaluator::run_candidate(const json& reference_reply,
                                                         const std::filesystem::path& output,
                                                         const std::filesystem::path& second_output) {
  // Map the reference output, then unlink it: the candidate's process cannot find it on disk.
  auto reference = npy_array::open(reference_reply.at("output").at("path").get<std::string>());
  std::filesystem::remove(reference.path());
  m_phase = "run";
  json outputs = {output.string()};
  if (!second_output.empty()) outputs.push_back(second_output.string());
  const auto reply = m_pool.executor().call(
      {{"cmd", "run"}, {"inputs", input_paths(reference_reply)}, {"outputs", outputs}}, timeout());
  // Checked before reading: a dtype .npy cannot describe (bfloat16 is stored as raw 2-byte
  // void) must read as the wrong dtype it is, not as a malformed file.
  const auto produced = reply.at("outputs").at(0).value("dtype", "?");
  const auto expected = reference_reply.at("output").value("dtype", "?");
  if (produced != expected)
    throw wrong_output(fmt::format("dtype {} differs from the reference's {}", produced, expected));
  return {std::move(reference), npy_array::open(output)};
}

void evaluator::check_robustness(task_result& result, const task_info& task, evidence& kept) {
  filter_inputs in;
  for (const auto& [output, reference] : kept.seeds) in.seeds.push_back({&output, &reference});
  // Each input perturbed within its domain on seed 0's inputs, one at a time.
  std::vector<std::pair<npy_array, npy_array>> perturbed;
  perturbed.reserve(task.inputs.size());
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const auto dir = m_scratch.fresh(fmt::format("{}/perturb{}", task.name, i));
    const auto reply = make_reference(task, result.seeds.front(), dir, {{"perturb", i}});
    auto [reference, output] = run_candidate(reply, dir / "out.npy", {});
    perturbed.emplace_back(std::move(output), std::move(reference));
    std::filesystem::remove_all(dir);
  }
  for (std::size_t i = 0; i < perturbed.size(); ++i)
    in.perturbations.push_back({task.inputs[i].name, in.seeds.front(), {&perturbed[i].first, &perturbed[i].second}});
  in.input_count = task.inputs.size();
  in.analysis = m_analysis ? &*m_analysis : nullptr;
  in.source = result.candidate.source;
  in.task_modules_loaded = result.task_modules_loaded;
  in.tol = task.tol;
  bool all_passed = false;
  result.filters = run_filters(default_filters(), in, all_passed);
  result.robustness_passed = all_passed;
}

void evaluator::record_source_analysis(task_result& result) const {
  if (!m_analysis) return;
  filter_inputs in;
  in.analysis = &*m_analysis;
  in.source = result.candidate.source;
  in.task_modules_loaded = result.task_modules_loaded;
  result.filters["source_analysis"] = source_analysis_filter().evaluate(in).to_json();
}

task_result evaluator::evaluate(const task_info& task, const candidate_spec& candidate) {
  task_result result;
  result.run_id = m_run_id;
  result.uuid = make_uuid();
  result.task = task;
  result.config = m_config;
  result.candidate.kind = candidate.kind;
  result.candidate.path = candidate.kind == "user" ? candidate.file.string() : task.path;
  result.candidate.sha256 = candidate.sha256;
  const bool user = candidate.kind == "user";
  result.candidate.source = user ? candidate.source : task.source;
  result.candidate.bundled_source = user ? candidate.bundled_source : task.bundled_source;
  if (!user) result.candidate.reference_source = task.reference_source;
  result.environment = m_environment;
  m_analysis.reset();
  m_module_kernels.clear();
  m_seeds = seed_plan::for_evaluation(m_config.seed);
  result.seed = m_seeds->to_json();
  result.project_sha = m_project_sha;
  m_pool.clear_stderr_tails();
  const auto task_dir = m_scratch.fresh(task.name);
  try {
    evidence kept;
    if (!candidate.refused.empty()) {
      m_phase = "load";
      throw refused_candidate(candidate.refused);
    }
    check_seeds(result, task, candidate, kept);
    if (result.status == task_status::ok) check_stress(result, task);
    if (result.status == task_status::ok) {
      check_robustness(result, task, kept);
      finish_artifacts(result);  // before timing: the capture compile and tools must not compete with the samples
      if (m_timing.enabled) time_kernel(result, task);
    }
  } catch (const command_failed& e) {
    result.status = status_for(e.kind());
    result.failure = failure_info{m_phase, e.what(), e.traceback()};
  } catch (const refused_candidate& e) {
    result.status = task_status::compile_error;  // as Python refuses a file it cannot read
    result.failure = failure_info{m_phase, e.what(), cpp_traceback(e)};
  } catch (const refused_module& e) {
    result.status = task_status::compile_error;  // never compiled: nothing of it ran
    result.failure = failure_info{m_phase, e.what(), cpp_traceback(e)};
    record_source_analysis(result);
  } catch (const worker_failure& e) {
    result.status = e.what_kind() == worker_failure::kind::timeout ? task_status::timeout : task_status::crashed;
    const bool reference_side = m_phase == "reference" || m_phase == "time_reference";
    if (reference_side) {
      result.status = task_status::harness_error;  // the reference itself hung or died
      m_pool.discard_reference();
    } else if (m_phase != "trace") {  // a tracer that hung or died is gone already
      m_pool.discard_executor();      // a kernel (or its module) crashed or hung it
    }
    result.failure = failure_info{m_phase, e.what(), cpp_traceback(e)};
    result.stderr_tail = e.stderr_tail();
  } catch (const wrong_output& e) {
    result.status = task_status::incorrect;
    result.failure = failure_info{m_phase, e.what(), cpp_traceback(e)};
  } catch (const npy_error& e) {
    result.status = task_status::incorrect;
    result.failure = failure_info{m_phase, fmt::format("output cannot be checked: {}", e.what()), cpp_traceback(e)};
  } catch (const interrupted_error&) {
    throw;
  } catch (const std::exception& e) {
    result.status = task_status::harness_error;
    result.failure = failure_info{m_phase, e.what(), cpp_traceback(e)};
  }
  if (!m_pending_artifacts.is_null() && m_pool.has_executor()) {
    try {
      finish_artifacts(result);
    } catch (const std::exception&) {  // the task's status already says what went wrong
      m_pending_artifacts = nullptr;
    }
  }
  m_pending_artifacts = nullptr;
  if (!result.robustness_passed) mark_filters_not_run(result);
  if (result.stderr_tail.empty() && result.status != task_status::ok && m_pool.has_executor()) {
    // Executor stderr explains most failures past tracing (XLA messages): keep its tail.
    result.stderr_tail = m_pool.executor().stderr_tail();
  }
  std::error_code ignored;
  std::filesystem::remove_all(task_dir, ignored);
  return result;
}

}  // namespace pallasbench
