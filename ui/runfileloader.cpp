#include "runfileloader.h"

#include "metrics/comparison.h"

#include <QThread>

namespace ks {

RunFileLoader::~RunFileLoader()
{
    ++m_generation; // results still in flight are dropped
    for (QThread* thread : m_threads) {
        thread->wait();
        delete thread;
    }
}

void RunFileLoader::startJob(std::function<void()> job)
{
    // Finished threads are reaped here, on the GUI thread.
    std::erase_if(m_threads, [](QThread* t) {
        if (!t->isFinished())
            return false;
        delete t;
        return true;
    });
    QThread* thread = QThread::create(std::move(job));
    m_threads.push_back(thread);
    thread->start(QThread::LowPriority);
}

void RunFileLoader::deliver(quint64 generation, std::shared_ptr<const LoadedRunFile> result)
{
    QMetaObject::invokeMethod(this, [this, generation, result] {
        if (generation != m_generation)
            return; // a newer load or baseline won
        m_current = result;
        emit loaded(result);
    });
}

void RunFileLoader::load(const QString& path, const QString& baseline, bool withIntervals)
{
    const quint64 generation = ++m_generation;
    startJob([this, generation, path, baseline, withIntervals] {
        auto result = std::make_shared<LoadedRunFile>();
        result->path = path;
        result->baseline = baseline;
        auto report = [this, generation](int percent, const QString& what) {
            QMetaObject::invokeMethod(this, [this, generation, percent, what] {
                if (generation == m_generation)
                    emit progress(percent, what);
            });
        };
        report(0, tr("Reading %1").arg(path));
        QString error;
        auto file = std::make_shared<RunFile>();
        if (!readRunFile(path, file.get(), &error, [&](qint64 done, qint64 total) {
                report(int(total > 0 ? done * 80 / total : 0), tr("Reading %1").arg(path));
            })) {
            result->error = error;
            deliver(generation, result);
            return;
        }
        result->file = file;
        report(85, tr("Comparing configurations"));
        CompareOptions quick;
        quick.baseline = baseline;
        quick.resamples = 0;
        result->compare = compareRuns(*result->file, quick, &error);
        nlohmann::json set;
        const std::vector<ProbePass> passes = probePassesOf(*result->file, 0, &set);
        result->hasProbes = !passes.empty();
        if (result->hasProbes)
            result->drift = analyzeDrift(passes, set);
        report(100, tr("Computing 95 % intervals"));
        deliver(generation, result);
        if (!withIntervals || generation != m_generation)
            return;
        auto full = std::make_shared<LoadedRunFile>(*result);
        CompareOptions options;
        options.baseline = baseline;
        full->compare = compareRuns(*full->file, options, &error);
        full->intervals = true;
        deliver(generation, full);
    });
}

void RunFileLoader::setBaseline(const QString& baseline)
{
    if (!m_current || m_current->baseline == baseline)
        return;
    const quint64 generation = ++m_generation;
    std::shared_ptr<const LoadedRunFile> base = m_current;
    startJob([this, generation, base, baseline] {
        QString error;
        auto quick = std::make_shared<LoadedRunFile>(*base);
        quick->baseline = baseline;
        CompareOptions options;
        options.baseline = baseline;
        options.resamples = 0;
        quick->compare = compareRuns(*quick->file, options, &error);
        quick->intervals = false;
        deliver(generation, quick);
        auto full = std::make_shared<LoadedRunFile>(*quick);
        options.resamples = 1000;
        full->compare = compareRuns(*full->file, options, &error);
        full->intervals = true;
        deliver(generation, full);
    });
}

} // namespace ks
