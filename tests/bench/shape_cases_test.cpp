// launch/shape/'s cases: their names, the blocks a grid stands for, the carveout each launch
// sets, and which shapes a GPU's limits refuse, all without a GPU.
#include "shape_cases.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpubench::bench {
namespace {

TEST(ShapeCases, NamesAreUniqueAndReadAsDimensionValueMeasure) {
  std::set<std::string> names;
  for (const LaunchShape& shape : launch_shapes()) {
    EXPECT_TRUE(names.insert(shape_name(shape, "gpu_gap")).second)
        << shape_name(shape, "gpu_gap") << " is named twice";
  }
  EXPECT_TRUE(names.contains("launch/shape/grid/blocks:1/gpu_gap"));
  EXPECT_TRUE(names.contains("launch/shape/grid/waves:64/gpu_gap"));
  EXPECT_TRUE(names.contains("launch/shape/block/threads:1024/gpu_gap"));
  EXPECT_TRUE(names.contains("launch/shape/smem/bytes:232448/gpu_gap"));
  EXPECT_TRUE(names.contains("launch/shape/carveout/alternating/gpu_gap"));
  EXPECT_EQ(shape_name(launch_shapes().front(), "submit"), "launch/shape/grid/blocks:1/submit");
}

// Each dimension varies its own part of the base and nothing else, the base among its values.
TEST(ShapeCases, EachDimensionVariesOnePartOfTheBase) {
  for (const LaunchShape& shape : launch_shapes()) {
    const std::string dimension = shape.dimension;
    const bool base_grid = shape.grid.unit == one_wave.unit && shape.grid.count == one_wave.count;
    if (dimension != "grid") {
      EXPECT_TRUE(base_grid) << shape_name(shape, "submit");
    }
    if (dimension != "block") {
      EXPECT_EQ(shape.block_threads, base_block_threads) << shape_name(shape, "submit");
    }
    if (dimension == "grid" || dimension == "block") {
      EXPECT_EQ(shape.shared_bytes, 0U) << shape_name(shape, "submit");
    }
    if (dimension == "carveout") {
      EXPECT_EQ(shape.shared_bytes, carveout_shared_bytes);
      EXPECT_NE(shape.carveout, Carveout::unset);
    } else {
      EXPECT_EQ(shape.carveout, Carveout::unset) << shape_name(shape, "submit");
    }
    // The kernel's words are 4 bytes; a block's threads a whole number of warps.
    EXPECT_EQ(shape.shared_bytes % 4, 0U);
    EXPECT_EQ(shape.block_threads % 32, 0U);
  }
}

TEST(ShapeCases, WavesAreOneBlockPerSm) {
  EXPECT_EQ(shape_grid_blocks({GridSize::Unit::blocks, 1}, 132), 1U);
  EXPECT_EQ(shape_grid_blocks({GridSize::Unit::waves, 1}, 132), 132U);
  EXPECT_EQ(shape_grid_blocks({GridSize::Unit::waves, 64}, 132), 8448U);
  EXPECT_EQ(shape_grid_blocks({GridSize::Unit::waves, 4}, 114), 456U);
  EXPECT_THROW(static_cast<void>(shape_grid_blocks({GridSize::Unit::waves, 1}, 0)),
               std::logic_error);
}

TEST(ShapeCases, AlternatingLaunchesSwingBetweenTheEndsFixedOnesDoNot) {
  EXPECT_EQ(carveout_percent(Carveout::unset, 0), std::nullopt);
  for (std::uint64_t launch = 0; launch < 4; ++launch) {
    EXPECT_EQ(carveout_percent(Carveout::fixed, launch), 100);
    EXPECT_EQ(carveout_percent(Carveout::alternating, launch), launch % 2 == 0 ? 0 : 100);
  }
}

// sm_90: 1024 threads, 227 KiB of dynamic shared memory by opt-in; sm_86: 99 KiB.
TEST(ShapeCases, AShapeBeyondTheGpusLimitsIsUnfitWithTheReason) {
  constexpr int sm90_optin = 232448;
  constexpr int sm86_optin = 101376;
  for (const LaunchShape& shape : launch_shapes()) {
    EXPECT_EQ(shape_unfit(shape, 1024, sm90_optin, 0), std::nullopt) << shape_name(shape, "submit");
  }
  const LaunchShape most{"smem", one_wave, 32, 227U * 1024U};
  const auto on_sm86 = shape_unfit(most, 1024, sm86_optin, 0);
  ASSERT_TRUE(on_sm86.has_value());
  EXPECT_NE(on_sm86->find("101376 bytes"), std::string::npos) << *on_sm86;
  // Static shared memory comes off what a block may opt in to.
  EXPECT_TRUE(shape_unfit(most, 1024, sm90_optin, 16).has_value());
  const LaunchShape widest{"block", one_wave, 1024, 0};
  EXPECT_TRUE(shape_unfit(widest, 768, sm90_optin, 0).has_value());
}

} // namespace
} // namespace gpubench::bench
