#include "commands.h"

#include "editor/experimenteditor.h"
#include "pages/comparepage.h"
#include "pages/livepage.h"
#include "pages/runspage.h"
#include "window/mainwindow.h"
#include "window/uiprofile.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QLineEdit>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace {

/// `--shot PAGE:WHEN:FILE`: grab the window showing PAGE (live, live-knob: scrolled to the knob chart or search
/// heatmap, compare, compare-range, drift, runs, log; live-search: the Live page with the editor scrolled to its
/// search) WHEN seconds after start, or at "end" of the run; packaging/screenshot uses it.
struct Shot {
    int page = 0;
    bool knobChart = false; ///< "live-knob": the Live page scrolled to its knob chart
    bool knobRange = false; ///< "compare-range": the Compare page's Knob range tab
    bool editorSearch = false; ///< "live-search": the editor scrolled to its knob search
    int afterMs = -1; ///< -1: when the run ends
    QString file;
};

bool parseShot(const QString& text, Shot* shot)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() < 3)
        return false;
    static const QStringList pages = { QStringLiteral("live"), QStringLiteral("compare"), QStringLiteral("drift"),
        QStringLiteral("runs"), QStringLiteral("log") };
    shot->knobChart = parts[0] == QLatin1String("live-knob");
    shot->knobRange = parts[0] == QLatin1String("compare-range");
    shot->editorSearch = parts[0] == QLatin1String("live-search");
    shot->page = shot->knobChart || shot->editorSearch ? 0 : shot->knobRange ? 1 : int(pages.indexOf(parts[0]));
    bool ok = true;
    shot->afterMs = parts[1] == QLatin1String("end") ? -1 : int(parts[1].toDouble(&ok) * 1000);
    shot->file = parts.mid(2).join(QLatin1Char(':'));
    return ok && shot->page >= 0 && !shot->file.isEmpty();
}

void take(ks::MainWindow* window, const Shot& shot)
{
    window->pages()->setCurrentIndex(shot.page);
    if (shot.knobRange)
        window->comparePage()->showKnobRange();
    window->livePage()->resetZoom();
    QApplication::processEvents();
    if (shot.knobChart) {
        window->livePage()->revealKnobChart();
        QApplication::processEvents();
    }
    if (shot.editorSearch) {
        window->editor()->revealSearch();
        QApplication::processEvents();
    }
    if (window->grab().save(shot.file))
        std::fprintf(stderr, "knobscope: wrote %s\n", qPrintable(shot.file));
    else
        std::fprintf(stderr, "knobscope: could not write %s\n", qPrintable(shot.file));
}

bool hasDisplay(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (qstrcmp(argv[i], "-platform") == 0)
            return true;
    }
    return qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY")
        || qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
}

} // namespace

