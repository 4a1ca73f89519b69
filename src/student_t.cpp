#include "student_t.hpp"

#include <cmath>
#include <stdexcept>

namespace gpubench {
namespace {

// The continued fraction of the regularised incomplete beta function (modified Lentz).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  constexpr double epsilon = 1e-15;
  const auto guarded = [](double value) { return std::abs(value) < tiny ? tiny : value; };
  double c = 1.0;
  double d = 1.0 / guarded(1.0 - (a + b) * x / (a + 1.0));
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double md = m;
    const double even = md * (b - md) * x / ((a - 1.0 + 2.0 * md) * (a + 2.0 * md));
    d = 1.0 / guarded(1.0 + even * d);
    c = guarded(1.0 + even / c);
    h *= d * c;
    const double odd = -(a + md) * (a + b + md) * x / ((a + 2.0 * md) * (a + 1.0 + 2.0 * md));
    d = 1.0 / guarded(1.0 + odd * d);
    c = guarded(1.0 + odd / c);
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1.0) < epsilon) {
      break;
    }
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function, for x in [0, 1].
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0 || x >= 1.0) {
    return x <= 0.0 ? 0.0 : 1.0;
  }
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return front * beta_continued_fraction(a, b, x) / a;
  }
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

// P(|T| <= t) for Student's t with `df` degrees of freedom.
double central_probability(double t, double df) {
  return 1.0 - incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

} // namespace

double student_t_critical(double confidence, int degrees_of_freedom) {
  if (!(confidence > 0.0 && confidence < 1.0) || degrees_of_freedom < 1) {
    throw std::invalid_argument("Student's t needs a confidence in (0, 1) and a degree of freedom");
  }
  const double df = degrees_of_freedom;
  double low = 0.0;
  double high = 1.0;
  while (central_probability(high, df) < confidence) {
    low = high;
    high *= 2.0;
  }
  // Bisection: the probability rises monotonically in t; 200 halvings reach double precision.
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double middle = 0.5 * (low + high);
    (central_probability(middle, df) < confidence ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

} // namespace gpubench
