#include "store/runline.h"

#include "store/requestlineparser.h"

#include <QStringList>

#include <initializer_list>

#include <vector>

namespace ks {

namespace {

using json = nlohmann::json;

// Which JSON types a field may hold.
enum Allowed : unsigned {
    kNull = 1,
    kBool = 2,
    kInt = 4,
    kFloat = 8,
    kStr = 16,
    kArr = 32,
    kObj = 64,
    kNum = kInt | kFloat,
};

struct FieldRule {
    const char* name; ///< "*": every member of an object
    unsigned allowed;
    std::vector<FieldRule> children = {}; ///< for objects
    unsigned elements = 0; ///< for arrays: what each element may be (0: anything)
};

unsigned typeOf(const json& v)
{
    switch (v.type()) {
    case json::value_t::null:
        return kNull;
    case json::value_t::boolean:
        return kBool;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return kInt;
    case json::value_t::number_float:
        return kFloat;
    case json::value_t::string:
        return kStr;
    case json::value_t::array:
        return kArr;
    case json::value_t::object:
        return kObj;
    default:
        return 0;
    }
}

QString describe(unsigned allowed)
{
    QStringList names;
    if ((allowed & kNum) == kNum)
        names << QStringLiteral("a number");
    else if (allowed & kInt)
        names << QStringLiteral("an integer");
    for (const auto& [bit, name] : { std::pair { kBool, "a boolean" }, std::pair { kStr, "a string" },
             std::pair { kArr, "an array" }, std::pair { kObj, "an object" }, std::pair { kNull, "null" } }) {
        if (allowed & bit)
            names << QLatin1String(name);
    }
    return names.join(QStringLiteral(" or "));
}

// A percentile object of a summary (p50, p90, p95, p99, max, mean, count).
#define KS_PERCENTILES(key)                                                                                            \
    FieldRule                                                                                                          \
    {                                                                                                                  \
        key, kObj | kNull,                                                                                             \
        {                                                                                                              \
            { "p50", kNum }, { "p90", kNum }, { "p95", kNum }, { "p99", kNum }, { "max", kNum }, { "mean", kNum },     \
                { "count", kInt },                                                                                     \
        }                                                                                                              \
    }

const FieldRule kProbeIdentity { "probes", kObj,
    { { "set", kStr }, { "set_version", kStr }, { "sha256", kStr }, { "source", kStr }, { "count", kInt },
        { "restart", kInt }, { "repeats", kInt }, { "max_tokens", kInt }, { "concurrency", kInt } } };

const FieldRule kSweepStep { "sweep", kObj,
    { { "arm", kStr }, { "over", kStr }, { "value", kNum | kNull }, { "step", kStr }, { "stop", kStr } } };

const FieldRule kControl { "control", kObj,
    { { "kind", kStr }, { "value", kNum }, { "from", kNum }, { "t_us", kInt } } };

// A search probe's place (docs/formats.md, "Search").
const FieldRule kSearchProbe { "search", kObj, { { "probe", kInt }, { "value", kNum }, { "point", kObj } } };

const std::vector<FieldRule> kRunRules {
    kSearchProbe, { "run", kStr }, { "config", kStr }, { "arm", kStr }, { "t0_wall", kStr },
    { "t0_monotonic_us", kInt }, { "t0_unix_us", kInt }, { "model", kStr }, { "knobs", kObj }, { "ticks", kBool },
    { "grid", kObj, { { "from", kStr }, { "values", kObj } } }, kProbeIdentity, kSweepStep, kControl,
    { "repeat", kInt }, { "round", kInt }, { "config_index", kInt }, { "prompts", kObj }, { "server_version", kObj },
    { "shard", kObj, { { "index", kInt }, { "count", kInt }, { "host", kStr }, { "start_at", kStr } } },
    { "merged", kObj,
        { { "shards", kInt }, { "start_skew_us", kInt }, { "hosts", kArr, {}, kStr }, { "parts", kArr, {}, kObj } } },
    { "imported", kObj, { { "tool", kStr }, { "version", kStr }, { "file_sha256", kStr }, { "summary_only", kBool } } }
};

const std::vector<FieldRule> kSummaryRules {
    { "run", kStr },
    { "config", kStr },
    { "arm", kStr },
    { "model", kStr },
    { "knobs", kObj },
    { "requests", kInt },
    { "ok", kInt },
    { "errors", kInt },
    { "errors_by_reason", kObj, { { "*", kInt } } },
    { "error_details", kObj, { { "*", kArr, {}, kObj } } },
    KS_PERCENTILES("ttft_ms"),
    KS_PERCENTILES("ttfc_ms"),
    KS_PERCENTILES("tpot_ms"),
    KS_PERCENTILES("itl_ms"),
    KS_PERCENTILES("e2e_ms"),
    KS_PERCENTILES("schedule_lag_ms"),
    KS_PERCENTILES("send_queue_ms"),
    { "req_per_s", kNum },
    { "out_tok_per_s", kNum },
    { "goodput_req_per_s", kNum },
    { "offered_req_per_s", kNum },
    { "completion_req_per_s", kNum },
    kSweepStep,
    kControl,
    { "repeat", kInt },
    { "round", kInt },
    { "slo", kObj, { { "ttft_ms", kNum }, { "tpot_ms", kNum } } },
    { "client", kObj,
        { { "loop_lag_p99_ms", kNum }, { "cpu_utilisation", kNum }, { "cores", kInt }, { "client_bound", kBool },
            { "connect_failures", kInt } } },
    { "connect_ms", kNum },
    { "spec_acceptance", kNum },
    { "spec_mean_accepted", kNum },
    { "interrupted", kBool },
    { "gentle", kBool },
    { "peak_in_flight", kInt },
    { "status", kStr },
    { "server", kObj,
        { { "max_waiting", kNum | kNull }, { "max_running", kNum | kNull }, { "samples", kInt },
            { "waiting_share", kNum | kNull }, { "metrics", kStr }, { "scrape_failures", kInt },
            { "longest_scrape_gap_ms", kInt } } },
    { "warnings", kArr, {}, kStr },
    { "gpu", kObj,
        { { "samples", kInt }, { "gpus", kInt }, { "util_pct_mean", kNum | kNull }, { "util_pct_max", kNum | kNull },
            { "mem_used_mib_max", kNum | kNull }, { "mem_total_mib", kNum | kNull }, { "power_w_mean", kNum | kNull },
            { "power_w_max", kNum | kNull } } },
    { "drift", kObj,
        { { "probes", kInt }, { "mismatches", kInt }, { "mismatch_ids", kArr, {}, kStr }, { "errors", kInt } } },
};

const std::vector<FieldRule> kServerRules { { "run", kStr }, { "t_us", kInt }, { "running", kNum | kNull },
    { "waiting", kNum | kNull }, { "kv_cache_usage", kNum | kNull }, { "engine", kStr },
    { "spec_decode", kObj,
        { { "drafts", kNum }, { "draft_tokens", kNum }, { "accepted_tokens", kNum }, { "accept_length", kNum } } } };

const std::vector<FieldRule> kGpuRules { { "run", kStr }, { "t_us", kInt },
    { "gpus", kArr, {}, kObj } }; // each GPU's fields are read where used (gpuGaugesOf): any may be missing

const std::vector<FieldRule> kServerEventRules { { "run", kStr }, { "t_us", kInt | kNull }, { "wall", kStr },
    { "event", kStr }, { "detail", kStr } };

const std::vector<FieldRule> kTickRules { { "run", kStr }, { "t_us", kInt } };

// The search's result, written once before the file closes (docs/formats.md, "Search").
const std::vector<FieldRule> kSearchRules { { "knob", kStr }, { "arm", kStr }, { "metric", kStr },
    { "minimize", kBool }, { "scale", kStr }, { "range", kArr, {}, kNum }, { "budget", kInt }, { "stop", kStr },
    { "best", kNum | kObj | kNull }, { "objective", kNum | kNull }, { "ci95", kArr | kNull, {}, kNum },
    { "plateau", kArr | kNull, {}, kNum | kObj }, { "probes", kArr, {}, kObj }, { "tolerance", kNum },
    { "cheaper", kStr },
    { "top", kObj | kNull,
        { { "value", kNum }, { "point", kObj }, { "objective", kNum }, { "ci95", kArr, {}, kNum } } },
    // A search over several knobs (docs/formats.md, "Search over several knobs").
    { "knobs", kArr, {}, kObj }, { "method", kStr } };

// A probe of a search over several knobs, written when it ends (docs/formats.md, "Search over several knobs").
const std::vector<FieldRule> kSearchProbeRules { { "probe", kInt }, { "point", kObj }, { "config", kStr },
    { "objective", kNum | kNull }, { "ci95", kArr | kNull, {}, kNum }, { "feasible", kBool }, { "why", kStr } };

// The decision after a round of repeats that run until decided (docs/formats.md, "Rounds").
const std::vector<FieldRule> kRoundRules { { "round", kInt }, { "decided", kBool }, { "stop", kStr | kNull },
    { "ratios", kArr, {}, kObj }, { "max", kInt }, { "half_width", kNum }, { "confidence", kNum },
    { "problem", kStr } };

const std::vector<FieldRule> kExperimentRules {
    { "schema", kInt },
    { "calibration", kObj, { { "config", kStr }, { "runs", kInt } } },
    { "environment", kObj,
        { { "host", kStr }, { "os", kStr }, { "kernel", kStr }, { "cpu_model", kStr }, { "cpu_count", kInt },
            { "memory_bytes", kInt }, { "knobscope", kStr }, { "gpus", kArr, {}, kObj }, { "gpu_error", kStr } } },
    { "tool", kStr },
    { "started_at", kStr },
    { "spec", kObj,
        { { "name", kStr }, { "target", kObj, { { "base_url", kStr }, { "api", kStr }, { "api_key_env", kStr } } },
            { "server", kObj | kNull }, { "configs", kArr, {}, kObj }, { "arms", kArr, {}, kObj },
            { "prompts", kObj | kNull }, { "probes", kObj | kNull },
            { "slo", kObj | kNull, { { "ttft_ms", kNum }, { "tpot_ms", kNum } } } } },
};

#undef KS_PERCENTILES

// Drops every field that breaks its rule, recursively, and notes each drop.
void clean(json& object, const std::vector<FieldRule>& rules, const QString& path, qint64 line,
    std::vector<RunFileIssue>& issues)
{
    auto check = [&](json& value, const FieldRule& rule, const QString& name) -> bool {
        const unsigned type = typeOf(value);
        if (!(type & rule.allowed)) {
            issues.push_back({ line,
                QStringLiteral("%1: expected %2, got %3; left empty")
                    .arg(name, describe(rule.allowed), jsonTypeName(value)) });
            return false;
        }
        if (type == kObj && !rule.children.empty())
            clean(value, rule.children, name, line, issues);
        if (type == kArr && rule.elements) {
            for (std::size_t i = 0; i < value.size(); ++i) {
                if (!(typeOf(value[i]) & rule.elements)) {
                    issues.push_back({ line,
                        QStringLiteral("%1[%2]: expected %3, got %4; %1 left empty")
                            .arg(name)
                            .arg(i)
                            .arg(describe(rule.elements), jsonTypeName(value[i])) });
                    return false;
                }
            }
        }
        return true;
    };
    for (const FieldRule& rule : rules) {
        if (qstrcmp(rule.name, "*") == 0) {
            for (auto it = object.begin(); it != object.end();) {
                const QString name = path + QLatin1Char('.') + QString::fromStdString(it.key());
                it = check(it.value(), rule, name) ? std::next(it) : object.erase(it);
            }
            continue;
        }
        const auto it = object.find(rule.name);
        if (it == object.end())
            continue;
        if (!check(*it, rule, path + QLatin1Char('.') + QLatin1String(rule.name)))
            object.erase(it);
    }
}

// The run label every record but the experiment line must carry.
bool takeRun(const json& object, const char* type, qint64 line, std::vector<RunFileIssue>& issues, QString* run)
{
    const auto it = object.find("run");
    if (it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
        issues.push_back({ line,
            QStringLiteral("%1.run: %2; line skipped")
                .arg(QLatin1String(type),
                    it == object.end()
                        ? QStringLiteral("missing (expected a string)")
                        : QStringLiteral("expected a non-empty string, got %1").arg(jsonTypeName(*it))) });
        return false;
    }
    *run = QString::fromStdString(it->get<std::string>());
    if (run->size() > kMaxLabelChars) {
        run->truncate(kMaxLabelChars);
        issues.push_back({ line,
            QStringLiteral("%1.run: longer than %2 characters; cut").arg(QLatin1String(type)).arg(kMaxLabelChars) });
    }
    return true;
}

// Labels drawn on charts and tables are cut to kMaxLabelChars.
void cutLabels(json& object, const char* type, std::initializer_list<const char*> keys, qint64 line,
    std::vector<RunFileIssue>& issues)
{
    for (const char* key : keys) {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_string())
            continue;
        const QString text = QString::fromStdString(it->get<std::string>());
        if (text.size() <= kMaxLabelChars)
            continue;
        *it = text.left(kMaxLabelChars).toStdString();
        issues.push_back({ line,
            QStringLiteral("%1.%2: longer than %3 characters; cut")
                .arg(QLatin1String(type), QLatin1String(key))
                .arg(kMaxLabelChars) });
    }
}

} // namespace

