#include "pallasbench/orchestrate/worker.hpp"

#include <csignal>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using namespace std::chrono_literals;

worker_options fake(std::vector<std::string> extra = {}) {
  worker_options o;
  o.project_root = PALLASBENCH_TEST_DATA;
  o.command = {"python3", std::string(PALLASBENCH_TEST_DATA) + "/orchestrate/fake_worker.py"};
  o.command.insert(o.command.end(), extra.begin(), extra.end());
  o.startup_timeout = 30s;
  return o;
}

TEST(Worker, GreetsAndAnswers) {
  worker w(fake());
  EXPECT_TRUE(w.hello().value("ready", false));
  const auto reply = w.call({{"cmd", "echo"}, {"value", 42}}, 10s);
  EXPECT_EQ(reply["echo"], 42);
  EXPECT_EQ(w.call({{"cmd", "echo"}, {"value", "again"}}, 10s)["echo"], "again");
}

TEST(Worker, CommandFailureCarriesKindAndStaysUsable) {
  worker w(fake());
  try {
    (void)w.call({{"cmd", "fail"}}, 10s);
    FAIL() << "no exception";
  } catch (const command_failed& e) {
    EXPECT_EQ(e.kind(), "compile_error");
    EXPECT_STREQ(e.what(), "bad kernel");
    EXPECT_EQ(e.traceback(), "Traceback...");
  }
  EXPECT_EQ(w.call({{"cmd", "echo"}, {"value", 1}}, 10s)["echo"], 1);
}

TEST(Worker, HangBecomesTimeoutAndKillsIt) {
  worker w(fake());
  try {
    (void)w.call({{"cmd", "hang"}}, 500ms);
    FAIL() << "no exception";
  } catch (const worker_failure& e) {
    EXPECT_EQ(e.what_kind(), worker_failure::kind::timeout);
    ASSERT_TRUE(e.status().has_value());
    EXPECT_EQ(e.status()->signal, SIGKILL);
  }
  EXPECT_THROW((void)w.call({{"cmd", "echo"}}, 1s), worker_failure);  // it is gone
}

TEST(Worker, DeathReportsExitCodeAndStderr) {
  worker w(fake());
  try {
    (void)w.call({{"cmd", "die"}}, 10s);
    FAIL() << "no exception";
  } catch (const worker_failure& e) {
    EXPECT_EQ(e.what_kind(), worker_failure::kind::died);
    EXPECT_NE(std::string(e.what()).find("exit code 5"), std::string::npos) << e.what();
    EXPECT_NE(e.stderr_tail().find("dying now"), std::string::npos);
  }
}

TEST(Worker, AbortReportsSignal) {
  worker w(fake());
  try {
    (void)w.call({{"cmd", "abort"}}, 10s);
    FAIL() << "no exception";
  } catch (const worker_failure& e) {
    EXPECT_NE(std::string(e.what()).find("SIGABRT"), std::string::npos) << e.what();
  }
}

TEST(Worker, ExternalSigkillIsDeath) {
  worker w(fake());
  ASSERT_EQ(::kill(w.pid(), SIGKILL), 0);
  try {
    (void)w.call({{"cmd", "echo"}}, 10s);
    FAIL() << "no exception";
  } catch (const worker_failure& e) {
    EXPECT_EQ(e.what_kind(), worker_failure::kind::died);
    EXPECT_NE(std::string(e.what()).find("SIGKILL"), std::string::npos) << e.what();
  }
}

TEST(Worker, ProtocolViolationsAreRefused) {
  worker garbage(fake());
  EXPECT_THROW((void)garbage.call({{"cmd", "garbage"}}, 10s), worker_failure);
  worker wrong(fake());
  try {
    (void)wrong.call({{"cmd", "wrong_id"}}, 10s);
    FAIL() << "no exception";
  } catch (const worker_failure& e) {
    EXPECT_EQ(e.what_kind(), worker_failure::kind::protocol);
  }
}

TEST(Worker, BadGreetingIsRefused) {
  worker w(fake({"--no-greeting"}));  // started; the greeting is read on first use
  EXPECT_THROW((void)w.hello(), worker_failure);
}

}  // namespace
}  // namespace pallasbench
