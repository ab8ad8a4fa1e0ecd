// knobscope run SPEC.json: a whole experiment (configurations x arms); an
// ad-hoc `run --base-url` comes here too, as a generated one-arm spec.
#include "experimentcommand.h"
#include "stdincontrol.h"

#include "armexecution.h"
#include "experiment/experimentrunner.h"
#include "experiment/steercommand.h"
#include "metricsendpoint.h"
#include "runextras.h"
#include "server/servercommandcheck.h"
#include "spec/calibrationplan.h"
#include "startbarrier.h"
#include "util/redact.h"
#include "util/unixsignals.h"

#include <QSysInfo>

#include <QEventLoop>
#include <QFile>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

// One line per round: each chosen ratio with its interval, then the decision.
QString roundStatusLine(const ks::RoundDecision& d)
{
    QStringList ratios;
    for (const ks::RoundRatio& r : d.ratios) {
        QString text = r.arm + QLatin1Char(' ') + r.ratio;
        if (!r.config.isEmpty())
            text += QLatin1Char(' ') + r.config;
        if (r.value)
            text += QStringLiteral(" %1").arg(*r.value, 0, 'f', 3);
        if (r.ci95)
            text += QStringLiteral(" [%1, %2]").arg(r.ci95->first, 0, 'f', 3).arg(r.ci95->second, 0, 'f', 3);
        ratios << text + (r.decided ? QStringLiteral(" decided") : QStringLiteral(" undecided"));
    }
    const QString head = ratios.isEmpty() ? QString() : ratios.join(QStringLiteral("; ")) + QStringLiteral(": ");
    return QStringLiteral("round %1: %2%3").arg(d.round).arg(head, ks::roundSentence(d));
}

} // namespace

int runExperiment(const QString& specPath, const QString& outPath, ProgressReporter::Mode progressMode,
    double maxErrorRate, const RunExtras& extras)
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
    ks::ExperimentSpec spec = std::get<ks::ExperimentSpec>(std::move(parsed));
    if (extras.calibrationRuns > 0) {
        if (const QString error = ks::applyCalibrationPlan(spec, extras.calibrationRuns, extras.calibrationBaseline);
            !error.isEmpty()) {
            std::fprintf(stderr, "knobscope run: %s: %s\n", qPrintable(specPath), qPrintable(error));
            return 2;
        }
        std::fprintf(stderr, "knobscope run: A/A calibration: %d rounds of %s\n", extras.calibrationRuns,
            qPrintable(spec.configs.front().label));
    }
    if (extras.shard) {
        if (const QString error = ks::applyShard(spec, *extras.shard); !error.isEmpty()) {
            std::fprintf(stderr, "knobscope run: %s: cannot shard: %s\n", qPrintable(specPath), qPrintable(error));
            return 2;
        }
    }
    return runExperimentSpec(std::move(spec), outPath, progressMode, maxErrorRate, extras);
}

