#pragma once

#include <cuda.h>

#include <cstddef>
#include <functional>

namespace gpubench::bench {

class Session;

// One stream's work measured alone, in the same process, on the same stream and regions as the
// round at once that it is read against.

// Seconds of one operation: queued once and waited for (its first use), then the median of
// three gated batches of one. Only to size a round (ops_per_round).
[[nodiscard]] double one_op_seconds(Session& session, CUstream stream,
                                    const std::function<void()>& enqueue);

// Seconds of a round of `ops` operations on `stream` alone: the median of gated batches of
// one round each, after the harness's warm-up and until its stopping rule stops them, as
// copy2d's contiguous reference and saxpy's ceiling are measured.
[[nodiscard]] double alone_round_seconds(Session& session, CUstream stream, std::size_t ops,
                                         const std::function<void()>& enqueue);

} // namespace gpubench::bench
