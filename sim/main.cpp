#include "simcommandline.h"
#include "simserver.h"
#include "util/unixsignals.h"

#include <QCoreApplication>

#include <cstdio>
#include <sys/resource.h>

namespace {

// Each client connection is a file descriptor; 1024 concurrent streams need more
// than the usual soft limit of 1024.
void raiseOpenFileLimit()
{
    rlimit limit {};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("knobscope-sim"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KNOBSCOPE_VERSION));

    auto parsed = kssim::parseSimCommandLine(QCoreApplication::arguments());
    if (auto* help = std::get_if<kssim::HelpRequested>(&parsed)) {
        std::fputs(qPrintable(help->text), stdout);
        return 0;
    }
    if (auto* error = std::get_if<QString>(&parsed)) {
        std::fprintf(stderr, "knobscope-sim: %s\nTry 'knobscope-sim --help'.\n", qPrintable(*error));
        return 2;
    }
    raiseOpenFileLimit();

    kssim::SimServer server(std::get<kssim::SimOptions>(std::move(parsed)));
    ks::UnixSignals unixSignals;
    QObject::connect(&unixSignals, &ks::UnixSignals::terminationRequested, &server, &kssim::SimServer::shutdown);
    QObject::connect(&server, &kssim::SimServer::stopped, &app, &QCoreApplication::quit);

    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "knobscope-sim: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("listening on http://%s:%u\n", qPrintable(std::get<kssim::SimOptions>(parsed).host.toString()),
        unsigned(server.port()));
    std::fflush(stdout);
    return app.exec();
}
