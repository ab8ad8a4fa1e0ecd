#include "spec/experimentspec.h"
#include "spec/gridexpansion.h"
#include "spec/roundsspecreader.h"
#include "spec/searchspecreader.h"
#include "spec/specchecker.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

namespace {

using nlohmann::json;
using spec::Checker;
using spec::child;
using spec::indexed;

std::optional<PromptSpec> readPrompts(Checker& c, const json& value, const QString& path)
{
    std::vector<std::pair<QString, QString>> errors;
    auto spec = parsePromptSpec(value, path, errors);
    for (const auto& [at, message] : errors)
        c.fail(at, message);
    return spec;
}

std::optional<LengthDist> readLengthDist(Checker& c, const json& value, const QString& path)
{
    std::vector<std::pair<QString, QString>> errors;
    auto dist = parseLengthDist(value, path, errors);
    for (const auto& [at, message] : errors)
        c.fail(at, message);
    return dist;
}

void readTarget(Checker& c, const json& doc, ExperimentSpec& spec)
{
    const auto it = doc.find("target");
    if (it == doc.end()) {
        c.fail(QStringLiteral("target"), QStringLiteral("required"));
        return;
    }
    const QString path = QStringLiteral("target");
    if (!c.isObject(*it, path))
        return;
    c.rejectUnknown(*it, path, { "base_url", "api", "api_key_env", "verify_tls" });
    if (const auto url = c.string(*it, path, "base_url", true)) {
        spec.baseUrl = QUrl(*url);
        if (!spec.baseUrl.isValid()
            || (spec.baseUrl.scheme() != QLatin1String("http") && spec.baseUrl.scheme() != QLatin1String("https")))
            c.fail(child(path, "base_url"), QStringLiteral("expected an http:// or https:// URL, got '%1'").arg(*url));
    }
    if (const auto api = c.string(*it, path, "api", false)) {
        if (*api == QLatin1String("chat"))
            spec.api = ApiKind::Chat;
        else if (*api != QLatin1String("completions"))
            c.fail(child(path, "api"), QStringLiteral("expected \"completions\" or \"chat\", got \"%1\"").arg(*api));
    }
    spec.apiKeyEnv = c.string(*it, path, "api_key_env", false).value_or(spec.apiKeyEnv);
    spec.verifyTls = c.boolean(*it, path, "verify_tls").value_or(true);
}

void readServerEnv(Checker& c, const json& serverObject, const QString& serverPath, ServerSpec& server)
{
    const auto env = serverObject.find("env");
    if (env == serverObject.end() || env->is_null())
        return;
    const QString path = child(serverPath, "env");
    if (!env->is_object()) {
        c.fail(path, QStringLiteral("expected an object of NAME: \"value\" pairs"));
        return;
    }
    static const QRegularExpression name(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    for (const auto& item : env->items()) {
        const QString key = QString::fromStdString(item.key());
        const QString itemPath = path + QLatin1Char('.') + key;
        if (!name.match(key).hasMatch()) {
            c.fail(itemPath, QStringLiteral("not a variable name (letters, digits and _, not starting with a digit)"));
            continue;
        }
        if (!item.value().is_string()) {
            c.fail(itemPath, QStringLiteral("expected a string (write numbers as \"4\" or \"{knob}\")"));
            continue;
        }
        server.env.append({ key, QString::fromStdString(item.value().get<std::string>()) });
    }
}

void readServer(Checker& c, const json& doc, ExperimentSpec& spec)
{
    const auto it = doc.find("server");
    if (it == doc.end() || it->is_null())
        return;
    const QString path = QStringLiteral("server");
    if (!c.isObject(*it, path))
        return;
    c.rejectUnknown(
        *it, path, { "command", "env", "ready_path", "ready_timeout_s", "restart_between_configs", "stop_grace_s" });
    ServerSpec server;
    const auto command = it->find("command");
    if (command == it->end()) {
        c.fail(child(path, "command"), QStringLiteral("required (an argv list; it is never run through a shell)"));
    } else if (!command->is_array() || command->empty()) {
        c.fail(
            child(path, "command"), QStringLiteral("expected a non-empty list of strings (argv), not a shell string"));
    } else {
        for (std::size_t i = 0; i < command->size(); ++i) {
            if (!(*command)[i].is_string())
                c.fail(indexed(child(path, "command"), i), QStringLiteral("expected a string"));
            else
                server.command << QString::fromStdString((*command)[i].get<std::string>());
        }
    }
    readServerEnv(c, *it, path, server);
    if (const auto ready = c.string(*it, path, "ready_path", false)) {
        if (!ready->startsWith(QLatin1Char('/')))
            c.fail(child(path, "ready_path"), QStringLiteral("expected a path starting with '/'"));
        server.readyPath = *ready;
    }
    server.readyTimeoutS = c.number(*it, path, "ready_timeout_s", false, 0).value_or(server.readyTimeoutS);
    server.restartBetweenConfigs = c.boolean(*it, path, "restart_between_configs").value_or(true);
    server.stopGraceS = c.number(*it, path, "stop_grace_s", false, 0).value_or(server.stopGraceS);
    spec.server = server;
}

std::optional<SweepSpec> readSweep(Checker& c, const json& j, const QString& path)
{
    SweepSpec sweep;
    const QString over = c.string(j, path, "over", true).value_or(QString());
    if (over == QLatin1String("concurrency"))
        sweep.over = SweepSpec::Over::Concurrency;
    else if (over != QLatin1String("rate") && !over.isEmpty())
        c.fail(child(path, "over"), QStringLiteral("expected \"rate\" or \"concurrency\", got \"%1\"").arg(over));
    for (const char* key : { "rate", "concurrency" })
        if (j.contains(key))
            c.fail(
                child(path, key), QStringLiteral("not used in sweep mode: the steps come from \"values\" or \"auto\""));
    sweep.autoRates = c.boolean(j, path, "auto").value_or(false);
    const auto values = j.find("values");
    if (sweep.autoRates == (values != j.end())) {
        c.fail(path, QStringLiteral("a sweep needs either \"values\" or \"auto\": true (not both)"));
        return std::nullopt;
    }
    if (sweep.autoRates) {
        if (sweep.over != SweepSpec::Over::Rate)
            c.fail(child(path, "auto"), QStringLiteral("an automatic sweep is over \"rate\""));
        sweep.steps = c.integer(j, path, "steps", false, 1).value_or(sweep.steps);
        sweep.throughputConcurrency
            = c.integer(j, path, "max_concurrency", false, 1).value_or(sweep.throughputConcurrency);
        return sweep;
    }
    for (const char* key : { "steps", "max_concurrency" })
        if (j.contains(key))
            c.fail(child(path, key), QStringLiteral("only for \"auto\": true"));
    const QString valuesPath = child(path, "values");
    if (!values->is_array() || values->empty()) {
        c.fail(valuesPath, QStringLiteral("expected a non-empty list of numbers"));
        return std::nullopt;
    }
    for (std::size_t i = 0; i < values->size(); ++i) {
        const json& v = (*values)[i];
        const bool whole = sweep.over == SweepSpec::Over::Concurrency;
        if (!(whole ? v.is_number_integer() : v.is_number()) || !(v.get<double>() > 0)
            || (whole && v.get<double>() > std::numeric_limits<int>::max())) {
            c.fail(indexed(valuesPath, i),
                whole ? QStringLiteral("expected a whole number of at least 1")
                      : QStringLiteral("expected a number greater than 0"));
            return std::nullopt;
        }
        if (!sweep.values.empty() && !(v.get<double>() > sweep.values.back())) {
            c.fail(indexed(valuesPath, i), QStringLiteral("expected values in ascending order, without repeats"));
            return std::nullopt;
        }
        sweep.values.push_back(v.get<double>());
    }
    return sweep;
}

// A trace arm's "trace" object; the file is read (its window indexed) here, so a
// bad trace stops the run before anything is sent.
std::optional<TraceSpec> readTraceObject(Checker& c, const json& j, const QString& path)
{
    if (!c.isObject(j, path))
        return std::nullopt;
    c.rejectUnknown(j, path, { "path", "format", "speed", "start_s", "duration_s" });
    TraceSpec t;
    const std::size_t before = c.errors.size();
    t.path = c.string(j, path, "path", true).value_or(QString());
    const QString format = c.string(j, path, "format", true).value_or(QString());
    if (const auto f = traceFormatFromName(format))
        t.format = *f;
    else if (!format.isEmpty())
        c.fail(child(path, "format"),
            QStringLiteral("expected \"mooncake\", \"azure\" or \"knobscope\", got \"%1\"").arg(format));
    t.speed = c.number(j, path, "speed", false, 0).value_or(1.0);
    if (const auto start = j.find("start_s"); start != j.end() && !(start->is_number() && start->get<double>() >= 0))
        c.fail(child(path, "start_s"), QStringLiteral("expected a number of seconds, at least 0"));
    else if (start != j.end())
        t.startS = start->get<double>();
    if (const auto duration = j.find("duration_s"); duration != j.end() && !duration->is_null())
        t.durationS = c.number(j, path, "duration_s", false, 0).value_or(0);
    if (c.errors.size() != before)
        return std::nullopt;
    auto read = readTrace(t.path, t.format, t.startS, t.durationS);
    if (const auto* error = std::get_if<QString>(&read)) {
        c.fail(child(path, "path"), *error);
        return std::nullopt;
    }
    t.index = std::make_shared<const TraceIndex>(std::move(std::get<TraceIndex>(read)));
    return t;
}

void readArms(Checker& c, const json& doc, ExperimentSpec& spec)
{
    const auto it = doc.find("arms");
    const bool hasProbes = doc.contains("probes") && !doc["probes"].is_null();
    if (it == doc.end() && hasProbes)
        return; // a drift-only experiment
    if (it == doc.end() || !it->is_array() || (it->empty() && !hasProbes)) {
        c.fail(QStringLiteral("arms"), QStringLiteral("expected a non-empty list of arms (or \"probes\")"));
        return;
    }
    QSet<QString> names;
    for (std::size_t i = 0; i < it->size(); ++i) {
        const QString path = indexed(QStringLiteral("arms"), i);
        const json& j = (*it)[i];
        if (!c.isObject(j, path))
            continue;
        c.rejectUnknown(j, path,
            { "name", "mode", "concurrency", "rate", "burstiness", "requests", "duration_s", "max_tokens",
                "input_tokens", "warmup", "repeats", "over", "values", "auto", "steps", "max_concurrency", "prompts",
                "trace" });
        ArmSpec arm;
        arm.name = c.string(j, path, "name", true).value_or(QString());
        if (arm.name.startsWith(QLatin1String("probes")))
            c.fail(child(path, "name"), QStringLiteral("arm names starting with \"probes\" are kept for probe passes"));
        if (!arm.name.isEmpty() && names.contains(arm.name))
            c.fail(child(path, "name"), QStringLiteral("duplicate arm name \"%1\"").arg(arm.name));
        names.insert(arm.name);
        const QString mode = c.string(j, path, "mode", true).value_or(QString());
        if (mode == QLatin1String("rate")) {
            arm.mode = LoadSpec::Mode::Rate;
            arm.rate = c.number(j, path, "rate", true, 0).value_or(0);
            if (j.contains("concurrency"))
                c.fail(child(path, "concurrency"),
                    QStringLiteral("not used in rate mode (an open loop has no fixed concurrency)"));
        } else if (mode == QLatin1String("concurrency")) {
            arm.concurrency = c.integer(j, path, "concurrency", true, 1).value_or(1);
            if (j.contains("rate"))
                c.fail(child(path, "rate"), QStringLiteral("not used in concurrency mode"));
        } else if (mode == QLatin1String("sweep")) {
            arm.sweep = readSweep(c, j, path);
            arm.mode = arm.sweep && arm.sweep->over == SweepSpec::Over::Rate ? LoadSpec::Mode::Rate
                                                                             : LoadSpec::Mode::Concurrency;
        } else if (mode == QLatin1String("trace")) {
            arm.mode = LoadSpec::Mode::Trace;
            if (const auto trace = j.find("trace"); trace == j.end())
                c.fail(child(path, "trace"), QStringLiteral("required: the trace to replay"));
            else
                arm.trace = readTraceObject(c, *trace, child(path, "trace"));
            for (const char* key : { "concurrency", "rate", "burstiness", "max_tokens", "input_tokens" })
                if (j.contains(key))
                    c.fail(child(path, key), QStringLiteral("not used in trace mode (the trace gives it)"));
        } else if (!mode.isEmpty()) {
            c.fail(child(path, "mode"),
                QStringLiteral("expected \"concurrency\", \"rate\", \"sweep\" or \"trace\", got \"%1\"").arg(mode));
        }
        if (mode != QLatin1String("trace") && j.contains("trace"))
            c.fail(child(path, "trace"), QStringLiteral("only for \"mode\": \"trace\""));
        if (!arm.sweep)
            for (const char* key : { "over", "values", "auto", "steps", "max_concurrency" })
                if (j.contains(key))
                    c.fail(child(path, key), QStringLiteral("only for \"mode\": \"sweep\""));
        arm.repeats = c.integer(j, path, "repeats", false, 1).value_or(1);
        arm.repeatsGiven = j.contains("repeats");
        if (arm.name.contains(QLatin1Char('@')) || arm.name.contains(QLatin1Char('#')))
            c.fail(child(path, "name"),
                QStringLiteral("'@' and '#' are kept for sweep steps (ARM@VALUE) and repeats (ARM#N)"));
        arm.burstiness = c.number(j, path, "burstiness", false, 0).value_or(1);
        arm.requests = c.integer(j, path, "requests", false, 1).value_or(0);
        arm.durationS = c.number(j, path, "duration_s", false, 0).value_or(0);
        if (!j.contains("requests") && !j.contains("duration_s") && !arm.trace && mode != QLatin1String("trace"))
            c.fail(path, QStringLiteral("bound the arm with \"requests\" or \"duration_s\""));
        if (const auto maxTokens = j.find("max_tokens"); maxTokens != j.end() && maxTokens->is_object())
            arm.maxTokensDist = readLengthDist(c, *maxTokens, child(path, "max_tokens"));
        else
            arm.maxTokens = c.integer(j, path, "max_tokens", false, 1).value_or(128);
        if (const auto prompts = j.find("prompts"); prompts != j.end())
            arm.prompts = readPrompts(c, *prompts, child(path, "prompts"));
        arm.inputTokens = c.integer(j, path, "input_tokens", false, 1).value_or(0);
        arm.warmup = c.integer(j, path, "warmup", false, 0).value_or(0);
        spec.arms.push_back(arm);
    }
}

void readOptional(Checker& c, const json& doc, ExperimentSpec& spec)
{
    if (const auto prompts = doc.find("prompts"); prompts != doc.end()) {
        const QString path = QStringLiteral("prompts");
        if (const auto read = readPrompts(c, *prompts, path)) {
            spec.prompts = *read;
            if (read->inputTokens && read->inputTokens->isFixed())
                spec.inputTokens = read->inputTokens->value;
            spec.seed = read->seed.value_or(1);
        }
    }
    if (const auto probes = doc.find("probes"); probes != doc.end() && !probes->is_null()) {
        const QString path = QStringLiteral("probes");
        if (c.isObject(*probes, path)) {
            c.rejectUnknown(*probes, path, { "set", "max_tokens", "repeats", "across_restart", "concurrency" });
            ProbeSpec p;
            p.set = c.string(*probes, path, "set", false).value_or(p.set);
            p.maxTokens = c.integer(*probes, path, "max_tokens", false, 1).value_or(p.maxTokens);
            p.repeats = c.integer(*probes, path, "repeats", false, 1).value_or(p.repeats);
            p.acrossRestart = c.boolean(*probes, path, "across_restart").value_or(false);
            p.concurrency = c.integer(*probes, path, "concurrency", false, 1).value_or(p.concurrency);
            if (p.acrossRestart && !spec.server)
                c.fail(child(path, "across_restart"), QStringLiteral("needs a \"server\" command to restart"));
            spec.probes = p;
        }
    }
    if (const auto slo = doc.find("slo"); slo != doc.end() && !slo->is_null()) {
        const QString path = QStringLiteral("slo");
        if (c.isObject(*slo, path)) {
            c.rejectUnknown(*slo, path, { "ttft_ms", "tpot_ms" });
            spec.slo.ttftMs = c.number(*slo, path, "ttft_ms", false, 0).value_or(0);
            spec.slo.tpotMs = c.number(*slo, path, "tpot_ms", false, 0).value_or(0);
        }
    }
}

void readClient(Checker& c, const json& doc, ExperimentSpec& spec)
{
    const auto client = doc.find("client");
    const QString path = QStringLiteral("client");
    if (client == doc.end() || !c.isObject(*client, path))
        return;
    c.rejectUnknown(*client, path, { "request_timeout_s", "stall_timeout_s", "threads", "preconnect" });
    ClientSpec& s = spec.client;
    s.requestTimeoutS = c.number(*client, path, "request_timeout_s", false, 0).value_or(s.requestTimeoutS);
    s.stallTimeoutS = c.number(*client, path, "stall_timeout_s", false, 0).value_or(s.stallTimeoutS);
    s.workerThreads = c.integer(*client, path, "threads", false, 0).value_or(s.workerThreads);
    s.preconnect = c.boolean(*client, path, "preconnect").value_or(s.preconnect);
}

void checkPlaceholdersIn(Checker& c, const ExperimentSpec& spec, const QString& path, const QString& text)
{
    auto matches = serverPlaceholderPattern().globalMatch(text);
    while (matches.hasNext()) {
        const QString name = matches.next().captured(1);
        QSet<std::size_t> named; // the points of one grid share their knobs: one problem per configuration written
        for (const ConfigSpec& config : spec.configs) {
            if (name == QLatin1String("model") || config.knobText(name) || named.contains(config.specIndex)
                || (spec.search && spec.search->sets(name)))
                continue;
            named.insert(config.specIndex);
            const QString label = config.grid.is_null()
                ? config.label
                : QString::fromStdString(config.grid.value("from", std::string()));
            c.fail(path,
                QStringLiteral("placeholder {%1} has no value in configs[%2] (\"%3\"): it is neither {model} nor "
                               "one of its knobs")
                    .arg(name)
                    .arg(config.specIndex)
                    .arg(label));
        }
    }
}

// A knob the search sets but no placeholder uses: every probe would start the same server.
void checkSearchKnobsUsed(Checker& c, const ExperimentSpec& spec)
{
    if (!spec.search || !spec.search->multi())
        return;
    QSet<QString> used;
    const auto collect = [&](const QString& text) {
        auto matches = serverPlaceholderPattern().globalMatch(text);
        while (matches.hasNext())
            used.insert(matches.next().captured(1));
    };
    for (const QString& part : spec.server->command)
        collect(part);
    for (const auto& [name, value] : spec.server->env)
        collect(value);
    for (const SearchKnob& knob : spec.search->knobs)
        if (!used.contains(knob.name))
            c.fail(QStringLiteral("search.knobs.") + knob.name,
                QStringLiteral("no {%1} placeholder in server.command or server.env: every probe would start the same "
                               "server")
                    .arg(knob.name));
}

void checkPlaceholders(Checker& c, const ExperimentSpec& spec)
{
    if (!spec.server)
        return;
    for (int i = 0; i < spec.server->command.size(); ++i)
        checkPlaceholdersIn(
            c, spec, indexed(QStringLiteral("server.command"), std::size_t(i)), spec.server->command[i]);
    for (const auto& [name, value] : spec.server->env)
        checkPlaceholdersIn(c, spec, QStringLiteral("server.env.") + name, value);
    checkSearchKnobsUsed(c, spec);
}

} // namespace

std::variant<ExperimentSpec, std::vector<SpecError>> parseExperimentSpec(const QByteArray& text)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) { // parse_error, and out_of_range for a number like 1e400
        return std::vector<SpecError> { { {}, QStringLiteral("not valid JSON: %1").arg(QString::fromUtf8(e.what())) } };
    }
    Checker c;
    ExperimentSpec spec;
    if (!c.isObject(doc, {}))
        return c.errors;
    c.rejectUnknown(doc, {},
        { "name", "target", "server", "configs", "arms", "prompts", "probes", "slo", "client", "search", "repeats",
            "order", "order_seed", "calibration" });
    spec.name = c.string(doc, {}, "name", true).value_or(QString());
    // The A/A calibration compare uses for single runs (core/compare/calibrationlookup.h):
    // a path, read when the file is compared, not here.
    (void)c.string(doc, {}, "calibration", false);
    readTarget(c, doc, spec);
    readServer(c, doc, spec);
    spec::readConfigs(c, doc, text, spec);
    readArms(c, doc, spec);
    readOptional(c, doc, spec);
    readClient(c, doc, spec);
    readSearch(c, doc, spec);
    readRounds(c, doc, spec);
    checkPlaceholders(c, spec);
    if (!c.errors.empty())
        return c.errors;
    spec.raw = doc;
    return spec;
}

} // namespace ks
