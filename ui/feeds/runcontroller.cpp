#include "runcontroller.h"

#include "experiment/experimentrunner.h"

namespace ks {

RunController::RunController(QObject* parent)
    : QObject(parent)
{
    registerRunSourceTypes();
}

RunController::~RunController()
{
    if (m_runner)
        QMetaObject::invokeMethod(m_runner, &ExperimentRunner::stop, Qt::QueuedConnection);
    cleanUp();
}

void RunController::start(const ExperimentSpec& spec, const QString& outPath)
{
    if (m_thread)
        return;
    m_outPath = outPath;
    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("experiment"));
    auto* runner = new ExperimentRunner(spec, outPath);
    m_runner = runner;
    runner->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, runner, &QObject::deleteLater);
    emit sourceStarted(runner); // before the thread runs: no signal of the runner is missed
    connect(runner, &ExperimentRunner::finished, this, [this](const QString& message) {
        cleanUp();
        emit finished(message);
    });
    m_thread->start();
    QMetaObject::invokeMethod(runner, [this, runner] {
        // In the worker thread: the runner creates its network objects there.
        const QString error = runner->start();
        if (!error.isEmpty())
            QMetaObject::invokeMethod(this, [this, error] {
                cleanUp();
                emit finished(error);
            });
    });
}

RunSource* RunController::source() const
{
    return m_runner;
}

void RunController::stop()
{
    if (m_runner)
        QMetaObject::invokeMethod(m_runner, &ExperimentRunner::stop, Qt::QueuedConnection);
}

void RunController::steer(int concurrency)
{
    ask(QStringLiteral("concurrency %1").arg(concurrency),
        [concurrency](ExperimentRunner* runner) { return runner->steer(concurrency); });
}

void RunController::steerRate(double rate)
{
    ask(QStringLiteral("rate ") + sweepValueText(rate),
        [rate](ExperimentRunner* runner) { return runner->steerRate(rate); });
}

void RunController::ask(const QString& setting, std::function<QString(ExperimentRunner*)> steer)
{
    if (!m_runner) {
        emit steerAnswered(setting, tr("no experiment is running"));
        return;
    }
    QMetaObject::invokeMethod(m_runner, [this, runner = m_runner, setting, steer = std::move(steer)] {
        const QString refused = steer(runner); // in the runner's thread
        QMetaObject::invokeMethod(this, [this, setting, refused] { emit steerAnswered(setting, refused); });
    });
}

void RunController::cleanUp()
{
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_runner = nullptr;
}

} // namespace ks
