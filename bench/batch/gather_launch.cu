#include "gather_launch.hpp"

#include "cuda_error.hpp"
#include "gather_pieces.cuh"

#include <algorithm>

namespace gpubench::bench {

void gather_launch(CUdeviceptr src, CUdeviceptr dst, const unsigned int* src_slots,
                   const unsigned int* dst_slots, std::size_t slot_bytes, std::size_t piece_bytes,
                   std::size_t pieces, int sm_count, CUstream stream) {
  constexpr unsigned int threads = 256;
  const std::size_t word = piece_bytes % 16 == 0 ? 16 : piece_bytes % 4 == 0 ? 4 : 1;
  const std::size_t piece_words = piece_bytes / word;
  const std::size_t slot_words = slot_bytes / word;
  const std::size_t words = pieces * piece_words;
  const auto blocks = static_cast<unsigned int>(std::clamp<std::size_t>(
      (words + threads - 1) / threads, 1, static_cast<std::size_t>(sm_count) * 8));
  if (word == 16) {
    gather_pieces_16<<<blocks, threads, 0, stream>>>(reinterpret_cast<const uint4*>(src),
                                                     reinterpret_cast<uint4*>(dst), src_slots,
                                                     dst_slots, slot_words, piece_words, pieces);
  } else if (word == 4) {
    gather_pieces_4<<<blocks, threads, 0, stream>>>(reinterpret_cast<const unsigned int*>(src),
                                                    reinterpret_cast<unsigned int*>(dst), src_slots,
                                                    dst_slots, slot_words, piece_words, pieces);
  } else {
    gather_pieces_1<<<blocks, threads, 0, stream>>>(
        reinterpret_cast<const unsigned char*>(src), reinterpret_cast<unsigned char*>(dst),
        src_slots, dst_slots, slot_words, piece_words, pieces);
  }
  GPUBENCH_CUDART(cudaGetLastError());
}

} // namespace gpubench::bench
