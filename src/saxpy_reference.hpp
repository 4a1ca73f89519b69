#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace gpubench {

// y[i] = fmaf(alpha, x[i], y[i]). nvcc contracts `alpha * x[i] + y[i]` into one FMA (its
// default --fmad=true), and cuBLAS and Thrust do the same, so a correct GPU result equals this
// reference bit for bit: verification compares exactly, with no tolerance.
void saxpy_reference(float alpha, std::span<const float> x, std::span<float> y);

struct SaxpyMismatch {
  std::size_t index = 0;
  float expected = 0.0F;
  float actual = 0.0F;
};

// Compares a device result with the reference computed from the inputs, over every element.
// `applications` is how many saxpys ran one after the other on y (a replayed graph of several
// launches): the reference applies the same fused multiply-add as often, so it stays exact.
[[nodiscard]] std::optional<SaxpyMismatch>
find_saxpy_mismatch(float alpha, std::span<const float> x, std::span<const float> y_before,
                    std::span<const float> y_after, std::size_t applications = 1);

[[nodiscard]] std::string describe(const SaxpyMismatch& mismatch, std::size_t n);

} // namespace gpubench
