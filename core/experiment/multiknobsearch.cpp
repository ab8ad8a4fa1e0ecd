#include "experiment/multiknobsearch.h"

#include "experiment/proberank.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ks {

namespace {

using nlohmann::json;

constexpr int kLatticePerKnob = 33; // values a knob on the candidate lattice, up to three knobs
constexpr int kHaltonCandidates = 4096; // candidates beyond three knobs
constexpr double kSettled = 0.002; // expected improvement of the log objective (0.2 %) not worth a probe
constexpr double kEdgeLikelihood = 0.5; // an edge candidate at least this likely to be on the plateau
constexpr double kStartMargin = 0.1; // the start's points keep this share of the range from each end
// The trust region around the top: its half-side on the unit scale at first, at most and at least.
constexpr double kRegionStart = 0.25, kRegionMax = 0.5, kRegionMin = 1.0 / 32;
const int kPrimes[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37 };

double radicalInverse(int index, int base)
{
    double result = 0, f = 1.0 / base;
    for (int i = index; i > 0; i /= base, f /= base)
        result += f * (i % base);
    return result;
}

double normalTail(double z) // P(Z >= z)
{
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

} // namespace

MultiKnobSearch::MultiKnobSearch(SearchSpec spec)
    : m_spec(std::move(spec))
{
    const std::size_t d = m_spec.knobs.size();
    std::set<std::vector<double>> unique;
    if (d <= 3) {
        std::vector<std::vector<double>> axes(d);
        for (std::size_t k = 0; k < d; ++k) {
            std::set<double> values;
            for (int i = 0; i < kLatticePerKnob; ++i)
                values.insert(m_spec.knobs[k].fromUnit(double(i) / (kLatticePerKnob - 1)));
            axes[k].assign(values.begin(), values.end());
        }
        std::vector<std::size_t> at(d, 0);
        while (d > 0) {
            std::vector<double> point(d);
            for (std::size_t k = 0; k < d; ++k)
                point[k] = axes[k][at[k]];
            unique.insert(point);
            std::size_t k = 0;
            while (k < d && ++at[k] == axes[k].size())
                at[k++] = 0;
            if (k == d)
                break;
        }
    } else {
        for (int i = 1; i <= kHaltonCandidates; ++i) {
            std::vector<double> unit(d);
            for (std::size_t k = 0; k < d; ++k)
                unit[k] = radicalInverse(i, kPrimes[k % std::size(kPrimes)]);
            unique.insert(fromUnit(unit));
        }
    }
    m_lattice.assign(unique.begin(), unique.end());
}

std::vector<double> MultiKnobSearch::toUnit(const std::vector<double>& point) const
{
    std::vector<double> out(point.size());
    for (std::size_t k = 0; k < point.size(); ++k)
        out[k] = m_spec.knobs[k].toUnit(point[k]);
    return out;
}

std::vector<double> MultiKnobSearch::fromUnit(const std::vector<double>& unit) const
{
    std::vector<double> out(unit.size());
    for (std::size_t k = 0; k < unit.size(); ++k)
        out[k] = m_spec.knobs[k].fromUnit(unit[k]);
    return out;
}

double MultiKnobSearch::cost(const std::vector<double>& point) const
{
    double sum = 0;
    for (std::size_t k = 0; k < point.size() && k < m_spec.knobs.size(); ++k)
        sum += m_spec.knobs[k].cost(point[k]);
    return sum;
}

bool MultiKnobSearch::probed(const std::vector<double>& point) const
{
    return std::any_of(m_probes.begin(), m_probes.end(), [&](const SearchProbe& p) { return p.point == point; });
}

std::vector<std::vector<double>> MultiKnobSearch::candidates() const
{
    std::vector<std::vector<double>> out;
    out.reserve(m_lattice.size());
    for (const auto& point : m_lattice)
        if (!probed(point))
            out.push_back(point);
    return out;
}

void MultiKnobSearch::observations(std::vector<double>& y, std::vector<double>& noise) const
{
    const double sign = m_spec.minimize ? -1 : 1;
    double largest = 0;
    for (const SearchProbe& p : m_probes)
        if (p.objective)
            largest = std::max(largest, std::abs(*p.objective));
    const double floor = largest > 0 ? largest * 1e-6 : 1e-9; // a goodput of 0 has a log
    std::optional<double> worst;
    y.assign(m_probes.size(), 0);
    noise.assign(m_probes.size(), 1e-4);
    for (std::size_t i = 0; i < m_probes.size(); ++i) {
        const SearchProbe& p = m_probes[i];
        if (!p.feasible || !p.objective)
            continue;
        y[i] = sign * std::log(std::max(*p.objective, floor));
        if (p.low > 0 && p.high > p.low) {
            const double sd = std::log(p.high / p.low) / (2 * 1.96);
            noise[i] = std::max(1e-6, sd * sd);
        }
        worst = worst ? std::min(*worst, y[i]) : y[i];
    }
    // Everything below half the best counts as half the best: an SLO's cliff (goodput 18 beside 1.4)
    // would otherwise pull the process's mean down across the whole neighbourhood of the top, where the
    // next improvement lies, and an infeasible probe is no worse than the cliff.
    const double best = worst ? *std::max_element(y.begin(), y.end()) : 0;
    for (std::size_t i = 0; i < m_probes.size(); ++i) {
        if (!m_probes[i].feasible || !m_probes[i].objective)
            y[i] = best - std::log(2.0);
        else
            y[i] = std::max(y[i], best - std::log(2.0));
    }
}

std::optional<std::size_t> MultiKnobSearch::topIndex() const
{
    std::optional<std::size_t> top;
    for (std::size_t i = 0; i < m_probes.size(); ++i)
        if (m_probes[i].feasible && m_probes[i].objective && (!top || probeBetter(m_spec, m_probes[i], m_probes[*top])))
            top = i;
    return top;
}

std::optional<std::size_t> MultiKnobSearch::cheapestOnPlateau(std::size_t top) const
{
    std::optional<std::size_t> out;
    for (std::size_t i = 0; i < m_probes.size(); ++i) {
        if (i != top && !probeOnPlateau(m_spec, m_probes[i], m_probes[top]))
            continue;
        const double c = cost(m_probes[i].point);
        if (!out || c < cost(m_probes[*out].point) - 1e-12
            || (std::abs(c - cost(m_probes[*out].point)) <= 1e-12 && probeBetter(m_spec, m_probes[i], m_probes[*out])))
            out = i;
    }
    return out;
}

double MultiKnobSearch::trustRegion(int start) const
{
    // Replayed from the probes after the start: two new tops in a row double it, two probes in a row
    // that are not a new top halve it.
    double region = kRegionStart;
    int successes = 0, failures = 0;
    std::optional<std::size_t> running;
    for (std::size_t i = 0; i < m_probes.size(); ++i) {
        const bool newTop = m_probes[i].feasible && m_probes[i].objective
            && (!running || probeBetter(m_spec, m_probes[i], m_probes[*running]));
        if (newTop)
            running = i;
        if (int(i) < start)
            continue;
        if (newTop) {
            failures = 0;
            if (++successes == 2) {
                region = std::min(kRegionMax, 2 * region);
                successes = 0;
            }
        } else {
            successes = 0;
            if (++failures == 2) {
                region = std::max(kRegionMin, region / 2);
                failures = 0;
            }
        }
    }
    return region;
}

MultiKnobSearch::Choice MultiKnobSearch::choose() const
{
    const int n = int(m_probes.size());
    if (n >= m_spec.budget)
        return { Step::Done, std::nullopt, QStringLiteral("budget") };
    const std::size_t d = m_spec.knobs.size();
    const int start = std::max(1, std::min(int(2 * d + 1), m_spec.budget / 2));
    if (n < start) {
        for (int index = n + 1; index < n + 1 + 64; ++index) {
            std::vector<double> unit(d);
            for (std::size_t k = 0; k < d; ++k)
                unit[k]
                    = kStartMargin + (1 - 2 * kStartMargin) * radicalInverse(index, kPrimes[k % std::size(kPrimes)]);
            const std::vector<double> point = fromUnit(unit);
            if (!probed(point))
                return { Step::Start, point, {} };
        }
    }
    const std::vector<std::vector<double>> open = candidates();
    if (open.empty())
        return { Step::Done, std::nullopt, QStringLiteral("exhausted") };

    std::vector<std::vector<double>> x;
    for (const SearchProbe& p : m_probes)
        x.push_back(toUnit(p.point));
    std::vector<double> y, noise;
    observations(y, noise);
    const auto top = topIndex();
    const double bestY = top ? y[*top] : *std::max_element(y.begin(), y.end());
    // Two processes, as in constrained Bayesian optimisation: one for the objective over the probes that
    // are not past a cliff (within half the best), smooth where the SLO holds, and one over +1/-1 for
    // whether a point is, a classifier by least squares. Fitted to the cliff itself, one process smooths
    // it into a slope that hides the higher ground along its edge.
    std::vector<std::vector<double>> goodX;
    std::vector<double> goodY, goodNoise, label(y.size()), labelNoise(y.size(), 0.05);
    for (std::size_t i = 0; i < y.size(); ++i) {
        const bool good = m_probes[i].feasible && m_probes[i].objective && y[i] > bestY - std::log(2.0) + 1e-9;
        label[i] = good ? 1 : -1;
        if (good) {
            goodX.push_back(x[i]);
            goodY.push_back(y[i]);
            goodNoise.push_back(noise[i]);
        }
    }
    GaussianProcess gp, classifier;
    if (goodX.size() >= 2)
        gp.fit(goodX, goodY, goodNoise);
    else
        gp.fit(x, y, noise);
    const bool anyBad = std::any_of(label.begin(), label.end(), [](double l) { return l < 0; });
    if (anyBad)
        classifier.fit(x, label, labelNoise);
    const auto goodLikelihood = [&](const std::vector<double>& unit) {
        if (!anyBad)
            return 1.0;
        const GaussianProcess::Prediction c = classifier.predict(unit);
        return 1 - normalTail(c.mean / std::sqrt(c.sd * c.sd + 0.1));
    };

    const double region = trustRegion(start);
    std::vector<std::vector<double>> local;
    if (top) {
        const std::vector<double> centre = toUnit(m_probes[*top].point);
        for (const auto& point : open) {
            const std::vector<double> u = toUnit(point);
            bool inside = true;
            for (std::size_t k = 0; k < d && inside; ++k)
                inside = std::abs(u[k] - centre[k]) <= region + 1e-12;
            if (inside)
                local.push_back(point);
        }
    }
    double bestImprovement = -1;
    const std::vector<double>* improving = nullptr;
    for (const auto& point : local.empty() ? open : local) {
        const std::vector<double> unit = toUnit(point);
        const double ei = expectedImprovement(gp.predict(unit), bestY) * goodLikelihood(unit);
        if (ei > bestImprovement + 1e-12
            || (std::abs(ei - bestImprovement) <= 1e-12 && improving && cost(point) < cost(*improving))) {
            bestImprovement = ei;
            improving = &point;
        }
    }
    const int edgeBudget = std::max(1, m_spec.budget / 4);
    const bool settled = bestImprovement < kSettled;
    if (top && (settled || n >= m_spec.budget - edgeBudget)) {
        const std::size_t recommended = cheapestOnPlateau(*top).value_or(*top);
        const double recommendedCost = cost(m_probes[recommended].point);
        const double threshold = bestY + std::log(1 - m_spec.tolerance);
        double bestScore = 0;
        const std::vector<double>* edge = nullptr;
        for (const auto& point : open) {
            const double saving = recommendedCost - cost(point);
            if (saving <= 1e-9)
                continue;
            const std::vector<double> unit = toUnit(point);
            const GaussianProcess::Prediction p = gp.predict(unit);
            const double likely = (p.sd > 0 ? normalTail((threshold - p.mean) / p.sd) : double(p.mean >= threshold))
                * goodLikelihood(unit);
            if (likely >= kEdgeLikelihood && saving * likely > bestScore) {
                bestScore = saving * likely;
                edge = &point;
            }
        }
        if (edge)
            return { Step::Edge, *edge, {} };
    }
    if (!settled && improving)
        return { Step::Top, *improving, {} };
    return { Step::Done, std::nullopt, QStringLiteral("converged") };
}

std::optional<std::vector<double>> MultiKnobSearch::next() const
{
    return choose().point;
}

void MultiKnobSearch::addProbe(SearchProbe probe)
{
    m_probes.push_back(std::move(probe));
}

QString MultiKnobSearch::stopReason() const
{
    const Choice c = choose();
    return c.point ? QString() : c.stop;
}

MultiSearchResult MultiKnobSearch::result() const
{
    MultiSearchResult out;
    out.probes = m_probes;
    out.stop = stopReason();
    out.top = topIndex();
    if (!out.top)
        return out;
    out.recommended = cheapestOnPlateau(*out.top);
    for (std::size_t i = 0; i < m_probes.size(); ++i)
        if (i == *out.top || probeOnPlateau(m_spec, m_probes[i], m_probes[*out.top]))
            out.plateau.push_back(i);
    std::stable_sort(out.plateau.begin(), out.plateau.end(),
        [&](std::size_t a, std::size_t b) { return cost(m_probes[a].point) < cost(m_probes[b].point); });
    return out;
}

json MultiKnobSearch::probeLine(std::size_t i) const
{
    const SearchProbe& p = m_probes.at(i);
    json out = { { "type", "search_probe" }, { "probe", i }, { "point", m_spec.pointJson(p.point) },
        { "config", p.label.toStdString() }, { "objective", p.objective ? json(*p.objective) : json(nullptr) },
        { "ci95", p.objective ? json::array({ p.low, p.high }) : json(nullptr) }, { "feasible", p.feasible } };
    if (!p.why.isEmpty())
        out["why"] = p.why.toStdString();
    return out;
}

json MultiKnobSearch::line(const QString& stop) const
{
    const MultiSearchResult r = result();
    json knobs = json::array();
    for (const SearchKnob& k : m_spec.knobs)
        knobs.push_back({ { "name", k.name.toStdString() }, { "min", k.min }, { "max", k.max },
            { "scale", k.log2 ? "log2" : "linear" }, { "integer", k.integer },
            { "cheaper", k.cheaperHigher ? "higher" : "lower" } });
    json probes = json::array();
    for (std::size_t i = 0; i < m_probes.size(); ++i) {
        json entry = probeLine(i);
        entry.erase("type");
        probes.push_back(std::move(entry));
    }
    json out = { { "type", "search" }, { "knobs", knobs }, { "arm", m_spec.arm.toStdString() },
        { "metric", m_spec.objective.toStdString() }, { "minimize", m_spec.minimize }, { "budget", m_spec.budget },
        { "tolerance", m_spec.tolerance }, { "method", "gp-ei" },
        { "stop", (stop.isEmpty() ? r.stop : stop).toStdString() }, { "best", nullptr }, { "objective", nullptr },
        { "ci95", nullptr }, { "top", nullptr }, { "plateau", nullptr }, { "probes", probes } };
    if (r.top && r.recommended) {
        const SearchProbe& rec = m_probes[*r.recommended];
        out["best"] = m_spec.pointJson(rec.point);
        out["objective"] = *rec.objective;
        out["ci95"] = { rec.low, rec.high };
        const SearchProbe& top = m_probes[*r.top];
        out["top"] = { { "point", m_spec.pointJson(top.point) }, { "objective", *top.objective },
            { "ci95", { top.low, top.high } } };
        json plateau = json::array();
        for (std::size_t i : r.plateau)
            plateau.push_back(m_spec.pointJson(m_probes[i].point));
        out["plateau"] = std::move(plateau);
    }
    return out;
}

} // namespace ks
