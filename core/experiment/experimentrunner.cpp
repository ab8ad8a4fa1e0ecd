#include "experiment/experimentrunner.h"

#include "experiment/armsummary.h"
#include "experiment/runlines.h"
#include "store/recordjson.h"
#include "telemetry/gpusampler.h"
#include "util/monotonicclock.h"
#include "util/qstringtext.h"
#include "workload/workload.h"

namespace ks {

ExperimentRunner::ExperimentRunner(ExperimentSpec spec, QString outPath, QObject* parent)
    : RunSource(parent)
    , m_spec(std::move(spec))
    , m_outPath(std::move(outPath))
    , m_server(m_spec, m_outPath, this)
    , m_visits(m_spec, m_outPath)
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
    const nlohmann::json experiment = experimentLine(m_spec);
    m_writer.write(experiment);
    if (!m_writer.flush()) {
        const QString problem = m_writer.error();
        m_writer.close();
        return problem;
    }
    emit experimentStarted(experimentInfoFromLine(experiment));
    if (m_spec.search)
        m_search = std::make_unique<SearchDriver>(m_spec);
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
    m_writer.write(
        serverEventLine(m_run, m_armRunning ? std::optional(monotonicUs() - m_t0Us) : std::nullopt, event, detail));
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
    m_visits.markFailed(m_config); // this configuration cannot run; the next one may
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
    m_writer.write(serverSampleLine(m_run, s));
    if (s.specDecode)
        m_snapshots.addSpecDecode(*s.specDecode);
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
    m_steering.beginArm(load);
    const nlohmann::json prompts = probePass ? nlohmann::json() : Workload::identity(load);
    connect(m_load.get(), &LoadRunner::started, this, [this, &config, prompts](qint64 t0) {
        m_t0Us = t0;
        m_armRunning = true;
        nlohmann::json line = runLine({ m_run, m_armName, config, m_config, t0, m_runFields, m_runLineExtra,
            m_probeRestart >= 0 ? probesField(*m_probeSet, *m_spec.probes, m_probeRestart) : nlohmann::json(), prompts,
            m_server.hasVersion() ? nlohmann::json(m_server.version()) : nlohmann::json() });
        flushFile();
        m_runOffset = m_writer.bytesWritten(); // the arm's lines start here (recordsWrittenSince)
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
    std::vector<ArmSteering::Segment> segments = m_steering.takeSegments();
    QStringList runs;
    for (const ArmSteering::Segment& segment : segments)
        runs << segment.run;
    QString readError;
    std::vector<RequestRecord> records = recordsWrittenSince(m_writer, m_runOffset, runs, m_run, &readError);
    if (!readError.isEmpty())
        m_problems << readError;
    std::vector<std::vector<RequestRecord>> bySegment = ArmSteering::splitBySegment(std::move(records), segments);
    for (std::size_t i = 0; i < segments.size(); ++i)
        finishRun(
            std::move(segments[i]), std::move(bySegment[i]), result, i + 1 == segments.size(), segments.size() == 1);
    m_load.release()->deleteLater();
    if (!m_plan)
        ++m_arm; // a probe pass; a load arm moves on when its plan runs out
    QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection);
}

void ExperimentRunner::finishRun(ArmSteering::Segment segment, std::vector<RequestRecord> records,
    const LoadResult& result, bool last, bool wholeArm)
{
    const ConfigSpec& config = m_spec.configs[m_config];
    const QString run = segment.run;
    const bool probePass = m_probeRestart >= 0;
    const nlohmann::json drift = probePass
        ? m_snapshots.drift().runSummary(config.label, m_probeRestart, int(m_probeSet->probes.size()))
        : nlohmann::json();
    const bool trace = !probePass && m_arm < m_spec.arms.size() && m_spec.arms[m_arm].mode == LoadSpec::Mode::Trace;
    // config, slo, server, drift, loadArm, trace, serverExited, interrupted, last, wholeArm:
    const ArmSummaryContext context { config, m_spec.slo, m_server, drift, !probePass, trace, m_armProblem,
        m_stopRequested, last, wholeArm };
    nlohmann::json summary = armSummary(segment, records, result, context);
    if (!m_armProblem.isEmpty() && last)
        m_problems << QStringLiteral("%1: server exited during the arm").arg(run);
    if (m_plan && last)
        m_plan->stepFinished(summary); // sweep/repeat fields and the early-stop decision
    nlohmann::json line = summary;
    line["type"] = "summary";
    m_writer.write(line);
    flushFile();
    if (m_writer.failed())
        m_unsavedSummaries << run;
    emit runFinished(run, runSummaryFromJson(std::move(summary)));
    // As the file's reader gives it back: the summary line, its "type" included.
    auto recorded = std::make_shared<RunData>(RunData { run, config.label, segment.arm, std::move(segment.runLine),
        runSummaryFromJson(std::move(line)), RequestTable::fromRecords(run, records) });
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
    if (m_stopRequested && !m_writeFailed)
        if (const std::optional<RoundDecision> decision = m_visits.stopped())
            writeRound(*decision);
    if (const nlohmann::json search = m_search ? m_search->takeLine(m_stopRequested) : nullptr; !search.is_null()) {
        m_writer.write(search); // once, before the file closes
        emit searchEnded(search);
    }
    if (!m_writer.close() && m_writer.failed() && !m_writeFailed) {
        m_writeFailed = true; // the last lines did not get out
        m_problems.prepend(m_writer.error());
    }
    if (m_writeFailed)
        m_problems.insert(1, lostLinesNote(m_unsavedSummaries));
    emit finished(m_problems.join(QLatin1Char('\n')));
}

// The order of visits (VisitOrder; docs/experiments.md, "Repeats").
void ExperimentRunner::startConfig()
{
    std::optional<Visit> visit;
    while (!m_stopRequested && (visit = m_visits.current(m_spec.configs.size())) && m_visits.failed(visit->config))
        nextVisit(); // its server could not start in an earlier round
    if (m_stopRequested || !visit) {
        finishExperiment();
        return;
    }
    m_config = visit->config;
    m_round = visit->round;
    m_arm = 0;
    m_runInConfig = 0;
    m_restartedForProbes = false;
    m_run = m_spec.configs[m_config].label;
    // With restarts between configurations every visit gets a fresh server,
    // also the next round of the one configuration there is.
    if (m_spec.server && (!m_server.isUp() || m_spec.server->restartBetweenConfigs))
        restartServer();
    else
        probeServerThenStartArm();
}

void ExperimentRunner::concludeSearchProbe()
{
    m_search->concludeProbe(m_config, m_stopRequested, m_problems);
    if (const nlohmann::json line = m_search->takeProbeLine(); !line.is_null()) {
        m_writer.write(line);
        emit searchProbed(line);
    }
}

void ExperimentRunner::endConfig()
{
    m_plan.reset();
    m_armProblem.clear();
    if (m_search)
        concludeSearchProbe();
    nextVisit();
    const bool last = !m_visits.current(m_spec.configs.size()) || m_stopRequested;
    if (m_server.isRunning() && (last || m_spec.server->restartBetweenConfigs)) {
        m_server.stopThen(ServerSession::AfterStop::StartConfig);
        return;
    }
    QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::nextVisit()
{
    const std::optional<int> round = m_visits.advance(m_spec.configs.size());
    // A round cut short: a stopped experiment says so once, as it closes (finishExperiment).
    if (!round || m_stopRequested || !m_visits.roundEnded(*round) || m_writeFailed)
        return;
    flushFile(); // the judge reads the file
    if (const std::optional<RoundDecision> decision = m_visits.judge(*round)) // none before the first look
        writeRound(*decision);
}

void ExperimentRunner::writeRound(const RoundDecision& decision)
{
    m_writer.write(roundLine(decision));
    flushFile();
    if (!decision.problem.isEmpty())
        m_problems << decision.problem;
    emit roundDecided(decision);
}

int ExperimentRunner::nextRunIndex()
{
    return m_visits.runsBefore() + m_runInConfig++;
}

int ExperimentRunner::runTotal() const
{
    // Sweeps may stop early and rounds end when decided, so the total is an
    // estimate (docs/experiments.md, "Sweeps" and "Repeats").
    return m_visits.totalRuns(m_search ? m_search->plannedConfigs() : m_spec.configs.size());
}

// Live control of a running arm (docs/experiments.md, "Steering").
void ExperimentRunner::endSegment()
{
    m_steering.endSegment(m_run, m_armName, std::exchange(m_runLine, nlohmann::json()),
        std::exchange(m_serverTally, {}), m_gpu.takeSummary());
}

void ExperimentRunner::finishArmGently()
{
    m_stopRequested = true; // no arm after this one
    if (m_load && m_armRunning)
        m_load->drain();
    else
        stop();
}

ArmSteering::ArmState ExperimentRunner::armState() const
{
    return { m_load.get(), m_armRunning, m_stopRequested, m_probeRestart >= 0, !m_runFields.empty() };
}

QString ExperimentRunner::steer(int concurrency)
{
    QString refusal;
    if (const auto change = m_steering.steer(concurrency, armState(), m_run, m_armName, &refusal))
        startSegment(*change);
    return refusal;
}

QString ExperimentRunner::steerRate(double rate)
{
    QString refusal;
    if (const auto change = m_steering.steerRate(rate, armState(), m_run, m_armName, &refusal))
        startSegment(*change);
    return refusal;
}

void ExperimentRunner::startSegment(const ArmSteering::Change& change)
{
    const qint64 nowUs = monotonicUs() - m_t0Us;
    if (m_snapshots.inRun())
        takeSnapshot(); // the last point of the segment that ends
    endSegment();
    nlohmann::json line = m_steering.startLine(change, nowUs);
    m_writer.write(line);
    flushFile();
    m_runLine = std::move(line);
    m_run = change.run;
    m_armName = change.arm;
    const ConfigSpec& config = m_spec.configs[m_config];
    m_snapshots.beginRun(m_run, config.label, config.model, -1);
    emit runStarted({ m_run, config.label, m_armName, config.model, m_visits.runsBefore() + m_runInConfig - 1,
        runTotal(), m_runLine });
}

} // namespace ks
