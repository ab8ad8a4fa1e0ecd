#include "armexecution.h"

#include "store/recordjson.h"
#include "util/unixsignals.h"

#include <QEventLoop>

#include <cstdio>
#include <cstdlib>

ArmOutcome executeArm(const ks::LoadSpec& spec, ks::JsonlWriter* writer, ProgressReporter& progress,
    const std::function<void(qint64)>& onStarted)
{
    ArmOutcome outcome;
    ks::LoadRunner runner(spec);
    ks::UnixSignals unixSignals;
    QEventLoop loop;
    QObject::connect(&unixSignals, &ks::UnixSignals::terminationRequested, &loop, [&](int) {
        if (outcome.interrupted) {
            if (writer)
                writer->close();
            std::fprintf(stderr, "knobscope: interrupted again: left at once; %s keeps the records so far\n",
                writer ? qPrintable(writer->path()) : "the run file");
            std::_Exit(kExitInterrupted);
        }
        outcome.interrupted = true;
        std::fputs("\nknobscope: stopping: cancelling in-flight requests and closing the file "
                   "(Ctrl-C again to leave at once)\n",
            stderr);
        runner.stop();
    });
    auto checkFile = [&] {
        if (!writer || !writer->failed() || !outcome.fileError.isEmpty())
            return;
        outcome.fileError = writer->error(); // nothing more can be recorded: end the arm
        runner.stop();
    };
    QObject::connect(&runner, &ks::LoadRunner::started, &loop, [&](qint64 t0) {
        if (onStarted)
            onStarted(t0);
        checkFile();
    });
    QObject::connect(&runner, &ks::LoadRunner::recordsReady, &loop, [&](const QVector<ks::RequestRecord>& batch) {
        for (const ks::RequestRecord& r : batch) {
            if (writer)
                writer->write(ks::toJson(r));
            outcome.records.push_back(r);
        }
        if (writer)
            writer->flush();
        checkFile();
    });
    QObject::connect(
        &runner, &ks::LoadRunner::progressed, &loop, [&](const ks::LoadProgress& p) { progress.update(p); });
    QObject::connect(&runner, &ks::LoadRunner::finished, &loop, [&](const ks::LoadResult& result) {
        outcome.result = result;
        loop.quit();
    });
    outcome.error = runner.start();
    if (!outcome.error.isEmpty())
        return outcome;
    loop.exec();
    progress.finish();
    return outcome;
}
