// SPDX-License-Identifier: Apache-2.0
// SIGINT/SIGTERM during a sweep: the first one asks the sweep to stop between cases (it then
// writes its reports, marked interrupted); a second one exits at once with status 130.
#pragma once

namespace fa2b {

inline constexpr int kExitInterrupted = 130;

// Installs the handlers (idempotent). The handler only sets an atomic flag and, on the second
// signal, calls _exit: both async-signal-safe.
void install_interrupt_handlers();
// Restores the default dispositions.
void remove_interrupt_handlers();
// True once SIGINT or SIGTERM arrived after install_interrupt_handlers().
bool interrupt_requested();
// The signal number that arrived first (0 when none).
int interrupt_signal();

}  // namespace fa2b
