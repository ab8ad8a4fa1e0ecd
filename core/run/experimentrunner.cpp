#include "run/experimentrunner.h"

#include "metrics/armverdicts.h"
#include "metrics/percentiles.h"
#include "metrics/ttftsplit.h"
#include "run/hostenvironment.h"
#include "run/servercommandcheck.h"
#include "store/recordjson.h"
#include "store/runline.h"
#include "util/redact.h"
#include "util/wallclock.h"
#include "workload/workload.h"

#include <QDateTime>
#include <QFileInfo>

namespace ks {

namespace {

std::string isoNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

std::string text(const QString& s)
{
    return s.toStdString();
}

} // namespace

ExperimentRunner::ExperimentRunner(ExperimentSpec spec, QString outPath, QObject* parent)
    : QObject(parent)
    , m_spec(std::move(spec))
    , m_outPath(std::move(outPath))
    , m_snapshotTimer(this)
{
    qRegisterMetaType<RunSnapshot>();
    qRegisterMetaType<std::shared_ptr<const RunData>>();
    m_snapshotTimer.setInterval(int(kSnapshotIntervalUs / 1000));
    connect(&m_snapshotTimer, &QTimer::timeout, this, [this] {
        if (m_progressDirty) {
            m_progressDirty = false;
            emit progressed(m_lastProgress);
        }
        if (m_snapshots.dirty() && m_snapshots.inRun())
            takeSnapshot();
    });
}

ExperimentRunner::~ExperimentRunner() = default;

QString ExperimentRunner::start()
{
    QString error;
    if (m_spec.probes) {
        auto loaded = loadProbeSet(m_spec.probes->set);
        if (const QString* problem = std::get_if<QString>(&loaded))
            return *problem;
        m_probeSet = std::make_shared<const ProbeSet>(std::get<ProbeSet>(std::move(loaded)));
        m_snapshots.setProbeSet(m_probeSet->identity());
    }
    if (!m_writer.open(m_outPath, &error))
        return error;
    const nlohmann::json experiment
        = { { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope " KNOBSCOPE_VERSION },
              { "started_at", isoNow() }, { "spec", redactSpec(m_spec.raw) }, { "environment", hostEnvironment() } };
    m_writer.write(experiment);
    if (!m_writer.flush()) {
        const QString problem = m_writer.error();
        m_writer.close();
        return problem;
    }
    emit experimentStarted(QByteArray::fromStdString(experiment.dump()));
    QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
    return {};
}

void ExperimentRunner::stop()
{
    m_stopRequested = true;
    if (m_load) {
        m_load->stop(); // the arm ends; startArm() then sees the request and stops the server
        return;
    }
    // No arm running: a server still starting (or stopping) is stopped before
    // the file closes; with none, the file closes now. A queued step that runs
    // later sees m_stopRequested and finds the file closed.
    finishExperiment();
}

void ExperimentRunner::abandon()
{
    m_stopRequested = true;
    if (m_launcher)
        m_launcher->abandon();
    m_writer.close();
}

void ExperimentRunner::flushFile()
{
    if (!m_writer.flush() && m_writer.failed())
        onWriteFailed();
}

void ExperimentRunner::onWriteFailed()
{
    if (m_writeFailed)
        return;
    m_writeFailed = true;
    m_problems.prepend(m_writer.error());
    // The run cannot be recorded any more: end it the way Stop does, once the
    // current step returns. The arm's summary still reaches armFinished(), so
    // a dashboard or terminal shows what the file could not keep.
    m_stopRequested = true;
    QMetaObject::invokeMethod(this, &ExperimentRunner::stop, Qt::QueuedConnection);
}

void ExperimentRunner::serverEvent(const QString& event, const QString& detail)
{
    // t_us counts from the running arm's t0; between arms there is no run clock.
    m_writer.write({ { "type", "server_event" }, { "run", text(m_run) },
        { "t_us", m_armRunning ? nlohmann::json(monotonicUs() - m_t0Us) : nlohmann::json(nullptr) },
        { "wall", isoNow() }, { "event", text(event) }, { "detail", text(detail) } });
    flushFile();
}

void ExperimentRunner::startConfig()
{
    if (m_stopRequested || m_config >= m_spec.configs.size()) {
        finishExperiment();
        return;
    }
    m_arm = 0;
    m_runInConfig = 0;
    m_restartedForProbes = false;
    m_run = m_spec.configs[m_config].label;
    const bool needStart = m_spec.server && (!m_serverUp || m_spec.server->restartBetweenConfigs);
    if (needStart)
        restartServer();
    else
        startArm();
}

void ExperimentRunner::restartServer()
{
    if (m_launcher && m_launcher->isRunning())
        stopServerThen(AfterServerStop::LaunchServer);
    else
        launchServer();
}

void ExperimentRunner::stopServerThen(AfterServerStop next)
{
    // One stop at a time; Finish outranks the others (Stop while a restart waits).
    const bool stopping = m_afterServerStop.has_value();
    if (!stopping || next > *m_afterServerStop)
        m_afterServerStop = next;
    if (!stopping)
        m_launcher->stop();
}

void ExperimentRunner::onServerStopped()
{
    m_serverUp = false;
    serverEvent(QStringLiteral("stopped"), {});
    const std::optional<AfterServerStop> next = std::exchange(m_afterServerStop, std::nullopt);
    if (!next)
        return; // it stopped itself after never becoming ready: failed() moves on
    if (m_stopRequested || *next == AfterServerStop::Finish) {
        finishExperiment();
        return;
    }
    if (*next == AfterServerStop::LaunchServer)
        QMetaObject::invokeMethod(this, &ExperimentRunner::launchServer, Qt::QueuedConnection);
    else
        QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::launchServer()
{
    if (m_stopRequested) {
        finishExperiment();
        return;
    }
    const ConfigSpec& config = m_spec.configs[m_config];
    if (m_launcher)
        m_launcher.release()->deleteLater(); // may be inside one of its own signals
    m_launcher = std::make_unique<ServerLauncher>();
    connect(m_launcher.get(), &ServerLauncher::stopped, this, &ExperimentRunner::onServerStopped);
    connect(m_launcher.get(), &ServerLauncher::outputLine, this, [this](const QString& line) {
        emit serverLine(line);
        serverEvent(QStringLiteral("output"), line);
    });
    connect(m_launcher.get(), &ServerLauncher::ready, this, [this](qint64 ms) {
        m_serverUp = true;
        serverEvent(QStringLiteral("ready"), QStringLiteral("ready after %1 ms").arg(ms));
        startArm();
    });
    connect(m_launcher.get(), &ServerLauncher::failed, this, [this](LaunchError error, const QString& message) {
        serverEvent(launchErrorName(error), message);
        m_problems << QStringLiteral("%1: %2").arg(m_spec.configs[m_config].label, message);
        m_serverUp = false;
        ++m_config; // this configuration cannot run; the next one may
        QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
    });
    connect(m_launcher.get(), &ServerLauncher::exitedUnexpectedly, this, [this](const QString& message) {
        m_serverUp = false;
        serverEvent(QStringLiteral("exited"), message);
        m_armProblem = message;
        if (m_load)
            m_load->stop(); // ends this arm; the runner moves to the next configuration
    });
    ServerLauncher::Options options;
    options.argv = m_spec.serverCommand(config);
    options.readyUrl = m_spec.baseUrl.resolved(QUrl(m_spec.server->readyPath));
    options.readyTimeoutS = m_spec.server->readyTimeoutS;
    options.stopGraceS = m_spec.server->stopGraceS;
    options.logPath = QFileInfo(m_outPath).absolutePath() + QLatin1Char('/') + QFileInfo(m_outPath).completeBaseName()
        + QStringLiteral(".server.log");
    options.env = m_spec.serverEnvironment(config);
    serverEvent(QStringLiteral("starting"), (redactEnv(options.env) + redactArgv(options.argv)).join(QLatin1Char(' ')));
    m_serverWarnings = serverCommandWarnings(options.argv);
    for (const QString& warning : std::as_const(m_serverWarnings)) {
        serverEvent(QStringLiteral("warning"), warning);
        emit serverLine(QStringLiteral("warning: ") + warning);
    }
    m_launcher->start(options);
}

std::size_t ExperimentRunner::stepsPerConfig() const
{
    if (!m_spec.probes)
        return m_spec.arms.size();
    return m_spec.arms.size() + (m_spec.probes->acrossRestart ? 2 : 1);
}

std::size_t ExperimentRunner::runsPerConfig() const
{
    std::size_t runs = stepsPerConfig() - m_spec.arms.size(); // probe passes
    for (const ArmSpec& arm : m_spec.arms)
        runs += std::size_t(ArmPlan::estimatedRuns(arm));
    return runs;
}

void ExperimentRunner::startArm()
{
    if (m_stopRequested || m_arm >= stepsPerConfig() || !m_armProblem.isEmpty()) {
        endConfig();
        return;
    }
    const ConfigSpec& config = m_spec.configs[m_config];
    const bool probePass = m_arm >= m_spec.arms.size();
    m_probeRestart = probePass ? int(m_arm - m_spec.arms.size()) : -1;
    if (m_probeRestart > 0 && !m_restartedForProbes) {
        m_restartedForProbes = true; // the pass after a restart: a fresh server process first
        m_run = config.label + QLatin1Char('/') + probeRunName(m_probeRestart);
        restartServer();
        return;
    }
    std::optional<PlannedStep> step;
    if (!probePass) {
        if (!m_plan)
            m_plan = std::make_unique<ArmPlan>(m_spec, config, m_spec.arms[m_arm]);
        if (step = m_plan->next(); !step) { // this arm is done for this configuration
            m_plan.reset();
            ++m_arm;
            QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection);
            return;
        }
    }
    const LoadSpec load = probePass ? m_spec.probeLoadSpec(config, m_probeSet, m_probeRestart) : step->load;
    m_armName = probePass ? probeRunName(m_probeRestart) : step->armName;
    m_runFields = step ? step->runFields : nlohmann::json::object();
    m_run = load.runLabel;
    m_snapshots.beginRun(config.label, config.model, m_probeRestart);
    m_maxWaiting = m_maxRunning = -1;
    m_samples = m_samplesWaiting = 0;
    m_metricsProblem.clear();
    m_load = std::make_unique<LoadRunner>(load);
    const nlohmann::json prompts = probePass ? nlohmann::json() : Workload::identity(load);
    connect(m_load.get(), &LoadRunner::started, this, [this, &config, prompts](qint64 t0) {
        m_t0Us = t0;
        m_armRunning = true;
        nlohmann::json line = { { "type", "run" }, { "run", text(m_run) }, { "config", text(config.label) },
            { "arm", text(m_armName) }, { "t0_wall", isoNow() }, { "t0_monotonic_us", t0 }, { "knobs", config.knobs },
            { "model", text(config.model) }, { "ticks", true }, { "t0_unix_us", unixUsAtMonotonic(t0) } };
        line.update(m_runFields);
        line.update(m_runLineExtra);
        if (m_probeRestart >= 0) {
            line["probes"] = m_probeSet->identity();
            line["probes"]["restart"] = m_probeRestart;
            line["probes"]["repeats"] = m_probeRestart == 0 ? m_spec.probes->repeats : 1;
            line["probes"]["max_tokens"] = m_spec.probes->maxTokens;
            line["probes"]["concurrency"] = m_spec.probes->concurrency;
        }
        if (!prompts.is_null())
            line["prompts"] = prompts;
        flushFile();
        m_runOffset = m_writer.bytesWritten(); // the arm's lines start here (readBackRecords)
        m_writer.write(line);
        flushFile();
        m_runLine = std::move(line);
        m_scraper = std::make_unique<MetricsScraper>(m_spec.baseUrl, t0);
        connect(m_scraper.get(), &MetricsScraper::sampled, this, &ExperimentRunner::writeServerSample);
        connect(m_scraper.get(), &MetricsScraper::unavailable, this, [this](const QString& reason) {
            m_metricsProblem = reason;
            serverEvent(QStringLiteral("metrics_unavailable"), reason);
        });
        connect(m_scraper.get(), &MetricsScraper::failed, this, [this](const QString& reason) {
            if (!m_inMetricsGap) // one event per gap; the summary counts every failed scrape
                serverEvent(QStringLiteral("metrics_gap"), reason + QStringLiteral("; retrying with back-off"));
            m_inMetricsGap = true;
        });
        connect(m_scraper.get(), &MetricsScraper::resumed, this, [this](qint64 gapMs) {
            m_inMetricsGap = false;
            serverEvent(QStringLiteral("metrics_resumed"), QStringLiteral("after %1 ms without a sample").arg(gapMs));
        });
        m_scraper->start();
        m_snapshotTimer.start();
    });
    connect(m_load.get(), &LoadRunner::recordsReady, this, [this](const QVector<RequestRecord>& batch) {
        for (const RequestRecord& r : batch) {
            m_writer.write(toJson(r));
        }
        m_snapshots.addRecords(batch);
        flushFile();
        emit recordsWritten(m_run, batch);
    });
    connect(m_load.get(), &LoadRunner::progressed, this, [this](const LoadProgress& p) {
        m_lastProgress = p; // relayed with the snapshots: at most 10 signals a second reach a dashboard
        m_progressDirty = true;
    });
    connect(m_load.get(), &LoadRunner::finished, this, &ExperimentRunner::onArmFinished);
    // Sweeps may stop early, so the total is an estimate (docs/experiments.md, "Sweeps").
    emit armStarted(
        m_run, int(m_config * runsPerConfig()) + m_runInConfig++, int(m_spec.configs.size() * runsPerConfig()));
    if (const QString error = m_load->start(); !error.isEmpty()) {
        m_problems << QStringLiteral("%1: %2").arg(m_run, error);
        m_load.reset();
        m_plan.reset(); // the arm cannot run here: on to the next one
        ++m_arm;
        QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection);
    }
}

void ExperimentRunner::takeSnapshot()
{
    // The instant goes into the file first: replay takes its snapshot there,
    // over exactly the lines written before it.
    const qint64 runTimeUs = monotonicUs() - m_t0Us;
    m_writer.write({ { "type", "tick" }, { "run", text(m_run) }, { "t_us", runTimeUs } });
    emit snapshotReady(m_run, m_snapshots.snapshot(runTimeUs));
}

std::vector<RequestRecord> ExperimentRunner::readBackRecords()
{
    std::vector<RequestRecord> records;
    std::vector<RunFileIssue> issues;
    qint64 line = 0;
    QString error;
    const QString run = m_run;
    m_writer.readBack(
        m_runOffset,
        [&](QByteArrayView text) {
            RunLine decoded = readRunLine(text, ++line, issues, &run);
            if (decoded.kind == RunLine::Kind::Request && decoded.run == run)
                records.push_back(std::move(decoded.request));
        },
        &error);
    if (!error.isEmpty())
        m_problems << error;
    return records;
}

void ExperimentRunner::writeServerSample(const ServerSample& s)
{
    auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    m_writer.write({ { "type", "server" }, { "run", text(m_run) }, { "t_us", s.tUs }, { "running", value(s.running) },
        { "waiting", value(s.waiting) }, { "kv_cache_usage", value(s.kvCacheUsage) }, { "engine", text(s.engine) } });
    m_snapshots.addServerSample(s.running.value_or(-1), s.waiting.value_or(-1), s.kvCacheUsage.value_or(-1));
    if (s.waiting) {
        m_maxWaiting = std::max(m_maxWaiting, *s.waiting);
        ++m_samples;
        m_samplesWaiting += *s.waiting >= 1 ? 1 : 0;
    }
    if (s.running)
        m_maxRunning = std::max(m_maxRunning, *s.running);
}

void ExperimentRunner::onArmFinished(const LoadResult& result)
{
    m_armRunning = false;
    m_inMetricsGap = false;
    if (m_scraper)
        m_scraper->stop();
    m_snapshotTimer.stop();
    if (m_progressDirty) {
        m_progressDirty = false;
        emit progressed(m_lastProgress);
    }
    if (m_snapshots.inRun()) {
        takeSnapshot(); // the final state
        m_snapshots.endRun();
    }
    const ConfigSpec& config = m_spec.configs[m_config];
    flushFile();
    std::vector<RequestRecord> records = readBackRecords();
    nlohmann::json summary = summarizeRun(m_run, config.label, m_armName, records, m_spec.slo, clientLoadOf(result));
    if (m_scraper) // vLLM's histograms, where the records give no better split
        offerHistogramSplit(summary, m_scraper->firstHistograms(), m_scraper->lastHistograms());
    if (m_probeRestart >= 0)
        summary["drift"] = m_snapshots.drift().runSummary(config.label, m_probeRestart, int(m_probeSet->probes.size()));
    summary["server"] = { { "max_waiting", m_maxWaiting >= 0 ? nlohmann::json(m_maxWaiting) : nlohmann::json(nullptr) },
        { "max_running", m_maxRunning >= 0 ? nlohmann::json(m_maxRunning) : nlohmann::json(nullptr) },
        { "samples", m_samples },
        { "waiting_share",
            m_samples > 0 ? nlohmann::json(double(m_samplesWaiting) / m_samples) : nlohmann::json(nullptr) },
        { "metrics", m_metricsProblem.isEmpty() ? nlohmann::json("ok") : nlohmann::json(text(m_metricsProblem)) },
        { "scrape_failures", m_scraper ? m_scraper->failures() : 0 },
        { "longest_scrape_gap_ms", m_scraper ? m_scraper->longestGapMs() : 0 } };
    if (m_scraper && m_scraper->failures() > 0)
        summary["warnings"].push_back(std::to_string(m_scraper->failures())
            + " metrics scrapes failed and were retried (longest gap without a sample "
            + std::to_string(m_scraper->longestGapMs()) + " ms); queue-depth charts have gaps there");
    const auto mns = config.knobText(QStringLiteral("max_num_seqs"));
    addGentleVerdict(summary, records, m_probeRestart < 0, m_samples, m_samplesWaiting,
        mns ? std::optional<int>(mns->toInt()) : std::nullopt);
    for (const QString& warning : std::as_const(m_serverWarnings))
        summary["warnings"].push_back(text(warning));
    if (!m_armProblem.isEmpty()) {
        summary["status"] = "server_exited";
        summary["warnings"].push_back("the server exited during this arm: " + text(m_armProblem));
        m_problems << QStringLiteral("%1: server exited during the arm").arg(m_run);
    } else {
        summary["status"] = result.stopped ? "stopped" : "completed";
    }
    summary["interrupted"] = m_stopRequested; // Stop, Ctrl-C or a failed write
    if (!result.stats.connectMs.empty())
        summary["connect_ms"] = percentile(result.stats.connectMs, 50);
    if (m_plan)
        m_plan->stepFinished(summary); // sweep/repeat fields and the early-stop decision
    nlohmann::json line = summary;
    line["type"] = "summary";
    m_writer.write(line);
    flushFile();
    if (m_writer.failed())
        m_unsavedSummaries << m_run;
    emit armFinished(m_run, QByteArray::fromStdString(summary.dump()));
    auto recorded = std::make_shared<RunData>();
    recorded->run = m_run;
    recorded->config = config.label;
    recorded->arm = m_armName;
    recorded->info = std::exchange(m_runLine, nlohmann::json());
    recorded->summary = std::move(line);
    recorded->requests = RequestTable::fromRecords(m_run, records);
    emit runRecorded(recorded);
    m_load.release()->deleteLater();
    if (!m_plan)
        ++m_arm; // a probe pass; a load arm moves on when its plan runs out
    QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection);
}

