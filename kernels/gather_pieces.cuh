#pragma once

#include <cuda_runtime_api.h> // __global__ and uint4 for the host compiler

#include <cstddef>

// Copies `pieces` pieces of `piece_words` words each with SM loads and stores: piece i from slot
// src_slots[i] of `src` to slot dst_slots[i] of `dst`, slots `slot_words` words apart. One thread
// a word, over every piece at once, so a few large pieces keep as many loads in flight as many
// small ones. For mapped host memory on either side, the kernel moves the pieces across PCIe
// itself (zero-copy): the one-launch alternative to a copy per piece. One kernel per word size
// (plain functions, so one definition in gather_pieces.cu serves every translation unit).
__global__ void gather_pieces_16(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                 const unsigned int* src_slots, const unsigned int* dst_slots,
                                 std::size_t slot_words, std::size_t piece_words,
                                 std::size_t pieces);
__global__ void gather_pieces_4(const unsigned int* __restrict__ src,
                                unsigned int* __restrict__ dst, const unsigned int* src_slots,
                                const unsigned int* dst_slots, std::size_t slot_words,
                                std::size_t piece_words, std::size_t pieces);
__global__ void gather_pieces_1(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, const unsigned int* src_slots,
                                const unsigned int* dst_slots, std::size_t slot_words,
                                std::size_t piece_words, std::size_t pieces);
