// SPDX-License-Identifier: Apache-2.0
#include "app/signals.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace fa2b {
namespace {

std::atomic<int> g_count{0};
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_interrupt(int sig) {
  if (g_count.fetch_add(1) >= 1) _exit(kExitInterrupted);
  g_signal.store(sig);
  static const char msg[] =
      "\nfa2bench: interrupted: finishing the current case, then writing the reports "
      "(signal again to exit at once)\n";
  const ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
}

void set_handler(void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

void install_interrupt_handlers() {
  set_handler(on_interrupt);
}
void remove_interrupt_handlers() {
  set_handler(SIG_DFL);
}
bool interrupt_requested() {
  return g_count.load() > 0;
}
int interrupt_signal() {
  return g_signal.load();
}

}  // namespace fa2b
