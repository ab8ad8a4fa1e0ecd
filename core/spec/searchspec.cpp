#include "spec/searchspec.h"

#include "spec/searchspecreader.h"
#include "spec/specchecker.h"

#include <QStringList>

#include <cmath>

namespace ks {

namespace {

using nlohmann::json;
using spec::Checker;
using spec::child;

const char* const kRateObjectives[] = { "goodput_req_per_s", "req_per_s", "out_tok_per_s" };
const char* const kLatencyMetrics[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
const char* const kPercentiles[] = { "p50", "p90", "p95", "p99" };

bool knownObjective(const QString& objective)
{
    for (const char* name : kRateObjectives)
        if (objective == QLatin1String(name))
            return true;
    if (objective == QLatin1String("capacity"))
        return true;
    const QStringList parts = objective.split(QLatin1Char('.'));
    if (parts.size() != 2)
        return false;
    bool metric = false, stat = false;
    for (const char* name : kLatencyMetrics)
        metric = metric || parts[0] == QLatin1String(name);
    for (const char* name : kPercentiles)
        stat = stat || parts[1] == QLatin1String(name);
    return metric && stat;
}

// A knob's range, scale and cheap end: at `path` itself for the one-knob form, per knob for "knobs".
void readKnobRange(Checker& c, const json& object, const QString& path, SearchKnob& knob, bool perKnob)
{
    if (!c.isObject(object, path))
        return;
    if (perKnob) {
        c.rejectUnknown(object, path, { "min", "max", "scale", "integer", "cheaper" });
        if (knob.name == QLatin1String("model"))
            c.fail(path, QStringLiteral("the model is not a number to search over; name a numeric knob"));
    }
    const auto min = object.find("min");
    const auto max = object.find("max");
    for (const auto& [key, found] : { std::pair { "min", min }, std::pair { "max", max } }) {
        if (found == object.end())
            c.fail(child(path, key), QStringLiteral("required"));
        else if (!found->is_number())
            c.fail(child(path, key), QStringLiteral("expected a number"));
    }
    const QString scale = c.string(object, path, "scale", false).value_or(QStringLiteral("linear"));
    knob.log2 = scale == QLatin1String("log2");
    if (!knob.log2 && scale != QLatin1String("linear"))
        c.fail(child(path, "scale"), QStringLiteral("expected \"linear\" or \"log2\", got \"%1\"").arg(scale));
    knob.integer = c.boolean(object, path, "integer").value_or(false);
    if (min != object.end() && min->is_number() && max != object.end() && max->is_number()) {
        knob.min = min->get<double>();
        knob.max = max->get<double>();
        if (!(knob.min < knob.max))
            c.fail(path, QStringLiteral("min (%1) must be below max (%2)").arg(knob.min).arg(knob.max));
        if (knob.log2 && knob.min <= 0)
            c.fail(child(path, "min"), QStringLiteral("a log2 scale needs min > 0, got %1").arg(knob.min));
        if (knob.integer && (knob.min != std::floor(knob.min) || knob.max != std::floor(knob.max)))
            c.fail(path, QStringLiteral("an integer search needs whole-number min and max"));
    }
    const QString cheaper = c.string(object, path, "cheaper", false).value_or(QStringLiteral("lower"));
    knob.cheaperHigher = cheaper == QLatin1String("higher");
    if (!knob.cheaperHigher && cheaper != QLatin1String("lower"))
        c.fail(child(path, "cheaper"), QStringLiteral("expected \"lower\" or \"higher\", got \"%1\"").arg(cheaper));
}

} // namespace

double SearchKnob::toUnit(double value) const
{
    const double lo = log2 ? std::log2(min) : min, hi = log2 ? std::log2(max) : max;
    const double v = log2 ? std::log2(std::max(value, min)) : value;
    return (v - lo) / (hi - lo);
}

double SearchKnob::fromUnit(double unit) const
{
    const double lo = log2 ? std::log2(min) : min, hi = log2 ? std::log2(max) : max;
    const double u = lo + std::clamp(unit, 0.0, 1.0) * (hi - lo);
    const double v = std::clamp(log2 ? std::exp2(u) : u, min, max);
    return integer ? std::round(v) : v;
}

double SearchKnob::cost(double value) const
{
    const double u = toUnit(value);
    return cheaperHigher ? 1 - u : u;
}

nlohmann::json SearchKnob::valueJson(double value) const
{
    if (integer)
        return json(static_cast<long long>(std::llround(value)));
    return json(value);
}

bool SearchSpec::sets(const QString& name) const
{
    if (!multi())
        return name == knob;
    return std::any_of(knobs.begin(), knobs.end(), [&](const SearchKnob& k) { return k.name == name; });
}

QString SearchSpec::pointLabel(const std::vector<double>& point) const
{
    QStringList parts;
    for (std::size_t i = 0; i < knobs.size() && i < point.size(); ++i)
        parts << knobs[i].name + QLatin1Char('=') + QString::number(point[i], 'g', 10);
    return parts.join(QLatin1Char(','));
}

nlohmann::json SearchSpec::pointJson(const std::vector<double>& point) const
{
    json out = json::object();
    for (std::size_t i = 0; i < knobs.size() && i < point.size(); ++i)
        out[knobs[i].name.toStdString()] = knobs[i].valueJson(point[i]);
    return out;
}

std::pair<QString, QString> SearchSpec::latencyObjective() const
{
    const qsizetype dot = objective.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return {};
    return { objective.left(dot), objective.mid(dot + 1) };
}

QString SearchSpec::probeLabel(double value) const
{
    return knob + QLatin1Char('=') + QString::number(value, 'g', 10);
}

nlohmann::json SearchSpec::knobValue(double value) const
{
    if (integer)
        return json(static_cast<long long>(std::llround(value)));
    return json(value);
}

void readSearch(Checker& c, const json& doc, ExperimentSpec& spec)
{
    const auto it = doc.find("search");
    if (it == doc.end() || it->is_null())
        return;
    const QString path = QStringLiteral("search");
    if (!c.isObject(*it, path))
        return;
    c.rejectUnknown(*it, path,
        { "knob", "knobs", "min", "max", "scale", "integer", "arm", "objective", "minimize", "budget", "tolerance",
            "cheaper" });
    SearchSpec s;
    const std::size_t errorsBefore = c.errors.size();
    if (const auto knobs = it->find("knobs"); knobs != it->end()) {
        for (const char* key : { "knob", "min", "max", "scale", "integer", "cheaper" })
            if (it->contains(key))
                c.fail(child(path, key),
                    QStringLiteral("with \"knobs\", each knob's range goes inside it (\"knobs\": {\"NAME\": {\"min\": "
                                   "..., \"max\": ...}})"));
        const QString knobsPath = child(path, "knobs");
        if (c.isObject(*knobs, knobsPath)) {
            if (knobs->empty())
                c.fail(knobsPath, QStringLiteral("name at least one knob"));
            for (const auto& item : knobs->items()) { // nlohmann's object: sorted by name
                SearchKnob knob;
                knob.name = QString::fromStdString(item.key());
                readKnobRange(c, item.value(), child(knobsPath, item.key().c_str()), knob, true);
                s.knobs.push_back(std::move(knob));
            }
        }
        if (s.knobs.size() == 1) { // one knob written the new way is the one-knob search
            const SearchKnob& k = s.knobs.front();
            s.knob = k.name;
            s.min = k.min;
            s.max = k.max;
            s.scale = k.log2 ? SearchSpec::Scale::Log2 : SearchSpec::Scale::Linear;
            s.integer = k.integer;
            s.cheaper = k.cheaperHigher ? SearchSpec::Cheaper::Higher : SearchSpec::Cheaper::Lower;
            s.knobs.clear();
        }
    } else {
        SearchKnob knob;
        knob.name = c.string(*it, path, "knob", true).value_or(QString());
        if (knob.name == QLatin1String("model"))
            c.fail(
                child(path, "knob"), QStringLiteral("the model is not a number to search over; name a numeric knob"));
        readKnobRange(c, *it, path, knob, false);
        s.knob = knob.name;
        s.min = knob.min;
        s.max = knob.max;
        s.scale = knob.log2 ? SearchSpec::Scale::Log2 : SearchSpec::Scale::Linear;
        s.integer = knob.integer;
        s.cheaper = knob.cheaperHigher ? SearchSpec::Cheaper::Higher : SearchSpec::Cheaper::Lower;
    }
    s.budget = c.integer(*it, path, "budget", false, 0).value_or(s.budget);
    const int minimumBudget = s.multi() ? int(s.knobs.size()) + 1 : 2;
    if (s.budget < minimumBudget)
        c.fail(child(path, "budget"),
            s.multi()
                ? QStringLiteral("a search over %1 knobs needs a budget of at least %2 probes (the knobs plus one), "
                                 "got %3")
                      .arg(s.knobs.size())
                      .arg(minimumBudget)
                      .arg(s.budget)
                : QStringLiteral("a search needs a budget of at least 2 probes, got %1").arg(s.budget));
    if (const auto tolerance = it->find("tolerance"); tolerance != it->end()) {
        if (!tolerance->is_number() || !(tolerance->get<double>() >= 0) || !(tolerance->get<double>() < 1))
            c.fail(child(path, "tolerance"),
                QStringLiteral("expected a fraction from 0 to below 1 (0.02: within 2 % of the top), got %1")
                    .arg(QString::fromStdString(tolerance->dump())));
        else
            s.tolerance = tolerance->get<double>();
    }
    s.objective = c.string(*it, path, "objective", false).value_or(s.objective);
    if (!knownObjective(s.objective))
        c.fail(child(path, "objective"),
            QStringLiteral("unknown objective \"%1\" (expected goodput_req_per_s, req_per_s, out_tok_per_s, capacity, "
                           "or a latency percentile such as ttft_ms.p99)")
                .arg(s.objective));
    s.minimize = c.boolean(*it, path, "minimize").value_or(!s.latencyObjective().first.isEmpty());
    s.arm = c.string(*it, path, "arm", true).value_or(QString());
    if (!s.arm.isEmpty()) {
        const ArmSpec* arm = nullptr;
        QStringList names;
        for (const ArmSpec& a : spec.arms) {
            names << a.name;
            if (a.name == s.arm)
                arm = &a;
        }
        if (!arm)
            c.fail(child(path, "arm"),
                QStringLiteral("no arm named \"%1\" (arms: %2)").arg(s.arm, names.join(QStringLiteral(", "))));
        else if (s.objective == QLatin1String("capacity") && !arm->sweep)
            c.fail(child(path, "objective"),
                QStringLiteral("capacity comes from a sweep; arm \"%1\" is not \"mode\": \"sweep\"").arg(s.arm));
        else if (s.objective != QLatin1String("capacity") && arm->sweep)
            c.fail(child(path, "objective"),
                QStringLiteral("arm \"%1\" is a sweep: its objective is \"capacity\"").arg(s.arm));
    }
    if (!spec.server || spec.server->command.isEmpty())
        c.fail(path, QStringLiteral("a search restarts the server per probe: it needs a \"server\" command"));
    else if (!spec.server->restartBetweenConfigs)
        c.fail(child(QStringLiteral("server"), "restart_between_configs"),
            QStringLiteral("a search restarts the server per probe; this cannot be false"));
    if (spec.configs.size() != 1)
        c.fail(QStringLiteral("configs"),
            QStringLiteral("a search takes exactly one configuration (the base its probes copy), got %1")
                .arg(spec.configs.size()));
    if (c.errors.size() == errorsBefore)
        spec.search = s;
}

} // namespace ks
