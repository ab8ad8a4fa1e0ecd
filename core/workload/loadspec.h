#pragma once

#include "api/chunkdecoder.h"
#include "workload/probeset.h"
#include "workload/promptspec.h"
#include "workload/tracespec.h"

#include <memory>

#include <QString>
#include <QUrl>

namespace ks {

/// One arm's load against one target: what `knobscope run` takes from flags and
/// an experiment spec's arm from JSON.
struct LoadSpec {
    enum class Mode { Concurrency, Rate, Trace };

    QUrl baseUrl = QUrl(QStringLiteral("http://127.0.0.1:8000"));
    ApiKind api = ApiKind::Completions;
    QString model;
    QString apiKeyEnv = QStringLiteral("OPENAI_API_KEY");
    bool verifyTls = true;

    Mode mode = Mode::Concurrency;
    int concurrency = 1;
    double rate = 1.0; ///< requests per second (rate mode)
    double burstiness = 1.0; ///< gamma shape: 1 = Poisson, < 1 burstier, > 1 smoother
    int requests = 0; ///< 0: bounded by duration only
    double durationS = 0; ///< 0: bounded by requests only
    int warmupRequests = 0; ///< first N requests excluded from statistics

    int maxTokens = 128;
    int inputTokens = 128;
    bool ignoreEos = true;
    double temperature = 0;
    quint64 seed = 1;
    /// Where prompts come from; the default is distinct synthetic prompts of
    /// inputTokens words. maxTokensDist, when set, draws max_tokens per request.
    PromptSpec prompts;
    std::optional<LengthDist> maxTokensDist;
    /// Trace mode: the trace replayed. Each request is sent at its offset / speed
    /// with its recorded lengths; `requests` and `durationS`, when set, cut it short.
    std::optional<TraceSpec> trace;
    /// The plain synthetic load (fixed lengths, no prefix, single turns), which
    /// the request factory builds without a workload.
    bool plainPrompts() const;

    /// Set for a probe pass: request i sends probe i % n (pass i / n) at
    /// temperature 0 with `seed`, without ignore_eos, and keeps its text.
    std::shared_ptr<const ProbeSet> probes;

    double requestTimeoutS = 600;
    double stallTimeoutS = 60;
    int workerThreads = 0; ///< 0: chosen from the load
    bool preconnect = true;
    QString runLabel = QStringLiteral("run");

    /// Human-readable problem with the spec, or empty.
    QString validate() const;
};

} // namespace ks
