#include "compare/calibration.h"

#include "compare/steadystate.h"
#include "metrics/repeatstats.h"
#include "metrics/runsummary.h"
#include "store/runid.h"

#include <QFileInfo>

#include <cmath>
#include <numeric>

namespace ks {

namespace {

constexpr int kMinRuns = 3; // two runs give one difference: no spread worth the name

const char* const kMetrics[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
const char* const kStats[] = { "p50", "p95", "p99" };

QString textOf(const nlohmann::json& object, const char* key)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    return object.is_object() && it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                                       : QString();
}

// The server command with its placeholders filled and the listening address
// left out: a calibration made on port 8001 speaks for a run on port 8002.
nlohmann::json serverCommand(const nlohmann::json& spec, const nlohmann::json& runLine)
{
    const nlohmann::json server = spec.value("server", nlohmann::json());
    if (!server.is_object() || !server.value("command", nlohmann::json()).is_array())
        return nullptr;
    const nlohmann::json knobs = runLine.value("knobs", nlohmann::json::object());
    nlohmann::json out = nlohmann::json::array();
    bool skipNext = false;
    for (const nlohmann::json& part : server["command"]) {
        if (skipNext) {
            skipNext = false;
            continue;
        }
        std::string word = part.is_string() ? part.get<std::string>() : part.dump();
        if (word == "--port" || word == "--host") {
            skipNext = true;
            continue;
        }
        if (word.rfind("--port=", 0) == 0 || word.rfind("--host=", 0) == 0)
            continue;
        auto fill = [&word](const std::string& name, const std::string& value) {
            const std::string placeholder = '{' + name + '}';
            for (std::size_t at = word.find(placeholder); at != std::string::npos; at = word.find(placeholder, at))
                word.replace(at, placeholder.size(), value), at += value.size();
        };
        if (knobs.is_object())
            for (const auto& [name, value] : knobs.items())
                fill(name, value.is_string() ? value.get<std::string>() : value.dump());
        fill("model", runLine.value("model", std::string()));
        out.push_back(word);
    }
    return out;
}

nlohmann::json armShape(const nlohmann::json& spec, const QString& arm)
{
    for (const nlohmann::json& a : spec.value("arms", nlohmann::json::array())) {
        if (!a.is_object() || a.value("name", std::string()) != arm.toStdString())
            continue;
        nlohmann::json shape = a;
        shape.erase("name");
        shape.erase("repeats"); // how often it ran, not what one run is
        return shape;
    }
    return nullptr;
}

} // namespace

QString Calibration::citation() const
{
    return QStringLiteral("A/A calibration: %1 runs of %2, %3 (%4)")
        .arg(runs)
        .arg(config, date.left(10), QFileInfo(file).fileName());
}

nlohmann::json calibrationIdentity(const RunFile& file, const RunData& run)
{
    const nlohmann::json& line = run.info.is_object() ? run.info : nlohmann::json::object();
    const QString arm = RunId::parse(run.arm).armRun(); // an arm's name, its segment left out
    return { { "server", serverCommand(file.spec(), line) },
        { "server_version", line.value("server_version", nlohmann::json(nullptr)) },
        { "model", line.value("model", nlohmann::json(nullptr)) },
        { "host", file.environment().value("host", nlohmann::json(nullptr)) }, { "arm", armShape(file.spec(), arm) } };
}

QString calibrationMismatch(const Calibration::Arm& arm, const nlohmann::json& identity)
{
    static const std::pair<const char*, const char*> kParts[]
        = { { "server", "the server command" }, { "server_version", "the server's version" }, { "model", "the model" },
              { "host", "the host" }, { "arm", "the arm's shape" } };
    QStringList differ;
    for (const auto& [key, what] : kParts)
        if (arm.identity.value(key, nlohmann::json(nullptr)) != identity.value(key, nlohmann::json(nullptr)))
            differ << QString::fromLatin1(what);
    if (differ.isEmpty())
        return {};
    return QStringLiteral("the calibration does not speak for it: %1 differ%2")
        .arg(differ.join(QStringLiteral(", ")), differ.size() == 1 ? QStringLiteral("s") : QString());
}

QString calibrationStaleness(const Calibration::Arm& arm, const nlohmann::json& baselineSummary, double confidence)
{
    struct Checked {
        QString label; ///< "TTFT p99"
        double value, mean, sd; ///< logs
    };
    std::vector<Checked> checked;
    for (const char* metric : kMetrics)
        for (const char* stat : kStats) {
            const std::string id = std::string(metric) + '.' + stat;
            const nlohmann::json d
                = baselineSummary.is_object() ? baselineSummary.value(metric, nlohmann::json()) : nlohmann::json();
            const nlohmann::json v = d.is_object() ? d.value(stat, nlohmann::json()) : nlohmann::json();
            if (arm.logMean.count(id) && arm.logSd.count(id) && v.is_number() && v.get<double>() > 0)
                checked.push_back(
                    { QStringLiteral("%1 %2").arg(
                          QString::fromLatin1(metric).section(QLatin1Char('_'), 0, 0).toUpper(), QLatin1String(stat)),
                        std::log(v.get<double>()), arm.logMean.at(id), arm.logSd.at(id) });
        }
    if (checked.empty() || arm.runs < 2)
        return {};
    const double alpha = (1.0 - confidence) / double(checked.size());
    const double t = studentTQuantile(1.0 - alpha / 2.0, double(arm.runs - 1));
    QStringList off;
    for (const Checked& c : checked)
        if (std::abs(c.value - c.mean) > t * c.sd * std::sqrt(1.0 + 1.0 / arm.runs))
            off << QStringLiteral("%1 %2 % %3 their mean where they spread %4 %")
                       .arg(c.label)
                       .arg(std::abs(std::expm1(c.value - c.mean)) * 100, 0, 'f', 1)
                       .arg(c.value > c.mean ? QStringLiteral("above") : QStringLiteral("below"))
                       .arg(std::expm1(c.sd) * 100, 0, 'f', 1);
    if (off.isEmpty())
        return {};
    return QStringLiteral("the calibration does not speak for this run's conditions: the baseline's run lies outside "
                          "the calibration's runs, %1; calibrate again beside the runs")
        .arg(off.join(QStringLiteral(", ")));
}

std::optional<Calibration> calibrationFromRunFile(const RunFile& file, const QString& path, QString* error)
{
    Calibration out;
    out.file = path;
    out.date = textOf(file.experiment, "started_at");
    const nlohmann::json marker
        = file.experiment.is_object() ? file.experiment.value("calibration", nlohmann::json()) : nlohmann::json();
    out.config = textOf(marker, "config");
    if (out.config.isEmpty()) { // a file of one configuration run several times is one too
        for (const RunData& run : file.runs) {
            if (out.config.isEmpty())
                out.config = run.config;
            else if (run.config != out.config) {
                *error = QStringLiteral("%1 is not an A/A calibration: it has several configurations "
                                        "(knobscope run SPEC --aa N writes one)")
                             .arg(path);
                return std::nullopt;
            }
        }
    }
    const Slo slo = experimentSlo(file.experiment);
    std::map<QString, std::map<std::string, std::vector<double>>> logs;
    std::map<QString, int> runsOfArm;
    for (const RunData& run : file.runs) {
        if (run.config != out.config || run.info.contains("probes") || !run.summary)
            continue;
        const QString arm = run.arm;
        if (!out.arms.count(arm))
            out.arms[arm].identity = calibrationIdentity(file, run);
        ++runsOfArm[arm];
        const nlohmann::json s
            = summarizeRun(run.run, run.config, arm, steadyPart(run, steadyCutOf(run)).requests, slo);
        for (const char* metric : kMetrics)
            for (const char* stat : kStats)
                if (s.value(metric, nlohmann::json()).is_object() && s[metric].value(stat, 0.0) > 0)
                    logs[arm][std::string(metric) + '.' + stat].push_back(std::log(s[metric][stat].get<double>()));
    }
    for (auto it = out.arms.begin(); it != out.arms.end();) {
        Calibration::Arm& arm = it->second;
        arm.runs = runsOfArm[it->first];
        for (const auto& [id, values] : logs[it->first])
            if (int(values.size()) >= kMinRuns) {
                arm.logSd[id] = repeatSpread(values).sd;
                arm.logMean[id] = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
            }
        out.runs = std::max(out.runs, arm.runs);
        it = arm.runs >= kMinRuns && !arm.logSd.empty() ? std::next(it) : out.arms.erase(it);
    }
    if (out.arms.empty()) {
        *error = QStringLiteral("%1 is not an A/A calibration: no arm has %2 or more finished runs of one "
                                "configuration (knobscope run SPEC --aa N writes one)")
                     .arg(path)
                     .arg(kMinRuns);
        return std::nullopt;
    }
    return out;
}

std::optional<Calibration> readCalibration(const QString& path, QString* error)
{
    RunFile file;
    if (!readRunFile(path, &file, error))
        return std::nullopt;
    return calibrationFromRunFile(file, path, error);
}

} // namespace ks