void ExperimentRunner::endConfig()
{
    m_plan.reset();
    m_armProblem.clear();
    ++m_config;
    const bool last = m_config >= m_spec.configs.size() || m_stopRequested;
    if (m_launcher && m_launcher->isRunning() && (last || m_spec.server->restartBetweenConfigs)) {
        stopServerThen(AfterServerStop::StartConfig);
        return;
    }
    QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::finishExperiment()
{
    if (!m_writer.isOpen())
        return;
    if (m_launcher && m_launcher->isRunning()) {
        stopServerThen(AfterServerStop::Finish); // the file closes once the server is gone
        return;
    }
    if (!m_writer.close() && m_writer.failed() && !m_writeFailed) {
        m_writeFailed = true; // the last lines did not get out
        m_problems.prepend(m_writer.error());
    }
    if (m_writeFailed) {
        QString lost = QStringLiteral("the run stopped there; the file keeps every line written before the failure");
        if (!m_unsavedSummaries.isEmpty())
            lost += QStringLiteral(", but not the summary of %1 (shown when the arm ended)")
                        .arg(m_unsavedSummaries.join(QStringLiteral(", ")));
        m_problems.insert(1, lost);
    }
    emit finished(m_problems.join(QLatin1Char('\n')));
}

} // namespace ks
