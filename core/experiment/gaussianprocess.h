#pragma once

#include <vector>

namespace ks {

/// Gaussian-process regression over points in the unit cube, small enough to
/// write by hand (a search has a few dozen probes at most: a Cholesky
/// factorisation of that size needs no linear-algebra library).
///
/// Squared-exponential kernel with one length scale per axis, on observations
/// standardised to mean 0 and variance 1; each observation carries its own
/// noise variance (from its interval). fit() picks the length scales that
/// maximise the marginal likelihood over a small grid, the usual choice when
/// there are too few points for a gradient search to be trusted.
class GaussianProcess {
public:
    struct Prediction {
        double mean = 0;
        double sd = 0;
    };

    /// `noise`: each observation's variance, in the units of `y`.
    void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, const std::vector<double>& noise);
    Prediction predict(const std::vector<double>& at) const;
    bool fitted() const { return !m_x.empty(); }
    const std::vector<double>& lengthScales() const { return m_length; }

private:
    double kernel(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& length) const;
    /// Factorises K + noise for `length`; returns the log marginal likelihood, or -inf if not positive definite.
    double factorise(const std::vector<double>& length);

    std::vector<std::vector<double>> m_x;
    std::vector<double> m_y; ///< standardised
    std::vector<double> m_noise; ///< standardised
    double m_mean = 0, m_scale = 1;
    std::vector<double> m_length;
    std::vector<double> m_chol; ///< lower triangle, row-major n x n
    std::vector<double> m_alpha; ///< (K + noise)^-1 y
};

/// Expected improvement over `best` of a normal prediction, for maximising.
double expectedImprovement(const GaussianProcess::Prediction& p, double best);

} // namespace ks
