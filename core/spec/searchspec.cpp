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

} // namespace

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
        { "knob", "min", "max", "scale", "integer", "arm", "objective", "minimize", "budget", "tolerance", "cheaper" });
    SearchSpec s;
    const std::size_t errorsBefore = c.errors.size();
    s.knob = c.string(*it, path, "knob", true).value_or(QString());
    if (s.knob == QLatin1String("model"))
        c.fail(child(path, "knob"), QStringLiteral("the model is not a number to search over; name a numeric knob"));
    const auto min = it->find("min");
    const auto max = it->find("max");
    for (const auto& [key, found] : { std::pair { "min", min }, std::pair { "max", max } }) {
        if (found == it->end())
            c.fail(child(path, key), QStringLiteral("required"));
        else if (!found->is_number())
            c.fail(child(path, key), QStringLiteral("expected a number"));
    }
    const QString scale = c.string(*it, path, "scale", false).value_or(QStringLiteral("linear"));
    if (scale == QLatin1String("log2"))
        s.scale = SearchSpec::Scale::Log2;
    else if (scale != QLatin1String("linear"))
        c.fail(child(path, "scale"), QStringLiteral("expected \"linear\" or \"log2\", got \"%1\"").arg(scale));
    s.integer = c.boolean(*it, path, "integer").value_or(false);
    if (min != it->end() && min->is_number() && max != it->end() && max->is_number()) {
        s.min = min->get<double>();
        s.max = max->get<double>();
        if (!(s.min < s.max))
            c.fail(path, QStringLiteral("min (%1) must be below max (%2)").arg(s.min).arg(s.max));
        if (s.scale == SearchSpec::Scale::Log2 && s.min <= 0)
            c.fail(child(path, "min"), QStringLiteral("a log2 scale needs min > 0, got %1").arg(s.min));
        if (s.integer && (s.min != std::floor(s.min) || s.max != std::floor(s.max)))
            c.fail(path, QStringLiteral("an integer search needs whole-number min and max"));
    }
    s.budget = c.integer(*it, path, "budget", false, 0).value_or(s.budget);
    if (s.budget < 2)
        c.fail(child(path, "budget"),
            QStringLiteral("a search needs a budget of at least 2 probes, got %1").arg(s.budget));
    if (const auto tolerance = it->find("tolerance"); tolerance != it->end()) {
        if (!tolerance->is_number() || !(tolerance->get<double>() >= 0) || !(tolerance->get<double>() < 1))
            c.fail(child(path, "tolerance"),
                QStringLiteral("expected a fraction from 0 to below 1 (0.02: within 2 % of the top), got %1")
                    .arg(QString::fromStdString(tolerance->dump())));
        else
            s.tolerance = tolerance->get<double>();
    }
    const QString cheaper = c.string(*it, path, "cheaper", false).value_or(QStringLiteral("lower"));
    if (cheaper == QLatin1String("higher"))
        s.cheaper = SearchSpec::Cheaper::Higher;
    else if (cheaper != QLatin1String("lower"))
        c.fail(child(path, "cheaper"), QStringLiteral("expected \"lower\" or \"higher\", got \"%1\"").arg(cheaper));
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
