// knobscope run SPEC.json: a whole experiment (configurations x arms).
#include "armexecution.h"
#include "commands.h"
#include "progressreporter.h"
#include "run/experimentrunner.h"
#include "run/servercommandcheck.h"
#include "util/unixsignals.h"

#include <QEventLoop>
#include <QFile>

#include <cstdio>
#include <cstdlib>
#include <memory>

int runExperiment(
    const QString& specPath, const QString& outPath, ProgressReporter::Mode progressMode, double maxErrorRate)
{
    QFile file(specPath);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(
            stderr, "knobscope run: cannot read %s: %s\n", qPrintable(specPath), qPrintable(file.errorString()));
        return 2;
    }
    auto parsed = ks::parseExperimentSpec(file.readAll());
    if (auto* errors = std::get_if<std::vector<ks::SpecError>>(&parsed)) {
        for (const ks::SpecError& e : *errors)
            std::fprintf(stderr, "knobscope run: %s: %s\n", qPrintable(specPath), qPrintable(e.toString()));
        std::fprintf(stderr, "knobscope run: %zu problem(s) in the spec; nothing was run\n", errors->size());
        return 2;
    }
    const auto& spec = std::get<ks::ExperimentSpec>(parsed);
    QStringList warnings;
    for (const ks::ConfigSpec& config : spec.configs) {
        for (const QString& warning : ks::serverCommandWarnings(spec.serverCommand(config)))
            if (!warnings.contains(warning))
                warnings << warning;
    }
    for (const QString& warning : std::as_const(warnings))
        std::fprintf(stderr, "knobscope run: warning: %s\n", qPrintable(warning));
    ks::ExperimentRunner runner(std::get<ks::ExperimentSpec>(std::move(parsed)), outPath);
    ks::UnixSignals unixSignals;
    QEventLoop loop;
    std::unique_ptr<ProgressReporter> progress;
    QString problems;
    bool interrupted = false;
    bool errorsAboveThreshold = false;

    QObject::connect(&unixSignals, &ks::UnixSignals::terminationRequested, &loop, [&](int) {
        if (interrupted) {
            // The second one: no waiting for the arm or the server. The file
            // keeps every line so far; the server and its process group are
            // killed (one that ignores SIGTERM must not stay behind).
            runner.abandon();
            std::fprintf(stderr, "knobscope: interrupted again: left at once; %s keeps the records so far\n",
                qPrintable(outPath));
            std::_Exit(kExitInterrupted);
        }
        interrupted = true;
        std::fputs("\nknobscope: stopping: ending this arm, stopping the server and closing the file "
                   "(Ctrl-C again to leave at once)\n",
            stderr);
        runner.stop();
    });
    QObject::connect(&runner, &ks::ExperimentRunner::armStarted, &loop, [&](const QString& run, int index, int total) {
        std::fprintf(stderr, "[%d/%d] %s\n", index + 1, total, qPrintable(run));
        progress = std::make_unique<ProgressReporter>(progressMode);
    });
    QObject::connect(&runner, &ks::ExperimentRunner::progressed, &loop, [&](const ks::LoadProgress& p) {
        if (progress)
            progress->update(p);
    });
    QObject::connect(&runner, &ks::ExperimentRunner::armFinished, &loop, [&](const QString&, const QByteArray& json) {
        if (progress)
            progress->finish();
        const auto summary = nlohmann::json::parse(json.begin(), json.end());
        std::printf("%s\n\n", qPrintable(ks::formatSummaryTable(summary)));
        std::fflush(stdout);
        const int requests = summary.value("requests", 0);
        if (requests > 0 && summary.value("errors", 0) > maxErrorRate * requests)
            errorsAboveThreshold = true;
    });
    QObject::connect(&runner, &ks::ExperimentRunner::finished, &loop, [&](const QString& message) {
        problems = message;
        loop.quit();
    });
    if (const QString error = runner.start(); !error.isEmpty()) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
        return 2;
    }
    loop.exec();
    if (!problems.isEmpty())
        std::fprintf(stderr, "knobscope run: problems during the experiment:\n%s\n", qPrintable(problems));
    if (!runner.fileError().isEmpty()) {
        std::fprintf(stderr, "knobscope run: the run file is incomplete: %s\n", qPrintable(runner.fileError()));
        return 1;
    }
    std::fprintf(stderr, "knobscope run: wrote %s\n", qPrintable(outPath));
    return problems.isEmpty() && !errorsAboveThreshold ? 0 : 1;
}
