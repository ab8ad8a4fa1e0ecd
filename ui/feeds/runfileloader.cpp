#include "runfileloader.h"

#include "compare/calibrationlookup.h"
#include "compare/comparison.h"
#include "import/resultfile.h"
#include "offthreadrelease.h"

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

bool RunFileLoader::useCalibration(LoadedRunFile& result, const CalibrationLookup& lookup)
{
    result.calibration = lookup.calibration;
    result.calibrationNote = lookup.note;
    result.error = lookup.error;
    return lookup.error.isEmpty();
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

void RunFileLoader::load(const QStringList& paths, const QString& baseline, bool withIntervals)
{
    const quint64 generation = ++m_generation;
    const bool allow = m_allowDifferentWorkloads;
    const QString calibrationPath = m_calibrationPath;
    startJob([this, generation, paths, baseline, withIntervals, allow, calibrationPath] {
        auto result = releasedOffGuiThread(new LoadedRunFile);
        result->path = paths.value(0);
        result->otherPath = paths.value(1);
        result->baseline = baseline;
        auto report = [this, generation](int percent, const QString& what) {
            QMetaObject::invokeMethod(this, [this, generation, percent, what] {
                if (generation == m_generation)
                    emit progress(percent, what);
            });
        };
        std::vector<RunFile> files(std::size_t(paths.size()));
        QString error;
        for (int i = 0; i < paths.size(); ++i) {
            const int from = i * 80 / int(paths.size());
            const int span = 80 / int(paths.size());
            report(from, tr("Reading %1").arg(paths[i]));
            if (!readAnyRunFile(paths[i], &files[std::size_t(i)], &error, [&](qint64 done, qint64 total) {
                    report(from + int(total > 0 ? done * span / total : 0), tr("Reading %1").arg(paths[i]));
                })) {
                result->error = error;
                deliver(generation, result);
                return;
            }
        }
        if (!useCalibration(*result, lookUpCalibration(calibrationPath, files[0], paths[0]))) {
            deliver(generation, result);
            return;
        }
        nlohmann::json set;
        std::vector<ProbePass> passes = probePassesOf(files[0], 0, &set);
        if (files.size() == 2) {
            nlohmann::json otherSet;
            std::vector<ProbePass> other = probePassesOf(files[1], 1, &otherSet);
            QString problem;
            if (!other.empty() && (passes.empty() || sameProbeSet(set, otherSet, &problem)))
                std::move(other.begin(), other.end(), std::back_inserter(passes));
            if (set.is_null())
                set = otherSet;
            if (!problem.isEmpty())
                result->drift.problems << problem;
            const auto [first, second] = fileLabels(paths[0], paths[1]);
            result->file = releasedOffGuiThread(new RunFile(mergeRunFiles(files[0], first, files[1], second)));
        } else {
            result->file = releasedOffGuiThread(new RunFile(std::move(files[0])));
        }
        report(85, tr("Comparing configurations"));
        analyze(generation, result, std::move(passes), set, withIntervals, allow);
    });
}

void RunFileLoader::loadPicks(const std::vector<CataloguePick>& picks)
{
    const quint64 generation = ++m_generation;
    const bool allow = m_allowDifferentWorkloads;
    const QString calibrationPath = m_calibrationPath;
    startJob([this, generation, picks, allow, calibrationPath] {
        auto result = releasedOffGuiThread(new LoadedRunFile);
        result->path = picks.empty() ? QString() : picks.front().path;
        QStringList ids;
        for (const CataloguePick& p : picks)
            ids << QStringLiteral("@%1").arg(p.id);
        result->picks = ids.join(QLatin1Char(' '));
        QMetaObject::invokeMethod(this, [this, generation] {
            if (generation == m_generation)
                emit progress(10, tr("Reading the picked runs"));
        });
        RunFile file;
        QString error;
        if (!pickedRunFile(picks, &file, &error)) {
            result->error = error;
            deliver(generation, result);
            return;
        }
        if (!useCalibration(*result, lookUpCalibration(calibrationPath, file, result->path))) {
            deliver(generation, result);
            return;
        }
        nlohmann::json set;
        std::vector<ProbePass> passes = probePassesOf(file, 0, &set);
        result->file = releasedOffGuiThread(new RunFile(std::move(file)));
        analyze(generation, result, std::move(passes), set, true, allow);
    });
}

void RunFileLoader::showLive(std::shared_ptr<const nlohmann::json> experiment,
    std::vector<std::shared_ptr<const RunData>> runs, const QString& path)
{
    const quint64 generation = ++m_generation;
    const QString baseline = m_current ? m_current->baseline : QString();
    const bool allow = m_allowDifferentWorkloads;
    startJob([this, generation, experiment = std::move(experiment), runs = std::move(runs), path, baseline, allow] {
        auto* assembled = new RunFile;
        assembled->experiment = *experiment;
        assembled->runs.reserve(runs.size());
        for (const std::shared_ptr<const RunData>& run : runs)
            assembled->runs.push_back(*run);
        std::shared_ptr<const RunFile> file = releasedOffGuiThread(assembled);
        auto result = releasedOffGuiThread(new LoadedRunFile);
        result->path = path;
        result->baseline = baseline;
        result->file = file;
        result->live = true;
        if (!useCalibration(*result, lookUpCalibration(QString(), *file, path))) {
            deliver(generation, result);
            return;
        }
        nlohmann::json set;
        std::vector<ProbePass> passes = probePassesOf(*file, 0, &set);
        analyze(generation, result, std::move(passes), set, true, allow);
    });
}

void RunFileLoader::analyze(quint64 generation, std::shared_ptr<LoadedRunFile> result, std::vector<ProbePass> passes,
    const nlohmann::json& set, bool withIntervals, bool allowDifferentWorkloads)
{
    QString error;
    CompareOptions quick;
    quick.baseline = result->baseline;
    quick.resamples = 0;
    quick.allowDifferentWorkloads = allowDifferentWorkloads;
    quick.calibration = result->calibration;
    result->comparison = compareRuns(*result->file, quick, &error);
    result->error = error; // a refused comparison (different workloads) says why
    if (result->live && error.isEmpty()) {
        const QStringList knobs = varyingKnobs(result->comparison);
        QString ignored;
        if (knobs.isEmpty()
            || !knobResponse(
                result->comparison, knobs.first(), QStringLiteral("ttft_ms.p99"), &result->liveKnob, &ignored))
            result->liveKnob = KnobResponse();
    }
    result->hasProbes = !passes.empty();
    if (result->hasProbes) {
        const QStringList problems = result->drift.problems;
        result->drift = analyzeDrift(passes, set);
        result->drift.problems = problems;
    }
    deliver(generation, result);
    if (!withIntervals || generation != m_generation)
        return;
    auto full = releasedOffGuiThread(new LoadedRunFile(*result));
    CompareOptions options;
    options.baseline = result->baseline;
    options.allowDifferentWorkloads = allowDifferentWorkloads;
    options.calibration = result->calibration;
    full->comparison = compareRuns(*full->file, options, &error);
    full->intervals = true;
    deliver(generation, full);
}

void RunFileLoader::setBaseline(const QString& baseline)
{
    if (!m_current || m_current->baseline == baseline)
        return;
    recompare(baseline);
}

void RunFileLoader::setAllowDifferentWorkloads(bool allow)
{
    if (m_allowDifferentWorkloads == allow)
        return;
    m_allowDifferentWorkloads = allow;
    if (m_current)
        recompare(m_current->baseline);
}

void RunFileLoader::recompare(const QString& baseline)
{
    const quint64 generation = ++m_generation;
    std::shared_ptr<const LoadedRunFile> base = m_current;
    const bool allow = m_allowDifferentWorkloads;
    startJob([this, generation, base, baseline, allow] {
        QString error;
        auto quick = releasedOffGuiThread(new LoadedRunFile(*base));
        quick->baseline = baseline;
        CompareOptions options;
        options.baseline = baseline;
        options.resamples = 0;
        options.allowDifferentWorkloads = allow;
        options.calibration = base->calibration;
        quick->comparison = compareRuns(*quick->file, options, &error);
        quick->error = error;
        quick->intervals = false;
        deliver(generation, quick);
        auto full = releasedOffGuiThread(new LoadedRunFile(*quick));
        options.resamples = 1000;
        full->comparison = compareRuns(*full->file, options, &error);
        full->intervals = true;
        deliver(generation, full);
    });
}

} // namespace ks