int runExperimentSpec(ks::ExperimentSpec spec, const QString& outPath, ProgressReporter::Mode progressMode,
    double maxErrorRate, const RunExtras& extras)
{
    // A sweep may stop early and rounds end once decided, so there the total is an estimate: "[3/~16]".
    const bool sweeps = spec.rounds.until.has_value()
        || std::any_of(spec.arms.begin(), spec.arms.end(), [](const ks::ArmSpec& a) { return a.sweep.has_value(); });
    QStringList warnings;
    for (const ks::ConfigSpec& config : spec.configs) {
        for (const QString& warning : ks::serverCommandWarnings(spec.serverCommand(config)))
            if (!warnings.contains(warning))
                warnings << warning;
    }
    for (const QString& warning : std::as_const(warnings))
        std::fprintf(stderr, "knobscope run: warning: %s\n", qPrintable(warning));
    ks::ExperimentRunner runner(std::move(spec), outPath);
    std::unique_ptr<MetricsEndpoint> endpoint;
    if (extras.metricsPort >= 0) {
        endpoint = std::make_unique<MetricsEndpoint>();
        QString error;
        const quint16 port = endpoint->listen(extras.metricsHost, quint16(extras.metricsPort), &error);
        if (port == 0) {
            std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
            return 2;
        }
        endpoint->follow(runner);
        std::fprintf(stderr, "knobscope run: serving metrics at %s\n",
            qPrintable(MetricsEndpoint::url(extras.metricsHost, port)));
    }
    if (extras.shard) {
        const QString host = QSysInfo::machineHostName();
        runner.setRunLineExtra({ { "shard", ks::shardObject(*extras.shard, host, extras.startAtMs) } });
        const QString who
            = QStringLiteral("shard %1/%2 on %3").arg(extras.shard->index).arg(extras.shard->count).arg(host);
        if (endpoint)
            endpoint->exposition().setConstantLabels(
                { { QStringLiteral("shard"), QString::number(extras.shard->index) } });
        if (extras.startAtMs)
            waitForStart(*extras.startAtMs, who);
        else
            std::fprintf(stderr, "knobscope run: %s starts now; without --start-at the shards' arms may not overlap\n",
                qPrintable(who));
    }
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
    // What is started, as a line a user can paste into a shell (secret-named values redacted, as in the log).
    QObject::connect(&runner, &ks::ExperimentRunner::serverStarting, &loop, [](const ks::ServerLaunch& launch) {
        ks::ServerLaunch shown { launch.config, ks::redactArgv(launch.argv), {} };
        for (const QString& pair : ks::redactEnv(launch.env))
            shown.env.append({ pair.section(QLatin1Char('='), 0, 0), pair.section(QLatin1Char('='), 1) });
        std::fprintf(stderr, "knobscope run: starting the server of %s: %s\n", qPrintable(launch.config),
            qPrintable(ks::commandLine(shown)));
    });
    QObject::connect(&runner, &ks::ExperimentRunner::runStarted, &loop, [&](const ks::RunInfo& info) {
        std::fprintf(stderr, "[%d/%s%d] %s\n", info.index + 1, sweeps ? "~" : "", info.total, qPrintable(info.run));
        progress = std::make_unique<ProgressReporter>(progressMode);
    });
    QObject::connect(&runner, &ks::ExperimentRunner::progressed, &loop, [&](const ks::LoadProgress& p) {
        if (progress)
            progress->update(p);
    });
    QObject::connect(
        &runner, &ks::ExperimentRunner::runFinished, &loop, [&](const QString&, const ks::RunSummary& summary) {
            if (progress)
                progress->finish();
            std::printf("%s\n", qPrintable(ks::formatSummaryTable(ks::runSummaryToJson(summary))));
            const qint64 requests = summary.requests.value_or(0);
            if (summary.status == QLatin1String("stopped"))
                std::printf("  stopped early: %lld requests recorded\n", static_cast<long long>(requests));
            std::printf("\n");
            std::fflush(stdout);
            if (requests > 0 && double(summary.errors.value_or(0)) > maxErrorRate * double(requests))
                errorsAboveThreshold = true;
        });
    QObject::connect(&runner, &ks::ExperimentRunner::roundDecided, &loop, [](const ks::RoundDecision& decision) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(roundStatusLine(decision)));
    });
    QObject::connect(&runner, &ks::ExperimentRunner::finished, &loop, [&](const QString& message) {
        problems = message;
        loop.quit();
    });
    std::unique_ptr<StdinControl> control;
    if (extras.controlStdin) {
        control = std::make_unique<StdinControl>();
        QObject::connect(control.get(), &StdinControl::lineRead, &loop, [&runner](const QString& line) {
            const ks::SteerCommand command = ks::parseSteerCommand(line);
            QString refused;
            switch (command.kind) {
            case ks::SteerCommand::Kind::None:
                return;
            case ks::SteerCommand::Kind::Invalid:
                refused = command.error;
                break;
            case ks::SteerCommand::Kind::Stop:
                std::fputs("knobscope run: control: stop: no more requests; the ones in flight finish\n", stderr);
                runner.finishArmGently();
                return;
            case ks::SteerCommand::Kind::Rate:
                refused = runner.steerRate(command.value);
                if (refused.isEmpty())
                    std::fprintf(
                        stderr, "knobscope run: control: rate %s\n", qPrintable(ks::sweepValueText(command.value)));
                break;
            case ks::SteerCommand::Kind::Concurrency:
                refused = runner.steer(int(command.value));
                if (refused.isEmpty())
                    std::fprintf(stderr, "knobscope run: control: concurrency %d\n", int(command.value));
                break;
            }
            if (!refused.isEmpty())
                std::fprintf(stderr, "knobscope run: control: '%s' ignored: %s\n", qPrintable(line.trimmed()),
                    qPrintable(refused));
        });
    }
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
    // After the file is complete, so a crash mid-run never leaves the library ahead of it.
    catalogueRunFile(extras.library, "knobscope run", outPath);
    return problems.isEmpty() && !errorsAboveThreshold ? 0 : 1;
}
