#include "metrics/repeatstats.h"

#include <cmath>
#include <numeric>

namespace ks {

namespace {

// Continued fraction of the regularized incomplete beta function (modified
// Lentz), valid for x < (a + 1) / (a + b + 2).
double betaFraction(double a, double b, double x)
{
    constexpr double kTiny = 1e-300;
    constexpr double kEpsilon = 1e-14;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (std::abs(d) < kTiny ? kTiny : d);
    double h = d;
    for (int m = 1; m <= 300; ++m) {
        for (int half = 0; half < 2; ++half) {
            const double numerator = half == 0 ? m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
                                               : -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
            d = 1.0 + numerator * d;
            d = 1.0 / (std::abs(d) < kTiny ? kTiny : d);
            c = 1.0 + numerator / c;
            if (std::abs(c) < kTiny)
                c = kTiny;
            h *= d * c;
            if (half == 1 && std::abs(d * c - 1.0) < kEpsilon)
                return h;
        }
    }
    return h;
}

double regularizedBeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double logFront = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return std::exp(logFront) * betaFraction(a, b, x) / a;
    return 1.0 - std::exp(logFront) * betaFraction(b, a, 1.0 - x) / b;
}

double studentTCdf(double t, double df)
{
    const double tail = 0.5 * regularizedBeta(df / 2.0, 0.5, df / (df + t * t));
    return t >= 0 ? 1.0 - tail : tail;
}

double mean(const std::vector<double>& v)
{
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

double variance(const std::vector<double>& v, double m)
{
    double sum = 0;
    for (double x : v)
        sum += (x - m) * (x - m);
    return sum / double(v.size() - 1);
}

} // namespace

double studentTQuantile(double p, double df)
{
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -studentTQuantile(1.0 - p, df);
    double low = 0;
    double high = 1;
    while (studentTCdf(high, df) < p && high < 1e12)
        high *= 2;
    for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
        const double mid = 0.5 * (low + high);
        (studentTCdf(mid, df) < p ? low : high) = mid;
    }
    return 0.5 * (low + high);
}

RepeatSpread repeatSpread(const std::vector<double>& values)
{
    RepeatSpread s;
    s.n = int(values.size());
    if (values.empty())
        return s;
    s.mean = mean(values);
    if (s.n < 2)
        return s;
    s.sd = std::sqrt(variance(values, s.mean));
    s.cv = s.mean != 0 ? s.sd / s.mean : 0;
    const double half = studentTQuantile(0.975, s.n - 1) * s.sd / std::sqrt(double(s.n));
    s.tCi95 = Interval { s.mean - half, s.mean + half };
    return s;
}

std::optional<Interval> welchDifferenceCi95(const std::vector<double>& baseline, const std::vector<double>& other)
{
    if (baseline.size() < 2 || other.size() < 2)
        return std::nullopt;
    const double mb = mean(baseline);
    const double mo = mean(other);
    const double vb = variance(baseline, mb) / double(baseline.size());
    const double vo = variance(other, mo) / double(other.size());
    const double se2 = vb + vo;
    const double diff = mo - mb;
    if (se2 <= 0) // no spread at all: the difference is exact
        return Interval { diff, diff };
    // Welch-Satterthwaite degrees of freedom.
    const double df = se2 * se2 / (vb * vb / double(baseline.size() - 1) + vo * vo / double(other.size() - 1));
    const double half = studentTQuantile(0.975, df) * std::sqrt(se2);
    return Interval { diff - half, diff + half };
}

} // namespace ks
