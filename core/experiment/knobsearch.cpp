#include "experiment/knobsearch.h"

#include "experiment/proberank.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ks {

namespace {

constexpr double kGolden = 0.3819660112501051; // 1 - 1/phi
// The cheap edge is resolved once its gap is this share of the range on the scale.
constexpr double kEdgeResolution = 0.02;

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
    return probeBetter(m_spec, a, b);
}

bool KnobSearch::onPlateau(const SearchProbe& p, const SearchProbe& best) const
{
    return probeOnPlateau(m_spec, p, best);
}

bool KnobSearch::cheaper(double a, double b) const
{
    return m_spec.cheaper == SearchSpec::Cheaper::Lower ? a < b : a > b;
}

std::size_t KnobSearch::cheapestOnPlateau(std::size_t best) const
{
    std::size_t out = best;
    for (std::size_t i = 0; i < m_probes.size(); ++i)
        if (onPlateau(m_probes[i], m_probes[best]) && cheaper(m_probes[i].value, m_probes[out].value))
            out = i;
    return out;
}

std::optional<double> KnobSearch::edgeProbe() const
{
    const auto best = bestIndex();
    if (!best || !m_probes[*best].feasible)
        return std::nullopt;
    const double edge = m_probes[cheapestOnPlateau(*best)].value;
    // The nearest probe on the cheaper side (all of them are off the plateau), else the range's end.
    double bound = m_spec.cheaper == SearchSpec::Cheaper::Lower ? m_spec.min : m_spec.max;
    for (const SearchProbe& p : m_probes)
        if (cheaper(p.value, edge) && cheaper(bound, p.value))
            bound = p.value;
    const double gap = std::abs(toScale(edge) - toScale(bound));
    if (bound == edge || gap <= kEdgeResolution * std::abs(toScale(m_spec.max) - toScale(m_spec.min)))
        return std::nullopt;
    const double u = (toScale(edge) + toScale(bound)) / 2;
    return candidateBetween(u, std::min(edge, bound), std::max(edge, bound));
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
        if (neighbour && onPlateau(*neighbour, best)) {
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
        return edgeProbe();
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
    out.recommended = cheapestOnPlateau(*best);
    const SearchProbe& b = m_probes[*best];
    out.plateauLow = out.plateauHigh = b.value;
    for (std::size_t i = 0; i < m_probes.size(); ++i) {
        if (i != *best && !onPlateau(m_probes[i], b))
            continue;
        out.plateau.push_back(i);
        out.plateauLow = std::min(out.plateauLow, m_probes[i].value);
        out.plateauHigh = std::max(out.plateauHigh, m_probes[i].value);
    }
    std::sort(out.plateau.begin(), out.plateau.end(),
        [&](std::size_t a, std::size_t c) { return m_probes[a].value < m_probes[c].value; });
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
        { "range", { m_spec.min, m_spec.max } }, { "budget", m_spec.budget }, { "tolerance", m_spec.tolerance },
        { "cheaper", m_spec.cheaper == SearchSpec::Cheaper::Lower ? "lower" : "higher" },
        { "stop", (stop.isEmpty() ? r.stop : stop).toStdString() }, { "best", nullptr }, { "objective", nullptr },
        { "ci95", nullptr }, { "top", nullptr }, { "plateau", nullptr }, { "probes", probes } };
    if (r.best && r.recommended) {
        // `best` is the recommendation: the cheapest probe that is good enough; `top` scored highest.
        const SearchProbe& rec = r.probes[*r.recommended];
        out["best"] = m_spec.knobValue(rec.value);
        out["objective"] = *rec.objective;
        out["ci95"] = { rec.low, rec.high };
        const SearchProbe& top = r.probes[*r.best];
        out["top"] = { { "value", m_spec.knobValue(top.value) }, { "objective", *top.objective },
            { "ci95", { top.low, top.high } } };
        nlohmann::json plateau = nlohmann::json::array();
        for (std::size_t i : r.plateau)
            plateau.push_back(m_spec.knobValue(r.probes[i].value));
        out["plateau"] = std::move(plateau);
    }
    return out;
}

} // namespace ks
