#include "pallasbench/orchestrate/protocol.hpp"

#include <fmt/format.h>

namespace pallasbench::protocol {
namespace {

using nlohmann::json;

json specs_json(const std::vector<input_spec>& specs) {
  json out = json::array();
  for (const auto& s : specs) out.push_back({{"shape", s.shape}, {"dtype", s.dtype}});
  return out;
}

// reply[key], or reply_error naming the command and the field.
const json& field(const json& reply, const char* command, const char* key) {
  if (!reply.is_object() || !reply.contains(key))
    throw reply_error(fmt::format("the worker's '{}' reply has no '{}'", command, key));
  return reply.at(key);
}

template <class T>
T typed(const json& value, const char* command, const char* key) {
  try {
    return value.get<T>();
  } catch (const json::exception& e) {
    throw reply_error(fmt::format("the worker's '{}' reply has a mistyped '{}': {}", command, key, e.what()));
  }
}

array_file array_of(const json& j, const char* command, const char* key) {
  return {typed<std::string>(field(j, command, "path"), command, key),
          typed<std::vector<std::int64_t>>(field(j, command, "shape"), command, key),
          typed<std::string>(field(j, command, "dtype"), command, key)};
}

std::vector<array_file> arrays_of(const json& reply, const char* command, const char* key) {
  const auto& items = field(reply, command, key);
  if (!items.is_array()) throw reply_error(fmt::format("the worker's '{}' reply: '{}' is no array", command, key));
  std::vector<array_file> out;
  for (const auto& item : items) out.push_back(array_of(item, command, key));
  return out;
}

json batch_fields(json request, const timing_batch& batch) {
  request["warmup"] = batch.warmup;
  request["samples"] = batch.samples;
  request["max_seconds"] = batch.max_seconds;
  return request;
}

}  // namespace

json describe_request::to_json() const {
  json j = {{"cmd", command}, {"candidate_files", candidate_files}, {"max_source_bytes", max_source_bytes}};
  if (tasks) j["tasks"] = *tasks;
  if (!diff_against.empty()) j["diff_against"] = diff_against;
  return j;
}

json reference_request::to_json() const {
  json j = {{"cmd", command}, {"task", task}, {"size", to_string(size)}, {"seed", seed}, {"dir", dir}};
  if (stress) j["stress"] = *stress;
  if (perturb) j["perturb"] = *perturb;
  if (inputs_only) j["inputs_only"] = true;
  if (platform) j["platform"] = true;
  j["dtype"] = to_string(dtype);
  return j;
}

reference_reply reference_reply::from_json(const json& j) {
  reference_reply reply{arrays_of(j, "reference", "inputs"),
                        array_of(field(j, "reference", "output"), "reference", "output"), std::nullopt};
  if (j.contains("large_factor")) {
    if (!j["large_factor"].is_number()) throw reply_error("reference reply: large_factor is not a number");
    reply.large_factor = j["large_factor"].get<double>();
  }
  return reply;
}

std::vector<std::string> reference_reply::input_paths() const {
  std::vector<std::string> paths;
  for (const auto& in : inputs) paths.push_back(in.path);
  return paths;
}

std::vector<input_spec> reference_reply::input_specs() const {
  std::vector<input_spec> specs;
  for (const auto& in : inputs) specs.push_back({in.shape, in.dtype});
  return specs;
}

json device_request::to_json() const {
  json j = {{"cmd", command}};
  if (ceilings) j["ceilings"] = true;
  return j;
}

json trace_request::to_json() const {
  json candidate = task ? json{{"task", *task}} : json{{"source", source}, {"encoding", encoding}, {"name", name}};
  if (task && backend) candidate["backend"] = to_string(*backend);
  json j = {
      {"cmd", command}, {"candidate", candidate}, {"inputs", specs_json(inputs)}, {"platform", to_string(platform)}};
  if (gpu_kind) j["device_kind"] = *gpu_kind;
  return j;
}

trace_reply trace_reply::from_json(const json& j) {
  // The tracer is the candidate's process: what it fails to hand over is the candidate's fault.
  if (!j.is_object() || !j.contains("module") || !j["module"].is_string())
    throw command_failed("compile_error", "the tracer handed over no module", "");
  trace_reply r;
  r.module = j["module"].get<std::string>();
  r.analysis_module = j.value("analysis_module", json(nullptr));
  // What the tracer reports besides is recorded for people to read; it decides nothing.
  if (j.contains("jaxpr") && j["jaxpr"].is_string()) r.jaxpr = j["jaxpr"];
  r.pallas_calls = j.value("pallas_calls", json::array());
  r.jaxpr_dag = j.value("jaxpr_dag", json(nullptr));
  if (j.contains("task_modules_loaded") && j["task_modules_loaded"].is_array())
    for (const auto& f : j["task_modules_loaded"])
      if (f.is_string()) r.task_modules_loaded.push_back(f);
  return r;
}

json load_request::to_json() const {
  return {{"cmd", command}, {"module", module}, {"analysis_module", analysis_module}, {"inputs", specs_json(inputs)}};
}

json compile_request::to_json() const {
  json artifacts = {{"mode", to_string(mode)}, {"pass_trail", pass_trail}};
  if (mode != artifact_mode::none) artifacts["dir"] = dir;
  return {{"cmd", command}, {"artifacts", artifacts}};
}

compile_reply compile_reply::from_json(const json& j) {
  compile_reply r;
  r.lower_s = j.value("lower_s", 0.0);
  r.compile_s = j.value("compile_s", 0.0);
  r.memory = j.value("memory", json::object());
  r.artifacts = j.value("artifacts", json::object());
  // Only the two fields, each of its one type: the record's schema is strict.
  if (const auto it = j.find("cache"); it != j.end() && it->is_object()) {
    const auto boolean = [&](const char* key) {
      const auto field = it->find(key);
      return field != it->end() && field->is_boolean() ? *field : json(nullptr);
    };
    const auto enabled = boolean("enabled");
    r.cache = {{"enabled", enabled.is_boolean() && enabled.get<bool>()}, {"hit", boolean("hit")}};
  }
  return r;
}

json artifacts_request::to_json() const { return {{"cmd", command}}; }

json run_request::to_json() const { return {{"cmd", command}, {"inputs", inputs}, {"outputs", outputs}}; }

run_reply run_reply::from_json(const json& j) { return {arrays_of(j, "run", "outputs")}; }

json time_request::to_json() const {
  return batch_fields({{"cmd", command}, {"inputs", inputs}, {"output", output.empty() ? json(nullptr) : json(output)}},
                      batch);
}

json time_reference_request::to_json() const {
  return batch_fields(
      {{"cmd", command}, {"inputs", inputs}, {"task", task}, {"precision", precision}, {"dtype", to_string(dtype)}},
      batch);
}

}  // namespace pallasbench::protocol
