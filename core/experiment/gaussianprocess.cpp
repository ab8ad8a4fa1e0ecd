#include "experiment/gaussianprocess.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace ks {

namespace {

// Length scales tried per axis, in units of the range: from "neighbouring
// probes barely inform each other" to "the whole range is one slope".
constexpr double kLengthGrid[] = { 0.08, 0.12, 0.18, 0.27, 0.4, 0.6 };
// Added to the diagonal so that two probes at one point stay factorisable.
constexpr double kJitter = 1e-6;

} // namespace

double GaussianProcess::kernel(
    const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& length) const
{
    double d2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = (a[i] - b[i]) / length[i];
        d2 += d * d;
    }
    return std::exp(-0.5 * d2);
}

double GaussianProcess::factorise(const std::vector<double>& length)
{
    const std::size_t n = m_x.size();
    m_chol.assign(n * n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            double sum = kernel(m_x[i], m_x[j], length);
            if (i == j)
                sum += m_noise[i] + kJitter;
            for (std::size_t k = 0; k < j; ++k)
                sum -= m_chol[i * n + k] * m_chol[j * n + k];
            if (i == j) {
                if (!(sum > 0))
                    return -std::numeric_limits<double>::infinity();
                m_chol[i * n + i] = std::sqrt(sum);
            } else {
                m_chol[i * n + j] = sum / m_chol[j * n + j];
            }
        }
    }
    // alpha = L^T \ (L \ y)
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i) {
        double sum = m_y[i];
        for (std::size_t k = 0; k < i; ++k)
            sum -= m_chol[i * n + k] * z[k];
        z[i] = sum / m_chol[i * n + i];
    }
    m_alpha.assign(n, 0);
    for (std::size_t ii = n; ii-- > 0;) {
        double sum = z[ii];
        for (std::size_t k = ii + 1; k < n; ++k)
            sum -= m_chol[k * n + ii] * m_alpha[k];
        m_alpha[ii] = sum / m_chol[ii * n + ii];
    }
    double logLikelihood = 0;
    for (std::size_t i = 0; i < n; ++i)
        logLikelihood += -0.5 * m_y[i] * m_alpha[i] - std::log(m_chol[i * n + i]);
    return logLikelihood;
}

void GaussianProcess::fit(
    const std::vector<std::vector<double>>& x, const std::vector<double>& y, const std::vector<double>& noise)
{
    m_x = x;
    const std::size_t n = y.size();
    m_mean = 0;
    for (double v : y)
        m_mean += v / double(n);
    double variance = 0;
    for (double v : y)
        variance += (v - m_mean) * (v - m_mean) / double(n);
    m_scale = variance > 0 ? std::sqrt(variance) : 1;
    m_y.resize(n);
    m_noise.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        m_y[i] = (y[i] - m_mean) / m_scale;
        m_noise[i] = noise[i] / (m_scale * m_scale);
    }
    const std::size_t d = x.empty() ? 0 : x.front().size();
    // Every combination of the grid for up to two axes; one shared scale beyond (36 fits against 6^d).
    const std::size_t per = std::size(kLengthGrid);
    const std::size_t combos = d <= 2 ? std::size_t(std::pow(per, double(d))) : per;
    double bestLikelihood = -std::numeric_limits<double>::infinity();
    std::vector<double> best(d, kLengthGrid[per / 2]);
    for (std::size_t c = 0; c < combos; ++c) {
        std::vector<double> length(d);
        std::size_t rest = c;
        for (std::size_t i = 0; i < d; ++i) {
            length[i] = kLengthGrid[d <= 2 ? rest % per : c];
            rest /= per;
        }
        const double likelihood = factorise(length);
        if (likelihood > bestLikelihood) {
            bestLikelihood = likelihood;
            best = length;
        }
    }
    m_length = best;
    factorise(m_length);
}

GaussianProcess::Prediction GaussianProcess::predict(const std::vector<double>& at) const
{
    const std::size_t n = m_x.size();
    if (n == 0)
        return { m_mean, m_scale };
    std::vector<double> k(n);
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) {
        k[i] = kernel(at, m_x[i], m_length);
        mean += k[i] * m_alpha[i];
    }
    // v = L \ k; variance = 1 - v.v
    double vv = 0;
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        double sum = k[i];
        for (std::size_t j = 0; j < i; ++j)
            sum -= m_chol[i * n + j] * v[j];
        v[i] = sum / m_chol[i * n + i];
        vv += v[i] * v[i];
    }
    const double variance = std::max(0.0, 1 - vv);
    return { m_mean + m_scale * mean, m_scale * std::sqrt(variance) };
}

double expectedImprovement(const GaussianProcess::Prediction& p, double best)
{
    if (!(p.sd > 0))
        return std::max(0.0, p.mean - best);
    const double z = (p.mean - best) / p.sd;
    const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    return (p.mean - best) * cdf + p.sd * pdf;
}

} // namespace ks