QString jsonTypeName(const json& value)
{
    switch (typeOf(value)) {
    case kNull:
        return QStringLiteral("null");
    case kBool:
        return QStringLiteral("a boolean");
    case kInt:
        return QStringLiteral("an integer");
    case kFloat:
        return QStringLiteral("a number");
    case kStr:
        return QStringLiteral("a string");
    case kArr:
        return QStringLiteral("an array");
    case kObj:
        return QStringLiteral("an object");
    default:
        return QStringLiteral("binary data");
    }
}

RunLine readRunLine(QByteArrayView line, qint64 lineNumber, std::vector<RunFileIssue>& issues, const QString* sameRun)
{
    RunLine out;
    if (line.trimmed().isEmpty())
        return out;
    if (line.contains(QByteArrayView("\"type\":\"request\""))) {
        // Nearly every line is a request: read it without a document.
        QString syntax;
        switch (parseRequestLine(line, lineNumber, &out.request, issues, sameRun, &syntax)) {
        case RequestLineResult::Record:
            out.kind = RunLine::Kind::Request;
            out.run = out.request.run;
            return out;
        case RequestLineResult::Skip:
            out.kind = RunLine::Kind::Skipped;
            return out;
        case RequestLineResult::Invalid:
            issues.push_back({ lineNumber, syntax + QStringLiteral("; line skipped") });
            out.kind = RunLine::Kind::Skipped;
            return out;
        case RequestLineResult::NotRequest:
            break; // e.g. the text appears inside a string: read it as a document
        }
    }
    // A line nested too deep would overflow the stack of whoever dumps it (the
    // reparse below, replay): it is skipped, its depth never built.
    bool tooDeep = false;
    json object = parseJsonBounded(line, &tooDeep);
    if (tooDeep && !object.is_discarded()) {
        issues.push_back({ lineNumber, QStringLiteral("nested deeper than %1 levels; line skipped").arg(kMaxNesting) });
        out.kind = RunLine::Kind::Skipped;
        return out;
    }
    if (object.is_discarded() || !object.is_object()) {
        issues.push_back({ lineNumber,
            object.is_discarded() ? QStringLiteral("not valid JSON; line skipped")
                                  : QStringLiteral("not a JSON object (%1); line skipped").arg(jsonTypeName(object)) });
        out.kind = RunLine::Kind::Skipped;
        return out;
    }
    const auto type = object.find("type");
    if (type == object.end() || !type->is_string()) {
        issues.push_back({ lineNumber,
            type == object.end()
                ? QStringLiteral("type: missing; line skipped")
                : QStringLiteral("type: expected a string, got %1; line skipped").arg(jsonTypeName(*type)) });
        out.kind = RunLine::Kind::Skipped;
        return out;
    }
    const std::string kind = type->get<std::string>();
    if (kind == "request") {
        // Valid JSON that the flat reader did not take (nested in an odd way, or
        // written with spaces): read it through the same rule from its text.
        const std::string flat = object.dump();
        QString syntax;
        const auto result = parseRequestLine(
            QByteArrayView(flat.data(), qsizetype(flat.size())), lineNumber, &out.request, issues, sameRun, &syntax);
        out.kind = result == RequestLineResult::Record ? RunLine::Kind::Request : RunLine::Kind::Skipped;
        out.run = out.request.run;
        return out;
    }
    const std::vector<FieldRule>* rules = nullptr;
    if (kind == "experiment") {
        out.kind = RunLine::Kind::Experiment;
        rules = &kExperimentRules;
    } else if (kind == "run") {
        out.kind = RunLine::Kind::Run;
        rules = &kRunRules;
    } else if (kind == "summary") {
        out.kind = RunLine::Kind::Summary;
        rules = &kSummaryRules;
    } else if (kind == "server") {
        out.kind = RunLine::Kind::Server;
        rules = &kServerRules;
    } else if (kind == "gpu") {
        out.kind = RunLine::Kind::Gpu;
        rules = &kGpuRules;
    } else if (kind == "server_event") {
        out.kind = RunLine::Kind::ServerEvent;
        rules = &kServerEventRules;
    } else if (kind == "tick") {
        out.kind = RunLine::Kind::Tick;
        rules = &kTickRules;
    } else if (kind == "search") {
        out.kind = RunLine::Kind::Search;
        rules = &kSearchRules;
    } else if (kind == "search_probe") {
        out.kind = RunLine::Kind::SearchProbe;
        rules = &kSearchProbeRules;
    } else if (kind == "round") {
        out.kind = RunLine::Kind::Round;
        rules = &kRoundRules;
    } else {
        out.kind = RunLine::Kind::Unknown;
        return out;
    }
    const bool runless = out.kind == RunLine::Kind::Experiment || out.kind == RunLine::Kind::Search
        || out.kind == RunLine::Kind::SearchProbe || out.kind == RunLine::Kind::Round;
    if (!runless && !takeRun(object, kind.c_str(), lineNumber, issues, &out.run)) {
        out.kind = RunLine::Kind::Skipped;
        return out;
    }
    clean(object, *rules, QString::fromStdString(kind), lineNumber, issues);
    if (!runless) {
        object["run"] = out.run.toStdString(); // cut like the requests' labels, so they still match
        cutLabels(object, kind.c_str(), { "config", "arm", "model" }, lineNumber, issues);
    }
    out.object = std::move(object);
    return out;
}

} // namespace ks
