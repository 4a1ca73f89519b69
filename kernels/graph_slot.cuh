#pragma once

// A graph node that proves which parameters it ran with: it writes `value` to slots[slot].
// launch/graph_update gives each node of a chain its own slot and a value never used before, so
// after a graph is updated and replayed, the slots show every node ran with its new parameters.
__global__ void graph_slot_write(unsigned long long* slots, unsigned int slot,
                                 unsigned long long value);
