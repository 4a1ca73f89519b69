#pragma once

namespace gpubench::bench {

class Session;

// The device's memory bandwidth as this process measures it: a 1 GiB device-to-device copy,
// counting bytes read plus bytes written (as the copy family's DtoD and saxpy's 12 B/element
// do), the median of gated batches timed as every benchmark's are (the harness's warm-up and
// stopping rule). Measured once per process, on first use.
[[nodiscard]] double memory_ceiling_bytes_per_second(Session& session);

} // namespace gpubench::bench
