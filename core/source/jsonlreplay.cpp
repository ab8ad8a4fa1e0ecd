#include "source/jsonlreplay.h"
#include "telemetry/gputelemetry.h"

#include "store/runline.h"

#include <nlohmann/json.hpp>

namespace ks {

namespace {
constexpr int kTickMs = 50; // batches reach the consumer at most 20 times a second
constexpr int kLinesPerFastTick = 20000;
} // namespace

JsonlReplay::JsonlReplay(QString path, double speed, QObject* parent)
    : QObject(parent)
    , m_path(std::move(path))
    , m_speed(speed)
{
    registerRunSourceTypes();
    qRegisterMetaType<QVector<RequestRecord>>();
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &JsonlReplay::tick);
}

void JsonlReplay::start()
{
    m_file.setFileName(m_path);
    if (!m_file.open(QIODevice::ReadOnly)) {
        m_error = QStringLiteral("cannot read %1: %2").arg(m_path, m_file.errorString());
        emit issueFound(0, m_error);
        finish();
        return;
    }
    m_timer.start();
    QTimer::singleShot(0, this, &JsonlReplay::tick);
}

void JsonlReplay::stop()
{
    if (!m_done)
        finish();
}

void JsonlReplay::setPaused(bool paused)
{
    m_paused = paused;
}

void JsonlReplay::setSpeed(double speed)
{
    m_speed = std::max(0.0, speed);
}

void JsonlReplay::tick()
{
    if (!m_wall.isValid())
        m_wall.start();
    const qint64 wallMs = m_wall.restart();
    if (m_paused || m_done)
        return;
    m_runTimeMs += double(wallMs) * m_speed;
    int budget = kLinesPerFastTick;
    while (budget-- > 0) {
        if (m_held) {
            if (!isDue(m_held->tSendUs + std::max<qint64>(0, m_held->e2eUs)))
                break; // a paced record that is not due yet
            m_batch.push_back(std::move(*m_held));
            m_held.reset();
            continue;
        }
        if (m_heldTick) {
            if (!isDue(m_heldTick->second))
                break;
            releaseTick(m_heldTick->first, m_heldTick->second);
            m_heldTick.reset();
            continue;
        }
        if (m_file.atEnd()) {
            finish();
            return;
        }
        const QByteArray line = m_file.readLine();
        ++m_line;
        handleLine(line);
    }
    flush();
}

bool JsonlReplay::isDue(qint64 runTimeUs) const
{
    return m_speed <= 0 || m_runTimeMs >= double(runTimeUs) / 1000.0;
}

void JsonlReplay::releaseTick(const QString& run, qint64 tUs)
{
    flush(); // every record before the tick reaches the consumer first
    emit snapshotTaken(run, tUs);
}

void JsonlReplay::handleLine(const QByteArray& raw)
{
    const bool complete = raw.endsWith('\n');
    const QByteArrayView line = complete ? QByteArrayView(raw).chopped(1) : QByteArrayView(raw);
    std::vector<RunFileIssue> issues;
    RunLine decoded = readRunLine(line, m_line, issues, m_currentRun.isEmpty() ? nullptr : &m_currentRun);
    if (!complete && m_file.atEnd() && decoded.kind == RunLine::Kind::Skipped) {
        emit issueFound(m_line, QStringLiteral("truncated last line (the writer was stopped mid-line)"));
        return;
    }
    for (const RunFileIssue& issue : issues)
        emit issueFound(issue.line, issue.message);
    const nlohmann::json& j = decoded.object;
    switch (decoded.kind) {
    case RunLine::Kind::Experiment:
        emit experimentRead(experimentInfoFromLine(j));
        break;
    case RunLine::Kind::Run: {
        flush();
        RunInfo info;
        info.run = decoded.run;
        info.config = QString::fromStdString(j.value("config", std::string()));
        info.arm = QString::fromStdString(j.value("arm", std::string()));
        info.model = QString::fromStdString(j.value("model", std::string()));
        info.line = j;
        m_currentRun = info.run;
        m_runTimeMs = 0;
        emit runStarted(info);
        break;
    }
    case RunLine::Kind::Request:
        if (isDue(decoded.request.tSendUs + std::max<qint64>(0, decoded.request.e2eUs)))
            m_batch.push_back(std::move(decoded.request));
        else
            m_held = std::move(decoded.request);
        break;
    case RunLine::Kind::Tick: {
        const auto t = j.find("t_us");
        if (t == j.end())
            break; // dropped as out of range or of the wrong type (an issue says so)
        if (isDue(t->get<qint64>()))
            releaseTick(decoded.run, t->get<qint64>());
        else
            m_heldTick = std::pair { decoded.run, t->get<qint64>() };
        break;
    }
    case RunLine::Kind::Server: {
        auto number
            = [&j](const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : -1.0; };
        emit serverSampled(
            decoded.run, j.value("t_us", qint64(0)), number("running"), number("waiting"), number("kv_cache_usage"));
        if (const auto spec = specDecodeFromJson(j.value("spec_decode", nlohmann::json())))
            emit specDecodeSampled(decoded.run, *spec);
        break;
    }
    case RunLine::Kind::Gpu:
        emit gpuSampled(decoded.run, j.value("t_us", qint64(0)), gpuGaugesOf(j.value("gpus", nlohmann::json())));
        break;
    case RunLine::Kind::ServerEvent:
        emit serverEventRead(decoded.run, QString::fromStdString(j.value("event", std::string())),
            QString::fromStdString(j.value("detail", std::string())));
        break;
    case RunLine::Kind::Summary:
        flush();
        emit summaryRead(decoded.run, j);
        break;
    case RunLine::Kind::Round:
        flush();
        emit roundRead(j);
        break;
    case RunLine::Kind::SearchProbe:
        flush();
        emit searchProbeRead(j);
        break;
    case RunLine::Kind::Search:
        flush();
        emit searchRead(j);
        break;
    default:
        break;
    }
}

void JsonlReplay::flush()
{
    if (m_batch.isEmpty())
        return;
    emit recordsReady(m_batch);
    m_batch.clear();
}

void JsonlReplay::finish()
{
    m_done = true;
    m_timer.stop();
    flush();
    emit finished();
}

} // namespace ks
