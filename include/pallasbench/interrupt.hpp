// Ctrl-C handling: SIGINT/SIGTERM set a flag that blocking waits observe.
#pragma once

namespace pallasbench {

// Installs handlers for SIGINT and SIGTERM (without SA_RESTART, so a blocking poll returns).
void install_interrupt_handlers();
[[nodiscard]] bool interrupted();
void clear_interrupt();  // for tests

}  // namespace pallasbench
