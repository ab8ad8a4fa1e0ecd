#pragma once

#include "server/launchplan.h"
#include "server/serverlauncher.h"
#include "server/serverversion.h"
#include "spec/experimentspec.h"
#include "telemetry/metricsscraper.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>

namespace ks {

/// The server under test across an experiment: starts, restarts and stops the one a spec launches, asks it (or an
/// external one) for its version and scrapes its /metrics during each arm; tells the runner what happened.
class ServerSession : public QObject {
    Q_OBJECT
public:
    /// What follows once the server has stopped; a later, stronger request wins.
    enum class AfterStop { StartConfig, LaunchServer, Finish };

    /// `spec` outlives the session (the runner owns both); the server's log goes beside `outPath`.
    ServerSession(const ExperimentSpec& spec, QString outPath, QObject* parent = nullptr);
    ~ServerSession() override;

    /// Starts `config`'s server (a launched one that is still running is replaced, not stopped: see stopThen).
    void launch(const ConfigSpec& config);
    /// Stops the running server; stoppedThen(next) follows once it is gone. A stop under way is not asked again,
    /// but a stronger `next` replaces the one it carries (Finish outranks the others: Stop while a restart waits).
    void stopThen(AfterStop next);
    /// Kills the server without waiting (a second Ctrl-C).
    void abandon();
    /// A launched server's process runs (also one still starting or stopping).
    bool isRunning() const;
    /// The launched server answered its ready path and has not stopped or exited since.
    bool isUp() const { return m_up; }

    /// Asks the server for its version (run lines carry it as `server_version`): versionKnown() follows.
    void askVersion();
    bool hasVersion() const { return !m_version.is_null(); }
    /// What the server said about itself (ServerVersionProbe); null before it is asked.
    const nlohmann::json& version() const { return m_version; }
    /// About the launched server's command (servercommandcheck.h); empty for an external one.
    const QStringList& warnings() const { return m_warnings; }

    /// Scrapes /metrics from the arm's start `t0Us` on; samples come by scraped().
    void startScraping(qint64 t0Us);
    /// Scrapes once more (vLLM's histograms see the arm's last completions only in a scrape after them), then
    /// `done`; at once when nothing was scraped.
    void finishScraping(std::function<void()> done);
    /// The last arm's scraper, for its summary; null before the first arm.
    const MetricsScraper* scraper() const { return m_scraper.get(); }
    /// Why the arm has no server metrics; empty when it has them.
    const QString& metricsProblem() const { return m_metricsProblem; }

signals:
    /// A `server_event` for the run file (starting, warning, output, ready, version, stopped, exited, a launch error).
    void eventOccurred(const QString& event, const QString& detail);
    /// A line for the windows: the server's output, or a warning about its command.
    void lineOutput(const QString& line);
    /// The exact argv and extra environment, just before the server starts.
    void launching(const ks::ServerLaunch& launch);
    void becameReady();
    /// The server could not be started (it stopped itself, or never became ready).
    void launchFailed(const QString& message);
    /// The server died while it was up.
    void exitedUnexpectedly(const QString& message);
    /// The stop that stopThen() asked for is done.
    void stoppedThen(ks::ServerSession::AfterStop next);
    void versionKnown();
    void scraped(const ks::ServerSample& sample);

private:
    void onStopped();

    const ExperimentSpec& m_spec;
    QString m_outPath;
    std::unique_ptr<ServerLauncher> m_launcher;
    std::unique_ptr<ServerVersionProbe> m_versionProbe;
    nlohmann::json m_version; ///< of the server now up, once asked; null before
    QStringList m_warnings;
    std::optional<AfterStop> m_afterStop;
    bool m_up = false;
    std::unique_ptr<MetricsScraper> m_scraper;
    QString m_metricsProblem;
    bool m_inMetricsGap = false;
};

} // namespace ks