int guiMain(int argc, char** argv)
{
    if (!hasDisplay(argc, argv)) {
        std::fputs(
            "knobscope: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the dashboard cannot open.\n"
            "Use a subcommand ('knobscope --help'), or run it under xvfb-run or with QT_QPA_PLATFORM=offscreen.\n",
            stderr);
        return 2;
    }
    // KNOBSCOPE_PROFILE=FILE: the GUI thread's busy time and other figures for bench/ui_pipeline.py.
    const std::unique_ptr<QApplication> application = ks::uiprofile::enabled()
        ? std::make_unique<ks::uiprofile::ProfiledApplication>(argc, argv)
        : std::make_unique<QApplication>(argc, argv);
    QApplication& app = *application;
    QApplication::setApplicationName(QStringLiteral("knobscope"));
    QApplication::setOrganizationName(QStringLiteral("knobscope"));
    QApplication::setApplicationVersion(QStringLiteral(KNOBSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("The knobscope dashboard."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("SPEC.json|RUNS.jsonl"),
        QStringLiteral("Experiment to open, or a run file to replay (optional; 'knobscope open RUNS.jsonl' too)."));
    parser.addOption({ QStringLiteral("run"), QStringLiteral("Start the experiment at once.") });
    parser.addOption({ QStringLiteral("shot"),
        QStringLiteral("Save a screenshot of PAGE (live|live-knob|live-search|compare|compare-range|drift|runs|log) "
                       "WHEN seconds after "
                       "start or at 'end' of "
                       "the run, then quit after the last one. Repeatable."),
        QStringLiteral("PAGE:WHEN:FILE") });
    parser.addOption({ QStringLiteral("baseline"),
        QStringLiteral("A saved run file drawn faded under the Live charts (the Live page's Baseline menu)."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("size"), QStringLiteral("Window size, e.g. 1280x800."), QStringLiteral("WxH") });
    parser.addOption({ QStringLiteral("runs-filter"),
        QStringLiteral("Type TEXT into the Runs page's filter and select its first row (for --shot runs:...)."),
        QStringLiteral("TEXT") });
    parser.process(app);

    std::vector<Shot> timed, atEnd;
    for (const QString& text : parser.values(QStringLiteral("shot"))) {
        Shot shot;
        if (!parseShot(text, &shot)) {
            std::fprintf(
                stderr, "knobscope: --shot wants PAGE:SECONDS:FILE or PAGE:end:FILE, got '%s'\n", qPrintable(text));
            return 2;
        }
        (shot.afterMs < 0 ? atEnd : timed).push_back(shot);
    }

    auto window = std::make_unique<ks::MainWindow>();
    QStringList positional = parser.positionalArguments();
    const bool open = positional.value(0) == QLatin1String("open");
    if (open)
        positional.removeFirst();
    QString runFile;
    if (!positional.isEmpty()) {
        const QString path = positional.first();
        if (open || path.endsWith(QLatin1String(".jsonl"))) {
            if (!QFileInfo::exists(path)) {
                std::fprintf(stderr, "knobscope open: no such file: %s\n", qPrintable(path));
                return 2;
            }
            runFile = path;
        } else if (!window->openSpec(path,
                       // Naming the file with --run is the user's consent to run its server command.
                       parser.isSet(QStringLiteral("run")) ? ks::LaunchTrust::Origin::NamedToRun
                                                           : ks::LaunchTrust::Origin::File)) {
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("size"))) {
        const QStringList wh = parser.value(QStringLiteral("size")).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window->resize(wh[0].toInt(), wh[1].toInt());
    } // else the size remembered from last time, or on first start one fitted to the screen
    window->show();
    if (parser.isSet(QStringLiteral("runs-filter"))) {
        window->runsPage()->filterEdit()->setText(parser.value(QStringLiteral("runs-filter")));
        window->runsPage()->selectRows({ 0 });
    }

    auto remaining = std::make_shared<int>(int(timed.size() + atEnd.size()));
    auto done = [remaining, w = window.get()] {
        if (--*remaining == 0)
            QTimer::singleShot(0, w, [w] { w->close(); });
    };
    for (const Shot& shot : timed)
        QTimer::singleShot(shot.afterMs, window.get(), [w = window.get(), shot, done] {
            take(w, shot);
            done();
        });
    if (!atEnd.empty()) {
        QObject::connect(window.get(), &ks::MainWindow::runEnded, window.get(), [w = window.get(), atEnd, done] {
            QTimer::singleShot(800, w, [w, atEnd, done] {
                for (const Shot& shot : atEnd) {
                    take(w, shot);
                    done();
                }
            });
        });
    }
    // With a baseline, the run or replay starts once it is read, so it is drawn from the first arm.
    auto start = [w = window.get(), runFile, autoRun = parser.isSet(QStringLiteral("run"))] {
        if (!runFile.isEmpty())
            w->openRunFile(runFile);
        else if (autoRun)
            QTimer::singleShot(200, w, [w] { w->run(); });
    };
    if (const QString baseline = parser.value(QStringLiteral("baseline")); !baseline.isEmpty()) {
        if (!QFileInfo::exists(baseline)) {
            std::fprintf(stderr, "knobscope: no such baseline file: %s\n", qPrintable(baseline));
            return 2;
        }
        QObject::connect(
            window.get(), &ks::MainWindow::baselineChanged, window.get(),
            [start](const QString& path, const QString& error) {
                if (!error.isEmpty())
                    std::fprintf(stderr, "knobscope: baseline %s not used: %s\n", qPrintable(path), qPrintable(error));
                start();
            },
            Qt::SingleShotConnection);
        QTimer::singleShot(0, window.get(), [w = window.get(), baseline] { w->setBaselineFile(baseline); });
    } else {
        QTimer::singleShot(0, window.get(), start);
    }
    if (!atEnd.empty() && !runFile.isEmpty())
        QObject::connect(window.get(), &ks::MainWindow::replayEnded, window.get(), &ks::MainWindow::runEnded);
    return app.exec();
}
