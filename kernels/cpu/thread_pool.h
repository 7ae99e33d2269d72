#pragma once
// Ember's CPU worker threads: run_parallel(tasks, body) calls body(t) for t in [0, tasks),
// on the calling thread and up to get_num_threads() - 1 workers.
//
// Why not OpenMP: its workers spin at every region's barrier, and a region hands each thread
// a fixed share. With another busy process on the machine, a thread that lost its core holds
// the whole region back while the others burn theirs spinning (a 2-thread training step fell
// to a tenth of the 1-thread rate). Here tasks are claimed one at a time from a counter, so a
// worker that is not running simply claims nothing and the caller does its share; workers
// spin only briefly for the next job, then watch for it yielding their core, then sleep; and
// the caller yields its core while it waits for a task that a worker has started.
#include <cstdint>

#include "ember/core/export.h"

namespace ember::cpu {

/// body(context, t) for every t in [0, tasks), each exactly once, spread over the caller and
/// the pool's workers. Runs everything on the caller when tasks <= 1, when one thread is
/// set, when called from inside a task (nested) or while another thread's job holds the pool.
/// The first exception thrown by a task is rethrown here after every task has ended.
/// Exported (EMBER_API) for the tests; not an installed header.
EMBER_API void run_parallel(int64_t tasks, void (*body)(const void* context, int64_t task),
                            const void* context);

/// How many threads run_parallel can use right now (the caller included).
EMBER_API int parallel_width();

/// Jobs handed to the workers so far, in this process (calls that ran everything on the caller
/// are not counted). For the tests: small work must not pay for a parallel region.
EMBER_API uint64_t parallel_jobs_started();

}  // namespace ember::cpu
