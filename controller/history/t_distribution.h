// Student's t distribution, for the regression verdicts' p-values.
#pragma once

namespace iofleet::controller {

// P(T <= t) for Student's t with `df` > 0 degrees of freedom; t may be infinite.
double StudentTCdf(double t, double df);

// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double RegularizedIncompleteBeta(double x, double a, double b);

}  // namespace iofleet::controller
