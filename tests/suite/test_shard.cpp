#include "pallasbench/suite/shard.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace pallasbench {
namespace {

// The suite's task names, found as the registry finds them (tasks/level<N>/<name>.py, level by
// level, names in order, files starting with '_' excepted), so the spread is checked on the real
// keys and a new task needs no edit here.
std::vector<std::string> suite_task_names() {
  namespace fs = std::filesystem;
  const fs::path tasks = fs::path(PALLASBENCH_TEST_DATA).parent_path() / "tasks";
  std::vector<fs::path> levels;
  for (const auto& entry : fs::directory_iterator(tasks))
    if (const auto name = entry.path().filename().string();
        entry.is_directory() && name.size() == 6 && name.starts_with("level") &&
        std::isdigit(static_cast<unsigned char>(name[5])))
      levels.push_back(entry.path());
  std::sort(levels.begin(), levels.end());
  std::vector<std::string> names;
  for (const auto& level : levels) {
    std::vector<std::string> of_level;
    for (const auto& file : fs::directory_iterator(level))
      if (file.path().extension() == ".py" && !file.path().filename().string().starts_with("_"))
        of_level.push_back(file.path().stem().string());
    std::sort(of_level.begin(), of_level.end());
    names.insert(names.end(), of_level.begin(), of_level.end());
  }
  if (names.empty()) throw std::runtime_error(fmt::format("no task files under {}", tasks.string()));
  return names;
}

// Read on first use, so a missing folder fails the tests that need it rather than the binary's start.
const std::vector<std::string>& suite_names() {
  static const auto names = suite_task_names();
  return names;
}

std::vector<work_item> all_items() {
  std::vector<work_item> items;
  for (const auto& name : suite_names())
    for (const auto size : {problem_size::small, problem_size::medium, problem_size::large})
      items.push_back({name, size, "float32", "sha-of-" + name});
  return items;
}

std::string parse_error(std::string_view text) {
  try {
    (void)shard_spec::parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(ShardSpec, ChecksTheSuitesOwnTaskNames) {
  // The spread tests below need the real suite: its files, every level of it.
  const auto& names = suite_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "relu"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "triangle_update"), names.end());
  EXPECT_GE(names.size(), 50u);
}

TEST(ShardSpec, ParsesIndexOfCount) {
  const auto shard = shard_spec::parse("2/8");
  EXPECT_EQ(shard.index(), 2);
  EXPECT_EQ(shard.count(), 8);
  EXPECT_EQ(shard.to_string(), "2/8");
  EXPECT_EQ(shard.to_json(), (nlohmann::json{{"index", 2}, {"count", 8}}));
  EXPECT_EQ(shard_spec::parse("1/1"), shard_spec(1, 1));
}

TEST(ShardSpec, RefusesBadTextSayingWhy) {
  EXPECT_EQ(parse_error("4/3"), "4/3: the index must be in 1..3");
  EXPECT_EQ(parse_error("0/3"), "0/3: the index must be in 1..3");
  EXPECT_EQ(parse_error("-1/3"), "-1/3: the index must be in 1..3");
  EXPECT_EQ(parse_error("1/0"), "1/0: the count must be at least 1");
  for (const auto* text : {"", "3", "/3", "1/", "a/3", "1/3x", " 1/3", "1 /3", "+1/3", "1/3/4", "99999999999/3"})
    EXPECT_EQ(parse_error(text), fmt::format("{}: expected I/N, shard I of N counting from 1 (e.g. 2/8)", text))
        << text;
  EXPECT_THROW(shard_spec(3, 2), std::invalid_argument);
}

TEST(WorkItem, CanonicalTextIsSortedJson) {
  // Pinned: a change here moves every item to another shard (and splits a running cluster job).
  const work_item item{"relu", problem_size::medium, "float32", "abc"};
  EXPECT_EQ(item.canonical_text(), R"({"candidate_sha256":"abc","dtype":"float32","size":"medium","task":"relu"})");
  task_info task;
  task.name = "relu";
  task.output_dtype = "float32";
  task.sha256 = "own";
  task.views["float32"] = {tolerance{}, {{"x", "float32"}}, "float32", std::nullopt};
  task.views["bfloat16"] = {tolerance{}, {{"x", "bfloat16"}}, "bfloat16", std::nullopt};
  const auto own = work_item::of(task, problem_size::medium, float_dtype::float32, "abc");
  EXPECT_EQ(own.canonical_text(), item.canonical_text());
  // At bfloat16 a float task is another item; a task with no float input is the same one (its
  // views keep the output's type: task/dtypes.py).
  EXPECT_EQ(work_item::of(task, problem_size::medium, float_dtype::bfloat16, "abc").dtype, "bfloat16");
  task.views["float32"] = {tolerance{}, {{"x", "int32"}}, "int32", std::nullopt};
  task.views["bfloat16"] = {tolerance{}, {{"x", "int32"}}, "int32", std::nullopt};
  EXPECT_EQ(work_item::of(task, problem_size::medium, float_dtype::bfloat16, "abc").canonical_text(),
            work_item::of(task, problem_size::medium, float_dtype::float32, "abc").canonical_text());
}

TEST(WorkItem, ASuiteImplementationIsPartOfTheItem) {
  const work_item triton{"relu", problem_size::medium, "float32", "abc", "triton"};
  EXPECT_EQ(triton.canonical_text(),
            R"({"backend":"triton","candidate_sha256":"abc","dtype":"float32","size":"medium","task":"relu"})");
  const work_item mosaic{"relu", problem_size::medium, "float32", "abc", "mosaic_gpu"};
  EXPECT_NE(mosaic.canonical_text(), triton.canonical_text());
}

TEST(ShardSpec, EveryItemFallsInExactlyOneShard) {
  const auto items = all_items();
  for (int count = 1; count <= 7; ++count) {
    std::vector<int> per_shard(count, 0);
    for (const auto& item : items) {
      int holders = 0;
      for (int index = 1; index <= count; ++index)
        if (shard_spec(index, count).contains(item)) ++holders, ++per_shard[index - 1];
      ASSERT_EQ(holders, 1) << item.canonical_text() << " with " << count << " shards";
    }
    // FNV-1a spreads the suite's keys: no shard gets less than half or more than twice its due.
    const double due = static_cast<double>(items.size()) / count;
    for (int index = 1; index <= count; ++index) {
      EXPECT_GE(per_shard[index - 1], due / 2) << index << "/" << count;
      EXPECT_LE(per_shard[index - 1], due * 2) << index << "/" << count;
    }
  }
}

TEST(ShardSpec, AnItemsShardDependsOnEveryFieldOfIt) {
  // Over the suite, changing one field must move some items: each field is part of the key.
  const auto items = all_items();
  const shard_spec first(1, 4);
  const auto moved = [&](auto change) {
    return std::count_if(items.begin(), items.end(), [&](work_item item) {
      const bool before = first.contains(item);
      change(item);
      return before != first.contains(item);
    });
  };
  EXPECT_GT(moved([](work_item& i) { i.task += "_v2"; }), 0);
  EXPECT_GT(moved([](work_item& i) { i.dtype = "bfloat16"; }), 0);
  EXPECT_GT(moved([](work_item& i) { i.candidate_sha256 += "0"; }), 0);
  EXPECT_GT(moved([](work_item& i) { i.size = problem_size::large; }), 0);
}

std::vector<task_info> tasks_named(const std::vector<std::string>& names) {
  std::vector<task_info> tasks;
  for (const auto& name : names) {
    task_info t;
    t.name = name;
    t.output_dtype = "float32";
    t.views["float32"] = {tolerance{}, {}, "float32", std::nullopt};
    t.sha256 = "sha-of-" + name;
    tasks.push_back(t);
  }
  return tasks;
}

std::map<std::string, int> shard_of_each(const std::vector<task_info>& tasks, int count, const std::string& sha = "") {
  std::map<std::string, int> out;
  for (int index = 1; index <= count; ++index)
    for (const auto& t : shard_share(tasks, shard_spec(index, count), problem_size::small, float_dtype::float32, sha))
      out[t.name] = index;
  return out;
}

TEST(ShardShare, AddingOrRemovingATaskMovesNoOther) {
  auto names = suite_names();
  const auto before = shard_of_each(tasks_named(names), 5);
  ASSERT_EQ(before.size(), names.size());
  ASSERT_GT(names.size(), 20u);
  const std::string removed = names[20];
  names.insert(names.begin() + 10, "brand_new_task");
  names.erase(std::find(names.begin(), names.end(), removed));
  auto after = shard_of_each(tasks_named(names), 5);
  EXPECT_TRUE(after.contains("brand_new_task"));
  after.erase("brand_new_task");
  auto expected = before;
  expected.erase(removed);
  EXPECT_EQ(after, expected);
}

TEST(ShardShare, KeepsTheSelectionOrder) {
  const auto tasks = tasks_named(suite_names());
  for (int index = 1; index <= 3; ++index) {
    const auto share = shard_share(tasks, shard_spec(index, 3), problem_size::small);
    std::vector<std::string> got, want;
    for (const auto& t : share) got.push_back(t.name);
    for (const auto& t : tasks)
      if (std::find(got.begin(), got.end(), t.name) != got.end()) want.push_back(t.name);
    EXPECT_EQ(got, want);
  }
}

TEST(ShardShare, AUserCandidatesHashReplacesEachTasksOwn) {
  const auto tasks = tasks_named(suite_names());
  const auto own = shard_of_each(tasks, 4);
  const auto user = shard_of_each(tasks, 4, "user-candidate-sha");
  EXPECT_EQ(user.size(), tasks.size());
  EXPECT_NE(own, user);
  for (const auto& t : tasks)
    EXPECT_EQ(user.at(t.name) == 2,
              shard_spec(2, 4).contains({t.name, problem_size::small, "float32", "user-candidate-sha"}));
}

}  // namespace
}  // namespace pallasbench
