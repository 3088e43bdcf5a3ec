#include "kernel_summary.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include <fmt/format.h>

#include "pallasbench/analyze/compiler_values.hpp"

namespace pallasbench::detail {
namespace {

using nlohmann::json;

json dims_json(const std::optional<dim3_values>& d) { return d ? json(*d) : json(nullptr); }
json int_json(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

json widths_json(const width_counts& counts) {
  json j = json::object();
  for (const auto& [bytes, n] : counts) j[std::to_string(bytes)] = n;
  return j;
}

void set_null(json& k, std::initializer_list<const char*> keys) {
  for (const auto* key : keys) k[key] = nullptr;
}

template <typename T>
const T* find_named(const std::vector<T>& items, const std::string& name) {
  const auto it = std::find_if(items.begin(), items.end(), [&](const T& item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}

void add_launch(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  set_null(k, {"thunk_kind", "launches", "grid", "threads", "threads_per_block", "cluster", "shared_memory_bytes"});
  if (!a.thunks) return void(missing["thunk_sequence"] = a.missing.at("thunk_sequence"));
  const auto launches =
      std::count_if(a.thunks->begin(), a.thunks->end(), [&](const auto& t) { return t.name == name; });
  const auto* t = find_named(*a.thunks, name);
  if (!t) return void(missing["thunk_sequence"] = fmt::format("no thunk launches '{}'", name));
  k["thunk_kind"] = t->kind;
  k["launches"] = launches;
  k["grid"] = dims_json(t->grid);
  k["threads"] = dims_json(t->threads);
  if (t->threads) k["threads_per_block"] = (*t->threads)[0] * (*t->threads)[1] * (*t->threads)[2];
  k["cluster"] = dims_json(t->cluster);
  k["shared_memory_bytes"] = int_json(t->shared_memory_bytes);
}

json local_memory_use(const ptxas_function& f) {
  bool unknown = false;
  for (const auto& v : {f.stack_frame_bytes, f.spill_store_bytes, f.spill_load_bytes}) {
    if (v && *v > 0) return true;
    unknown = unknown || !v;
  }
  return unknown ? json(nullptr) : json(false);
}

std::string ptxas_absence(const ptxas_report& report, const std::string& name) {
  auto reason = fmt::format("'{}' is not an entry function of the ptxas report", name);
  if (!report.errors.empty()) reason += fmt::format(" (ptxas: {})", report.errors.front());
  return reason;
}

void add_resources(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  set_null(k, {"registers", "barriers", "stack_frame_bytes", "spill_store_bytes", "spill_load_bytes",
               "uses_local_memory", "static_shared_memory_bytes", "constant_memory_bytes"});
  if (!a.ptxas) return void(missing["ptxas"] = a.missing.at("ptxas"));
  const auto* f = find_named(a.ptxas->functions, name);
  if (!f || !f->entry) return void(missing["ptxas"] = ptxas_absence(*a.ptxas, name));
  k["registers"] = int_json(f->registers);
  k["barriers"] = int_json(f->barriers);
  k["stack_frame_bytes"] = int_json(f->stack_frame_bytes);
  k["spill_store_bytes"] = int_json(f->spill_store_bytes);
  k["spill_load_bytes"] = int_json(f->spill_load_bytes);
  k["uses_local_memory"] = local_memory_use(*f);
  k["static_shared_memory_bytes"] = int_json(f->shared_memory_bytes);
  if (!f->constant_memory_bytes.empty()) {
    k["constant_memory_bytes"] = json::object();
    for (const auto& [bank, bytes] : f->constant_memory_bytes) k["constant_memory_bytes"][std::to_string(bank)] = bytes;
  }
}

std::optional<int> widest_load(const sass_function& f) {
  std::optional<int> widest;
  if (!f.global_loads.empty()) widest = f.global_loads.rbegin()->first;
  if (!f.async_copies.empty()) widest = std::max(widest.value_or(0), f.async_copies.rbegin()->first);
  return widest;
}

void add_instruction_mix(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  set_null(k, {"instructions", "tensor_core", "tensor_core_instructions", "global_loads", "global_stores",
               "async_copies", "widest_global_load_bytes", "tma_loads", "tma_stores", "shared_loads", "shared_stores",
               "ldmatrix", "local_loads", "local_stores", "ffma", "fmul", "fadd", "special_functions"});
  if (!a.sass) return void(missing["sass"] = a.missing.at("sass"));
  const auto* f = find_named(a.sass->functions, name);
  if (!f) return void(missing["sass"] = fmt::format("no 'Function : {}' in the SASS", name));
  k.update(json{{"instructions", f->instructions},
                {"tensor_core", tensor_core_kind(f->tensor_core_instructions)},
                {"tensor_core_instructions", f->tensor_core_instructions},
                {"global_loads", widths_json(f->global_loads)},
                {"global_stores", widths_json(f->global_stores)},
                {"async_copies", widths_json(f->async_copies)},
                {"tma_loads", f->tma_loads},
                {"tma_stores", f->tma_stores},
                {"shared_loads", widths_json(f->shared_loads)},
                {"shared_stores", widths_json(f->shared_stores)},
                {"ldmatrix", f->ldmatrix},
                {"local_loads", f->local_loads},
                {"local_stores", f->local_stores},
                {"ffma", f->ffma},
                {"fmul", f->fmul},
                {"fadd", f->fadd},
                {"special_functions", f->special_functions}});
  if (const auto widest = widest_load(*f)) k["widest_global_load_bytes"] = *widest;
}

void add_ptx(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  k["ptx"] = nullptr;
  if (!a.ptx) return void(missing["ptx"] = a.missing.at("ptx"));
  const auto* e = find_named(*a.ptx, name);
  if (!e) return void(missing["ptx"] = fmt::format("no .entry {} in the PTX", name));
  k["ptx"] = {{"reqntid", dims_json(e->reqntid)},
              {"maxntid", dims_json(e->maxntid)},
              {"global_loads", widths_json(e->global_loads)},
              {"global_stores", widths_json(e->global_stores)},
              {"async_copies", widths_json(e->async_copies)},
              {"tma_loads", e->tma_loads},
              {"tma_stores", e->tma_stores},
              {"tensor_core", tensor_core_kind(e->tensor_core_instructions)},
              {"tensor_core_instructions", e->tensor_core_instructions},
              {"special_functions", e->special_functions}};
}

}  // namespace

json kernel_json(const std::string& name, const parsed_artifacts& a) {
  json k = {{"name", name}};
  json missing = json::object();
  add_launch(k, missing, a, name);
  add_resources(k, missing, a, name);
  add_instruction_mix(k, missing, a, name);
  add_ptx(k, missing, a, name);
  k["missing"] = missing;
  return k;
}

}  // namespace pallasbench::detail
