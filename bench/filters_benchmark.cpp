// Robustness filter cost over a 1 GiB float32 output (goal: under 1 s on one core).
// Run: build/filters_benchmark [--benchmark_filter=...]; arrays live in /dev/shm (or /tmp): 10 GiB.
// Every iteration builds fresh filter_inputs: the profile cache must not carry work over.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "pallasbench/analyze/module_analysis.hpp"
#include "pallasbench/check/filters/axes_variation.hpp"
#include "pallasbench/check/filters/input_impact.hpp"
#include "pallasbench/check/filters/output_range.hpp"
#include "pallasbench/check/filters/output_std.hpp"
#include "pallasbench/check/filters/registry.hpp"

namespace {

using namespace pallasbench;

constexpr std::int64_t k_elements = std::int64_t{1} << 28;  // float32: 1 GiB
constexpr std::int64_t k_rows = 16384, k_cols = k_elements / k_rows;

std::filesystem::path scratch() {
  return std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
}

// Writes a float32 .npy of 2^28 elements (shape as numpy prints it) of y = x + offset, x ~ N(0, 1)
// drawn from seed.
std::filesystem::path make_array(const std::string& name, float offset, const std::string& shape = "(16384, 16384)",
                                 unsigned seed = 42) {
  const auto path = scratch() / ("pallasbench-bench-" + name + ".npy");
  if (std::filesystem::exists(path)) return path;
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size() & 0xff)
      << static_cast<char>(header.size() >> 8) << header;
  std::vector<float> row(k_cols);
  std::minstd_rand rng(seed);
  std::normal_distribution<float> normal;
  for (std::int64_t r = 0; r < k_rows; ++r) {
    for (auto& v : row) v = normal(rng) + offset;
    out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size() * 4));
  }
  return path;
}

struct arrays {
  npy_array out = npy_array::open(make_array("out", 0.0f));
  npy_array ref = npy_array::open(make_array("ref", 1e-6f));
  npy_array out_p = npy_array::open(make_array("out_p", 0.05f));
  npy_array ref_p = npy_array::open(make_array("ref_p", 0.05f + 1e-6f));
  // An attention output (batch, heads, sequence, head dim): short rows, leading axes with up to
  // 2^24 slices.
  npy_array out_4d = npy_array::open(make_array("out_4d", 0.0f, "(16, 32, 4096, 128)"));
  npy_array ref_4d = npy_array::open(make_array("ref_4d", 1e-6f, "(16, 32, 4096, 128)"));
  // Seeds 1 and 2 of an evaluation: other draws (the outputs differ across seeds as a real
  // kernel's do), each output within rounding of its reference.
  npy_array out_1 = npy_array::open(make_array("out_1", 0.0f, "(16384, 16384)", 43));
  npy_array ref_1 = npy_array::open(make_array("ref_1", 1e-6f, "(16384, 16384)", 43));
  npy_array out_2 = npy_array::open(make_array("out_2", 0.0f, "(16384, 16384)", 44));
  npy_array ref_2 = npy_array::open(make_array("ref_2", 1e-6f, "(16384, 16384)", 44));

  // One seed and one perturbed input, as the goal states it.
  filter_inputs inputs() const {
    filter_inputs in;
    in.seeds = {{&out, &ref}};
    in.perturbations = {{"x", {&out, &ref}, {&out_p, &ref_p}}};
    in.input_count = 1;
    return in;
  }
  // Three seeds (the evaluator's minimum), from the same arrays: output_std compares them too.
  filter_inputs three_seeds() const {
    filter_inputs in;
    in.seeds = {{&out, &ref}, {&out_p, &ref_p}, {&ref, &out}};
    return in;
  }
  // What evaluator::check_robustness hands run_filters for a one-input task: three seeds of
  // distinct arrays (8 GiB in all with the perturbed pair), seed 0 as the perturbation's base.
  filter_inputs evaluation() const {
    filter_inputs in;
    in.seeds = {{&out, &ref}, {&out_1, &ref_1}, {&out_2, &ref_2}};
    in.perturbations = {{"x", in.seeds.front(), {&out_p, &ref_p}}};
    in.input_count = 1;
    in.analysis = &analysis;  // source_analysis reads the module's analysis (its cost is not the arrays')
    return in;
  }
  module_analysis analysis = [] {
    module_analysis a;
    a.pallas_calls = 1;
    a.output_from_kernel = true;
    return a;
  }();
  filter_inputs four_d() const {
    filter_inputs in;
    in.seeds = {{&out_4d, &ref_4d}};
    return in;
  }
};

