#pragma once

#include "compare/rounddecision.h"
#include "metrics/runsummary.h"
#include "spec/searchspec.h"
#include "workload/loadspec.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QStringList>

class QRegularExpression;

#include <nlohmann/json.hpp>

#include <optional>
#include <variant>
#include <vector>

namespace ks {

struct ServerSpec {
    QStringList command; ///< argv template with {model} and {knob} placeholders; never run through a shell
    /// Environment variables set for the server on top of knobscope's own, values
    /// with the same placeholders (Ollama takes its slot count from OLLAMA_NUM_PARALLEL).
    QList<QPair<QString, QString>> env;
    QString readyPath = QStringLiteral("/health");
    double readyTimeoutS = 600;
    bool restartBetweenConfigs = true;
    double stopGraceS = 10;
};

struct ConfigSpec {
    QString label;
    QString model;
    nlohmann::json knobs = nlohmann::json::object(); ///< scalar values only
    /// A grid's point: `{"from": TEMPLATE_LABEL, "values": {NAME: VALUE, ...}}` with
    /// the values of the lists that gave this configuration.
    nlohmann::json grid; ///< null unless expanded from a grid
    std::size_t specIndex = 0; ///< its place in the spec's "configs" (a grid gives several configurations)
    nlohmann::json search; ///< null unless a search probe: {"probe", "value"}
    /// A knob's value as placeholder text (numbers without a trailing ".0").
    std::optional<QString> knobText(const QString& name) const;
};

/// A sweep arm's steps (docs/experiments.md, "Sweeps").
struct SweepSpec {
    enum class Over { Rate, Concurrency };
    Over over = Over::Rate;
    std::vector<double> values; ///< explicit steps, ascending; empty with `autoRates`
    bool autoRates = false; ///< GuideLLM's sweep: synchronous, throughput, then `steps` rates between
    int steps = 8;
    int throughputConcurrency = 256; ///< the closed loop of the auto sweep's throughput step
};

struct ArmSpec {
    QString name;
    LoadSpec::Mode mode = LoadSpec::Mode::Concurrency;
    int concurrency = 1;
    double rate = 0;
    double burstiness = 1;
    int requests = 0;
    double durationS = 0;
    int maxTokens = 128;
    std::optional<LengthDist> maxTokensDist; ///< max_tokens given as a distribution
    int inputTokens = 0; ///< 0: the spec's prompts.input_tokens
    int warmup = 0;
    int repeats = 1; ///< runs per configuration: ARM, ARM#2, ... (the spec's top-level `repeats` unless its own)
    bool repeatsGiven = false; ///< the arm has its own `repeats`
    std::optional<SweepSpec> sweep; ///< set for "mode": "sweep"; mode/concurrency/rate then describe each step
    std::optional<PromptSpec> prompts; ///< the arm's own prompts, replacing the spec's
    std::optional<TraceSpec> trace; ///< set for "mode": "trace"
};

struct ProbeSpec {
    QString set = QStringLiteral("builtin:quality-50");
    int maxTokens = 64;
    int repeats = 3;
    bool acrossRestart = false;
    int concurrency = 1;
};

/// How the load generator behaves, whatever the target (`client` in the spec).
struct ClientSpec {
    double requestTimeoutS = 600;
    double stallTimeoutS = 60;
    int workerThreads = 0; ///< 0: chosen from the load
    bool preconnect = true;
};

/// How the repeats of the arms are ordered (docs/experiments.md, "Repeats"): the
/// spec's top-level `repeats`, `order` and `order_seed`.
struct RoundsSpec {
    enum class Order { Interleaved, Blocked };
    /// Interleaved: round 1 of every configuration, then round 2, ...; blocked:
    /// every repeat of a configuration before the next one (and always with a search).
    Order order = Order::Interleaved;
    quint64 seed = 1; ///< the order of rounds 2 on; the spec's seed unless `order_seed`
    std::optional<RoundRule> until; ///< repeats that run until decided
};

/// A validated experiment (docs/experiments.md).
struct ExperimentSpec {
    QString name;
    QUrl baseUrl;
    ApiKind api = ApiKind::Completions;
    QString apiKeyEnv = QStringLiteral("OPENAI_API_KEY");
    bool verifyTls = true;
    std::optional<ServerSpec> server;
    std::vector<ConfigSpec> configs;
    std::vector<ArmSpec> arms;
    int inputTokens = 128;
    quint64 seed = 1;
    PromptSpec prompts;
    std::optional<ProbeSpec> probes;
    Slo slo;
    ClientSpec client;
    std::optional<SearchSpec> search;
    RoundsSpec rounds;
    /// `knobscope run SPEC --aa N` (applyCalibrationPlan): {"config", "runs"}, written into the
    /// experiment line as `calibration`; null otherwise. Not in the JSON.
    nlohmann::json calibration;
    nlohmann::json raw; ///< the spec as given, for the run file
    /// `knobscope run --base-url`: one configuration and one arm, whose run is
    /// named by the configuration's label alone (`--label`). Not in the JSON.
    bool adHoc = false;

    /// The server argv for one configuration, placeholders filled.
    QStringList serverCommand(const ConfigSpec& config) const;
    /// The server's extra environment for one configuration, placeholders filled.
    QList<QPair<QString, QString>> serverEnvironment(const ConfigSpec& config) const;
    /// The load of one arm against one configuration.
    LoadSpec loadSpec(const ConfigSpec& config, const ArmSpec& arm) const;
    /// One probe pass against one configuration: every probe `repeats` times
    /// before any restart, once after each.
    LoadSpec probeLoadSpec(const ConfigSpec& config, std::shared_ptr<const ProbeSet> set, int restart) const;

private:
    /// The target and model of one configuration, with the spec's seed: what every load shares.
    LoadSpec targetLoadSpec(const ConfigSpec& config) const;
};

/// The arm name of probe passes: "probes", then "probes-restart1".
QString probeRunName(int restart);

/// A `{name}` in server.command or server.env: {model} or one of the configuration's knobs.
const QRegularExpression& serverPlaceholderPattern();

struct SpecError {
    QString path; ///< e.g. "configs[1].knobs.max_num_seqs"; empty for the document itself
    QString message; ///< e.g. "expected a number"
    QString toString() const { return path.isEmpty() ? message : path + QStringLiteral(": ") + message; }
};

/// Parses and validates a spec, reporting every problem found (not only the
/// first). Nothing should run unless this returns an ExperimentSpec.
std::variant<ExperimentSpec, std::vector<SpecError>> parseExperimentSpec(const QByteArray& json);

} // namespace ks
