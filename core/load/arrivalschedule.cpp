#include "load/arrivalschedule.h"

#include <random>

namespace ks {

std::vector<qint64> gammaArrivals(double rate, double burstiness, int count, double durationS, quint64 seed)
{
    std::vector<qint64> times;
    if (!(rate > 0) || !(burstiness > 0) || (count <= 0 && durationS <= 0))
        return times;
    std::mt19937_64 rng(seed);
    // Gamma with shape k and scale 1/(k*rate) has mean 1/rate and CV 1/sqrt(k).
    std::gamma_distribution<double> gap(burstiness, 1.0 / (burstiness * rate));
    const double limitUs = durationS > 0 ? durationS * 1e6 : 0;
    double t = 0;
    while (count <= 0 || int(times.size()) < count) {
        if (limitUs > 0 && t >= limitUs)
            break;
        times.push_back(qint64(t));
        t += gap(rng) * 1e6;
    }
    return times;
}

bool appendGammaArrivals(std::vector<qint64>& times, qint64 fromUs, double rate, double burstiness, int count,
    qint64 endUs, quint64 seed, std::size_t limit)
{
    if (!(rate > 0) || !(burstiness > 0) || (count <= 0 && endUs <= 0))
        return true;
    const std::size_t start = times.size();
    std::mt19937_64 rng(seed);
    std::gamma_distribution<double> gap(burstiness, 1.0 / (burstiness * rate));
    double t = double(fromUs) + gap(rng) * 1e6;
    while ((count <= 0 || int(times.size() - start) < count) && (endUs <= 0 || t < double(endUs))) {
        if (times.size() - start >= limit) {
            times.resize(start);
            return false;
        }
        times.push_back(qint64(t));
        t += gap(rng) * 1e6;
    }
    return true;
}

} // namespace ks
