// Ctrl-C handling: SIGINT/SIGTERM set a flag that blocking waits observe.
#pragma once

#include <stdexcept>

namespace pallasbench {

// Ctrl-C arrived while waiting (on a worker, on a lock).
class interrupted_error : public std::runtime_error {
public:
  interrupted_error() : std::runtime_error("interrupted") {}
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP (without SA_RESTART, so a blocking poll returns).
void install_interrupt_handlers();
[[nodiscard]] bool interrupted();
// As if Ctrl-C arrived: every blocking wait gives up (a run stopping on a failure of its own).
void request_interrupt();
void clear_interrupt();  // for tests

}  // namespace pallasbench
