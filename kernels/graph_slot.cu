#include "graph_slot.cuh"

__global__ void graph_slot_write(unsigned long long* slots, unsigned int slot,
                                 unsigned long long value) {
  slots[slot] = value;
}
