#include "experiment/experimentrunner.h"

#include "metrics/armverdicts.h"
#include "metrics/percentiles.h"
#include "metrics/tracelateness.h"
#include "metrics/ttftsplit.h"
#include "store/recordjson.h"
#include "store/runline.h"
#include "telemetry/gpusampler.h"
#include "telemetry/hostenvironment.h"
#include "util/qstringtext.h"
#include "util/redact.h"
#include "util/wallclock.h"
#include "workload/workload.h"

#include <QDateTime>

namespace ks {

namespace {

std::string isoNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

} // namespace

ExperimentRunner::ExperimentRunner(ExperimentSpec spec, QString outPath, QObject* parent)
    : RunSource(parent)
    , m_spec(std::move(spec))
    , m_outPath(std::move(outPath))
    , m_server(m_spec, m_outPath, this)
    , m_schedule(m_spec)
    , m_snapshotTimer(this)
    , m_gpu(this)
{
    registerRunSourceTypes();
    m_snapshotTimer.setInterval(int(kSnapshotIntervalUs / 1000));
    connect(&m_gpu, &GpuTelemetry::sampled, this, [this](const GpuSample& sample, const GpuGauges& gauges) {
        m_writer.write(gpuLine(m_run, sample));
        m_snapshots.addGpuSample(gauges);
    });
    connect(&m_gpu, &GpuTelemetry::problem, this, [this](const QString& m) { serverEvent(QStringLiteral("gpu"), m); });
    connect(&m_snapshotTimer, &QTimer::timeout, this, [this] {
        if (m_progressDirty) {
            m_progressDirty = false;
            emit progressed(m_lastProgress);
        }
        if (m_snapshots.dirty() && m_snapshots.inRun())
            takeSnapshot();
    });
    connect(&m_server, &ServerSession::eventOccurred, this, &ExperimentRunner::serverEvent);
    connect(&m_server, &ServerSession::lineOutput, this, [this](const QString& line) { emit serverLine(line); });
    connect(&m_server, &ServerSession::launching, this,
        [this](const ServerLaunch& launch) { emit serverStarting(launch); });
    connect(&m_server, &ServerSession::becameReady, this, &ExperimentRunner::probeServerThenStartArm);
    connect(&m_server, &ServerSession::launchFailed, this, &ExperimentRunner::onServerFailed);
    connect(&m_server, &ServerSession::exitedUnexpectedly, this, [this](const QString& message) {
        m_armProblem = message;
        if (m_load)
            m_load->stop(); // ends this arm; the runner moves to the next configuration
    });
    connect(&m_server, &ServerSession::scraped, this, &ExperimentRunner::writeServerSample);
    connect(&m_server, &ServerSession::stoppedThen, this, &ExperimentRunner::onServerStopped);
    connect(&m_server, &ServerSession::versionKnown, this,
        [this] { QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection); });
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
    nlohmann::json experiment = { { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope " KNOBSCOPE_VERSION },
        { "started_at", isoNow() }, { "spec", redactSpec(m_spec.raw) }, { "environment", hostEnvironment() } };
    if (!m_spec.calibration.is_null()) // run --aa N: readCalibration() knows the file by it
        experiment["calibration"] = m_spec.calibration;
    m_writer.write(experiment);
    if (!m_writer.flush()) {
        const QString problem = m_writer.error();
        m_writer.close();
        return problem;
    }
    emit experimentStarted(experimentInfoFromLine(experiment));
    if (m_spec.search)
        m_search = std::make_unique<SearchDriver>(m_spec);
    if (m_spec.rounds.until)
        m_judge.emplace(m_spec, m_outPath);
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
    m_server.abandon();
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
    // current step returns. The arm's summary still reaches runFinished(), so
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

void ExperimentRunner::restartServer()
{
    if (m_server.isRunning())
        m_server.stopThen(ServerSession::AfterStop::LaunchServer);
    else
        launchServer();
}

void ExperimentRunner::launchServer()
{
    if (m_stopRequested) {
        finishExperiment();
        return;
    }
    m_server.launch(m_spec.configs[m_config]);
}

void ExperimentRunner::onServerStopped(ServerSession::AfterStop next)
{
    if (m_stopRequested || next == ServerSession::AfterStop::Finish)
        finishExperiment();
    else if (next == ServerSession::AfterStop::LaunchServer)
        QMetaObject::invokeMethod(this, &ExperimentRunner::launchServer, Qt::QueuedConnection);
    else
        QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::onServerFailed(const QString& message)
{
    m_problems << QStringLiteral("%1: %2").arg(m_spec.configs[m_config].label, message);
    if (m_search) // a probe that could not start has no figure
        concludeSearchProbe();
    m_failed.resize(std::max(m_failed.size(), m_config + 1));
    m_failed[m_config] = true; // this configuration cannot run; the next one may
    nextVisit();
    QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::probeServerThenStartArm()
{
    if (m_server.hasVersion()) // asked once per server
        startArm();
    else
        m_server.askVersion();
}

void ExperimentRunner::writeServerSample(const ServerSample& s)
{
    auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json line = { { "type", "server" }, { "run", text(m_run) }, { "t_us", s.tUs },
        { "running", value(s.running) }, { "waiting", value(s.waiting) }, { "kv_cache_usage", value(s.kvCacheUsage) },
        { "engine", text(s.engine) } };
    if (s.specDecode) {
        line["spec_decode"] = specDecodeJson(*s.specDecode);
        m_snapshots.addSpecDecode(*s.specDecode);
    }
    m_writer.write(line);
    m_snapshots.addServerSample(s.running.value_or(-1), s.waiting.value_or(-1), s.kvCacheUsage.value_or(-1));
    m_serverTally.add(s);
}

void ExperimentRunner::startArm()
{
    // Probe passes run in a configuration's first visit.
    const std::size_t steps = m_round > 1 ? m_spec.arms.size() : ArmPlan::stepsPerConfig(m_spec);
    if (m_stopRequested || m_arm >= steps || !m_armProblem.isEmpty()) {
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
            m_plan = std::make_unique<ArmPlan>(m_spec, config, m_spec.arms[m_arm], m_round);
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
    m_snapshots.beginRun(m_run, config.label, config.model, m_probeRestart);
    m_serverTally = {};
    m_load = std::make_unique<LoadRunner>(load);
    m_concurrencyNow = load.mode == LoadSpec::Mode::Concurrency ? load.concurrency : 0;
    m_rateNow = load.mode == LoadSpec::Mode::Rate ? load.rate : 0;
    const nlohmann::json prompts = probePass ? nlohmann::json() : Workload::identity(load);
    connect(m_load.get(), &LoadRunner::started, this, [this, &config, prompts](qint64 t0) {
        m_t0Us = t0;
        m_armRunning = true;
        nlohmann::json line = { { "type", "run" }, { "run", text(m_run) }, { "config", text(config.label) },
            { "arm", text(m_armName) }, { "t0_wall", isoNow() }, { "t0_monotonic_us", t0 }, { "knobs", config.knobs },
            { "config_index", m_config }, { "model", text(config.model) }, { "ticks", true },
            { "t0_unix_us", unixUsAtMonotonic(t0) } };
        if (!config.grid.is_null())
            line["grid"] = config.grid;
        line.update(m_runFields);
        if (!config.search.is_null())
            line["search"] = config.search;
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
        if (m_server.hasVersion())
            line["server_version"] = m_server.version();
        flushFile();
        m_runOffset = m_writer.bytesWritten(); // the arm's lines start here (readBackRecords)
        m_writer.write(line);
        flushFile();
        m_runLine = std::move(line);
        m_server.startScraping(t0);
        m_gpu.start(t0);
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
    emit runStarted({ m_run, config.label, m_armName, config.model, nextRunIndex(), runTotal(), {} });
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

std::vector<RequestRecord> ExperimentRunner::readBackRecords(const QStringList& runs)
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
            if (decoded.kind == RunLine::Kind::Request && runs.contains(decoded.run))
                records.push_back(std::move(decoded.request));
        },
        &error);
    if (!error.isEmpty())
        m_problems << error;
    return records;
}

void ExperimentRunner::onArmFinished(const LoadResult& result)
{
    m_armRunning = false;
    m_gpu.stop();
    m_snapshotTimer.stop();
    m_server.finishScraping([this, result] { concludeArm(result); });
}

void ExperimentRunner::concludeArm(const LoadResult& result)
{
    if (m_progressDirty) {
        m_progressDirty = false;
        emit progressed(m_lastProgress);
    }
    if (m_snapshots.inRun()) {
        takeSnapshot(); // the final state
        m_snapshots.endRun();
    }
    flushFile();
    endSegment();
    std::vector<Segment> segments = std::exchange(m_segments, {});
    QStringList runs;
    for (const Segment& segment : segments)
        runs << segment.run;
    std::vector<RequestRecord> records = readBackRecords(runs);
    for (std::size_t i = 0; i < segments.size(); ++i) {
        std::vector<RequestRecord> own;
        if (segments.size() == 1) {
            own = std::move(records);
        } else {
            for (const RequestRecord& r : records)
                if (r.run == segments[i].run)
                    own.push_back(r);
        }
        finishRun(std::move(segments[i]), std::move(own), result, i + 1 == segments.size(), segments.size() == 1);
    }
    m_load.release()->deleteLater();
    if (!m_plan)
        ++m_arm; // a probe pass; a load arm moves on when its plan runs out
    QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection);
}

void ExperimentRunner::finishRun(
    Segment segment, std::vector<RequestRecord> records, const LoadResult& result, bool last, bool wholeArm)
{
    const ConfigSpec& config = m_spec.configs[m_config];
    const QString& run = segment.run;
    nlohmann::json summary = summarizeRun(run, config.label, segment.arm, records, m_spec.slo, clientLoadOf(result));
    const MetricsScraper* scraper = m_server.scraper();
    if (scraper && wholeArm) // vLLM's histograms (over the whole arm), where the records give no better split
        offerHistogramSplit(summary, scraper->firstHistograms(), scraper->lastHistograms());
    if (m_probeRestart >= 0)
        summary["drift"] = m_snapshots.drift().runSummary(config.label, m_probeRestart, int(m_probeSet->probes.size()));
    if (m_probeRestart < 0 && m_arm < m_spec.arms.size() && m_spec.arms[m_arm].mode == LoadSpec::Mode::Trace) {
        summary["trace"] = traceLateness(records); // how well the client kept the recorded schedule
        if (const std::string late = traceLatenessWarning(summary["trace"], summary.value("requests", 0));
            !late.empty())
            summary["warnings"].push_back(late);
    }
    summary["knobs"] = config.knobs; // each summary alone says what it measured (a grid's point)
    summary["model"] = text(config.model);
    summary["server"] = segment.server.summary(m_server.metricsProblem(), scraper);
    segment.server.writeSpecDecode(summary, scraper && last ? scraper->finalSpecDecode() : std::nullopt);
    if (!segment.gpu.is_null())
        summary["gpu"] = std::move(segment.gpu);
    if (scraper && scraper->failures() > 0 && last)
        summary["warnings"].push_back(scrapeGapWarning(*scraper));
    const auto mns = config.knobText(QStringLiteral("max_num_seqs"));
    addGentleVerdict(summary, records, m_probeRestart < 0, segment.server.samples, segment.server.samplesWaiting,
        mns ? std::optional<int>(mns->toInt()) : std::nullopt);
    for (const QString& warning : m_server.warnings())
        summary["warnings"].push_back(text(warning));
    if (!m_armProblem.isEmpty() && last) {
        summary["status"] = "server_exited";
        summary["warnings"].push_back("the server exited during this arm: " + text(m_armProblem));
        m_problems << QStringLiteral("%1: server exited during the arm").arg(run);
    } else {
        summary["status"] = result.stopped && last ? "stopped" : "completed";
    }
    summary["interrupted"] = m_stopRequested; // Stop, Ctrl-C or a failed write
    if (!result.stats.connectMs.empty())
        summary["connect_ms"] = percentile(result.stats.connectMs, 50);
    if (!segment.sweep.is_null()) // a steered arm's segments are the steps of a sweep over that setting
        summary["sweep"] = std::move(segment.sweep);
    if (!segment.control.is_null())
        summary["control"] = std::move(segment.control);
    if (m_plan && last)
        m_plan->stepFinished(summary); // sweep/repeat fields and the early-stop decision
    nlohmann::json line = summary;
    line["type"] = "summary";
    m_writer.write(line);
    flushFile();
    if (m_writer.failed())
        m_unsavedSummaries << run;
    emit runFinished(run, runSummaryFromJson(std::move(summary)));
    auto recorded = std::make_shared<RunData>();
    recorded->run = run;
    recorded->config = config.label;
    recorded->arm = segment.arm;
    recorded->info = std::move(segment.runLine);
    recorded->summary = std::move(line);
    recorded->requests = RequestTable::fromRecords(run, records);
    if (m_search)
        m_search->keepRun(m_config, recorded, m_stopRequested);
    emit runRecorded(recorded);
}

void ExperimentRunner::finishExperiment()
{
    if (!m_writer.isOpen())
        return;
    if (m_server.isRunning()) {
        m_server.stopThen(ServerSession::AfterStop::Finish); // the file closes once the server is gone
        return;
    }
    writeStoppedRound();
    if (const nlohmann::json search = m_search ? m_search->takeLine(m_stopRequested) : nullptr; !search.is_null()) {
        m_writer.write(search); // once, before the file closes
        emit searchEnded(search);
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
