#pragma once

// Holds a stream until the host writes a non-zero `release` flag in mapped host memory, so that
// all work queued behind it starts back to back on the GPU rather than as the host enqueues it
// (nvbench's blocking kernel). Gives up after `timeout_ns` and sets `*timed_out`, so a host that
// never releases cannot hang the GPU.
__global__ void stream_gate(const volatile int* release, unsigned long long timeout_ns,
                            int* timed_out);
