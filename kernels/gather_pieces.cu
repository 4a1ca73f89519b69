#include "gather_pieces.cuh"

namespace {

template <typename Word>
__device__ void gather_words(const Word* __restrict__ src, Word* __restrict__ dst,
                             const unsigned int* src_slots, const unsigned int* dst_slots,
                             std::size_t slot_words, std::size_t piece_words, std::size_t pieces) {
  const std::size_t words = pieces * piece_words;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    const std::size_t piece = i / piece_words;
    const std::size_t word = i - piece * piece_words;
    dst[dst_slots[piece] * slot_words + word] = src[src_slots[piece] * slot_words + word];
  }
}

} // namespace

__global__ void gather_pieces_16(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                 const unsigned int* src_slots, const unsigned int* dst_slots,
                                 std::size_t slot_words, std::size_t piece_words,
                                 std::size_t pieces) {
  gather_words(src, dst, src_slots, dst_slots, slot_words, piece_words, pieces);
}

__global__ void gather_pieces_4(const unsigned int* __restrict__ src,
                                unsigned int* __restrict__ dst, const unsigned int* src_slots,
                                const unsigned int* dst_slots, std::size_t slot_words,
                                std::size_t piece_words, std::size_t pieces) {
  gather_words(src, dst, src_slots, dst_slots, slot_words, piece_words, pieces);
}

__global__ void gather_pieces_1(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, const unsigned int* src_slots,
                                const unsigned int* dst_slots, std::size_t slot_words,
                                std::size_t piece_words, std::size_t pieces) {
  gather_words(src, dst, src_slots, dst_slots, slot_words, piece_words, pieces);
}
