#include "experiment/knobsearch.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ks {

namespace {

constexpr double kGolden = 0.3819660112501051; // 1 - 1/phi

} // namespace

KnobSearch::KnobSearch(SearchSpec spec)
    : m_spec(std::move(spec))
{
}

double KnobSearch::toScale(double v) const
{
    return m_spec.scale == SearchSpec::Scale::Log2 ? std::log2(v) : v;
}

double KnobSearch::fromScale(double u) const
{
    return m_spec.scale == SearchSpec::Scale::Log2 ? std::exp2(u) : u;
}

bool KnobSearch::probed(double v) const
{
    return std::any_of(m_probes.begin(), m_probes.end(), [&](const SearchProbe& p) { return p.value == v; });
}

std::optional<double> KnobSearch::candidateBetween(double u, double lo, double hi) const
{
    // lo and hi are probed values or ends of the range; probed ones are excluded below.
    const auto usable = [&](double v) { return v >= lo && v <= hi && !probed(v); };
    const double v = std::clamp(fromScale(u), lo, hi);
    if (!m_spec.integer)
        return usable(v) ? std::optional<double>(v) : std::nullopt;
    const double r = std::round(v);
    const double span = std::ceil(hi - lo) + 1;
    for (double d = 0; d <= span; ++d) {
        // Nearest first, the side of the scale point first on a tie.
        const double first = v >= r ? r + d : r - d;
        const double second = v >= r ? r - d : r + d;
        if (usable(first))
            return first;
        if (d > 0 && usable(second))
            return second;
        if (first > hi && second < lo)
            break;
    }
    return std::nullopt;
}

bool KnobSearch::better(const SearchProbe& a, const SearchProbe& b) const
{
    if (a.feasible != b.feasible)
        return a.feasible;
    if (a.objective.has_value() != b.objective.has_value())
        return a.objective.has_value();
    if (!a.objective)
        return false;
    return m_spec.minimize ? *a.objective < *b.objective : *a.objective > *b.objective;
}

bool KnobSearch::overlap(const SearchProbe& a, const SearchProbe& b)
{
    return a.feasible && b.feasible && a.objective && b.objective && a.low <= b.high && b.low <= a.high;
}

std::optional<std::size_t> KnobSearch::bestIndex() const
{
    if (m_probes.empty())
        return std::nullopt;
    std::size_t best = 0;
    for (std::size_t i = 1; i < m_probes.size(); ++i)
        if (better(m_probes[i], m_probes[best]))
            best = i;
    return best;
}

std::vector<KnobSearch::Gap> KnobSearch::openGaps(bool* converged) const
{
    std::vector<Gap> gaps;
    *converged = false;
    const auto bestAt = bestIndex();
    if (!bestAt)
        return gaps;
    const SearchProbe& best = m_probes[*bestAt];
    int closedByOverlap = 0;
    for (const int side : { -1, 1 }) {
        // The nearest probed value on this side, else the end of the range.
        const SearchProbe* neighbour = nullptr;
        for (const SearchProbe& p : m_probes) {
            if ((side < 0 ? p.value < best.value : p.value > best.value)
                && (!neighbour || std::abs(p.value - best.value) < std::abs(neighbour->value - best.value)))
                neighbour = &p;
        }
        if (neighbour && overlap(best, *neighbour)) {
            ++closedByOverlap;
            continue;
        }
        const double bound = neighbour ? neighbour->value : (side < 0 ? m_spec.min : m_spec.max);
        if (!neighbour && best.value == bound) {
            ++closedByOverlap; // the best is at the end of the range: nothing lies beyond
            continue;
        }
        // Towards an end not yet probed, the end itself (it brackets the range);
        // between two probes, the middle on the scale.
        const double u = neighbour ? (toScale(best.value) + toScale(bound)) / 2 : toScale(bound);
        const auto value = side < 0 ? candidateBetween(u, bound, best.value) : candidateBetween(u, best.value, bound);
        if (value)
            gaps.push_back({ std::abs(toScale(best.value) - toScale(bound)), *value });
    }
    *converged = closedByOverlap == 2;
    return gaps;
}

std::optional<double> KnobSearch::next() const
{
    if (int(m_probes.size()) >= m_spec.budget)
        return std::nullopt;
    const double uMin = toScale(m_spec.min), uMax = toScale(m_spec.max);
    if (m_probes.size() < 2) { // golden-section points first
        const double share = m_probes.empty() ? kGolden : 1 - kGolden;
        return candidateBetween(uMin + share * (uMax - uMin), m_spec.min, m_spec.max);
    }
    bool converged = false;
    const std::vector<Gap> gaps = openGaps(&converged);
    if (gaps.empty())
        return std::nullopt;
    return std::max_element(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) {
        return a.width < b.width;
    })->value;
}

void KnobSearch::addProbe(SearchProbe probe)
{
    m_probes.push_back(std::move(probe));
}

QString KnobSearch::stopReason() const
{
    if (next())
        return {};
    if (int(m_probes.size()) >= m_spec.budget)
        return QStringLiteral("budget");
    bool converged = false;
    openGaps(&converged);
    return converged ? QStringLiteral("converged") : QStringLiteral("exhausted");
}

SearchResult KnobSearch::result() const
{
    SearchResult out;
    out.probes = m_probes;
    out.stop = stopReason();
    const auto best = bestIndex();
    if (!best || !m_probes[*best].feasible)
        return out;
    out.best = best;
    const SearchProbe& b = m_probes[*best];
    out.plateauLow = out.plateauHigh = b.value;
    for (const SearchProbe& p : m_probes) {
        if (&p == &b || !overlap(p, b))
            continue;
        out.plateauLow = std::min(out.plateauLow, p.value);
        out.plateauHigh = std::max(out.plateauHigh, p.value);
    }
    return out;
}

nlohmann::json KnobSearch::line(const QString& stop) const
{
    const SearchResult r = result();
    const auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json probes = nlohmann::json::array();
    for (std::size_t i = 0; i < r.probes.size(); ++i) {
        const SearchProbe& p = r.probes[i];
        nlohmann::json entry = { { "probe", i }, { "value", m_spec.knobValue(p.value) },
            { "config", p.label.toStdString() }, { "objective", number(p.objective) },
            { "ci95", p.objective ? nlohmann::json::array({ p.low, p.high }) : nlohmann::json(nullptr) },
            { "feasible", p.feasible } };
        if (!p.why.isEmpty())
            entry["why"] = p.why.toStdString();
        probes.push_back(std::move(entry));
    }
    nlohmann::json out = { { "type", "search" }, { "knob", m_spec.knob.toStdString() },
        { "arm", m_spec.arm.toStdString() }, { "metric", m_spec.objective.toStdString() },
        { "minimize", m_spec.minimize }, { "scale", m_spec.scale == SearchSpec::Scale::Log2 ? "log2" : "linear" },
        { "range", { m_spec.min, m_spec.max } }, { "budget", m_spec.budget },
        { "stop", (stop.isEmpty() ? r.stop : stop).toStdString() }, { "best", nullptr }, { "objective", nullptr },
        { "ci95", nullptr }, { "plateau", nullptr }, { "probes", probes } };
    if (r.best) {
        const SearchProbe& b = r.probes[*r.best];
        out["best"] = m_spec.knobValue(b.value);
        out["objective"] = *b.objective;
        out["ci95"] = { b.low, b.high };
        out["plateau"] = { m_spec.knobValue(r.plateauLow), m_spec.knobValue(r.plateauHigh) };
    }
    return out;
}

} // namespace ks
