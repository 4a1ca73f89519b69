#include "gated_batch.hpp"

#include "driver_api.hpp"

namespace gpubench::bench {

void make_current(CUcontext context) {
  if (context != nullptr) {
    GPUBENCH_CU(cuCtxSetCurrent, context);
  }
}

Lane::Lane(CUstream stream, CUcontext context)
    // The context is made current before the events are created, so they belong to it.
    : stream(stream), context((make_current(context), context)) {}

} // namespace gpubench::bench
