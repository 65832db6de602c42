// osmprun: starts N ranks of a program on this machine, binds them, passes
// the team environment, watches them, and cleans up after them.
//
// - The job segment (bootstrap exchange, job-wide abort word) is created here
//   before any rank starts, so the launcher can stop the job at any time.
// - When a rank exits non-zero or is killed: one line names it and how; the
//   job's abort word is raised so the others' osmp calls fail instead of
//   hanging; after --grace seconds the rest get SIGTERM, then SIGKILL.
// - SIGINT/SIGTERM/SIGHUP sent to osmprun go to every rank (terminal signals
//   reach the ranks directly and are not sent twice).
// - A watchdog process raises the abort word, stops the ranks and removes the
//   job's names from the shm directory even if osmprun itself is SIGKILLed.
// - On exit every name of the job left in the shm directory is removed.
#pragma once

#include <signal.h>

#include "launcher/options.hpp"

namespace osmp {

// Call first thing in main(): blocks the signals osmprun handles (they are
// read from a signalfd later), so that one sent while osmprun starts is
// handled, not fatal. Returns the mask the ranks get back.
sigset_t block_launcher_signals();

// Runs the job; returns osmprun's exit status: 0 when every rank exited 0;
// the first failing rank's status (128 + signal when killed); 124 when
// --timeout expired; 128 + signal when osmprun was interrupted; 2 for a bad
// request (nothing started).
int run_launcher(const LaunchOptions& options, const sigset_t& ranks_mask);

}  // namespace osmp
