#include "run/jsonlreplay.h"

#include "store/recordjson.h"

#include <nlohmann/json.hpp>

namespace ks {

namespace {
constexpr int kTickMs = 50; // batches reach the consumer at most 20 times a second
constexpr int kLinesPerFastTick = 20000;
} // namespace

JsonlReplay::JsonlReplay(QString path, double speed, QObject* parent)
    : RunSource(parent)
    , m_path(std::move(path))
    , m_speed(speed)
{
    qRegisterMetaType<RunInfo>();
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
        QByteArray line;
        if (!m_heldLine.isEmpty()) {
            line = std::exchange(m_heldLine, {});
        } else if (m_file.atEnd()) {
            finish();
            return;
        } else {
            line = m_file.readLine();
            ++m_line;
        }
        if (!handleLine(line)) {
            m_heldLine = line; // a paced record that is not due yet
            break;
        }
    }
    flush();
}

bool JsonlReplay::handleLine(const QByteArray& raw)
{
    const bool complete = raw.endsWith('\n');
    const QByteArray line = complete ? raw.chopped(1) : raw;
    if (line.trimmed().isEmpty())
        return true;
    const nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string()) {
        emit issueFound(m_line,
            !complete && m_file.atEnd() ? QStringLiteral("truncated last line (the writer was stopped mid-line)")
                                        : QStringLiteral("not a JSON object with a \"type\""));
        return true;
    }
    const std::string type = j["type"].get<std::string>();
    if (type == "run") {
        flush();
        RunInfo info;
        info.run = QString::fromStdString(j.value("run", ""));
        info.config = QString::fromStdString(j.value("config", ""));
        info.arm = QString::fromStdString(j.value("arm", ""));
        info.model = QString::fromStdString(j.value("model", ""));
        info.json = line;
        m_currentRun = info.run;
        m_runTimeMs = 0;
        emit runStarted(info);
    } else if (type == "request") {
        QString problem;
        std::optional<RequestRecord> record = requestFromJson(j, &problem);
        if (!record) {
            emit issueFound(m_line, problem);
            return true;
        }
        if (m_speed > 0) {
            const double dueMs = double(record->tSendUs + std::max<qint64>(0, record->e2eUs)) / 1000.0;
            if (m_runTimeMs < dueMs)
                return false;
        }
        m_batch.push_back(std::move(*record));
    } else if (type == "server") {
        auto number
            = [&j](const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : -1.0; };
        emit serverSampled(QString::fromStdString(j.value("run", "")), j.value("t_us", qint64(0)), number("running"),
            number("waiting"), number("kv_cache_usage"));
    } else if (type == "server_event") {
        emit serverEventRead(QString::fromStdString(j.value("run", "")), QString::fromStdString(j.value("event", "")),
            QString::fromStdString(j.value("detail", "")));
    } else if (type == "summary") {
        flush();
        emit runFinished(QString::fromStdString(j.value("run", "")), line);
    }
    return true;
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
