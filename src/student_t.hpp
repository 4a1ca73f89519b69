#pragma once

namespace gpubench {

// The two-sided critical value of Student's t: the t with P(|T| <= t) = `confidence` for T of
// `degrees_of_freedom` degrees of freedom (12.706 for 0.95 and 1, 1.960 in the limit). Throws
// std::invalid_argument for a confidence outside (0, 1) or degrees of freedom below 1.
[[nodiscard]] double student_t_critical(double confidence, int degrees_of_freedom);

} // namespace gpubench