const arrays& data() {
  static const arrays a;
  return a;
}

template <class Filter, filter_inputs (arrays::*Inputs)() const = &arrays::inputs>
void run_filter(benchmark::State& state) {
  const Filter filter;
  const arrays& a = data();  // made and mapped outside the timing
  for (auto _ : state) {
    const auto in = (a.*Inputs)();
    benchmark::DoNotOptimize(filter.evaluate(in));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * k_elements * 4);
}

// The floor: a sum over the arrays, interleaved in 16-byte steps, does nothing but read them.
float sum_of(const std::vector<const float*>& arrays) {
  using vec = float __attribute__((vector_size(16)));
  vec acc[8][4] = {};
  for (std::int64_t i = 0; i + 16 <= k_elements; i += 16)
    for (std::size_t u = 0; u < 4; ++u)
      for (std::size_t a = 0; a < arrays.size(); ++a) {
        vec v;
        std::memcpy(&v, arrays[a] + i + 4 * u, sizeof v);
        acc[a][u] += v;
      }
  float total = 0;
  for (const auto& per_array : acc)
    for (const auto& v : per_array) total += v[0] + v[1] + v[2] + v[3];
  return total;
}

template <std::size_t Arrays>
void read_floor(benchmark::State& state) {
  const arrays& a = data();
  const std::vector<const float*> all = {
      a.out.as<float>().data(),   a.ref.as<float>().data(),   a.out_p.as<float>().data(), a.ref_p.as<float>().data(),
      a.out_1.as<float>().data(), a.ref_1.as<float>().data(), a.out_2.as<float>().data(), a.ref_2.as<float>().data()};
  const std::vector<const float*> arrays(all.begin(), all.begin() + Arrays);
  for (auto _ : state) benchmark::DoNotOptimize(sum_of(arrays));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * Arrays) * k_elements * 4);
}

template <filter_inputs (arrays::*Inputs)() const = &arrays::inputs>
void all_filters(benchmark::State& state) {
  const auto filters = default_filters();
  const arrays& a = data();
  for (auto _ : state) {
    const auto in = (a.*Inputs)();
    bool passed = false;
    benchmark::DoNotOptimize(run_filters(filters, in, passed));
  }
}

// What one core can read (the five filters read 6 GiB: output and reference in the profile,
// four arrays in input impact; an evaluation's eight arrays are 8 GiB at the least).
BENCHMARK(read_floor<1>)->Name("read_floor/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(read_floor<4>)->Name("read_floor/4GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(read_floor<8>)->Name("read_floor/8GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<output_range_filter>)->Name("output_range/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<output_std_filter>)->Name("output_std/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<axes_variation_filter>)->Name("axes_variation/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<input_impact_filter>)->Name("input_impact/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(all_filters<>)->Name("all_five/1GiB")->Unit(benchmark::kMillisecond);
// The evaluator's workload per task (goal: under 1 s): all five filters, three seeds, one input.
BENCHMARK(all_filters<&arrays::evaluation>)->Name("evaluation_3_seeds/1GiB")->Unit(benchmark::kMillisecond);
// Beyond the goal's case: output_std alone over three seeds that share arrays (seed 0's profile,
// the passes across seeds), and a 4-D output.
BENCHMARK(run_filter<output_std_filter, &arrays::three_seeds>)
    ->Name("output_std/1GiB/3seeds")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<axes_variation_filter, &arrays::four_d>)
    ->Name("axes_variation/1GiB/4d")
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
