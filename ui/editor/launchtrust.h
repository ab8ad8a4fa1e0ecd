#pragma once

#include "server/launchplan.h"

namespace ks {

class Settings;

/// Whether the dashboard may start an experiment's server command without
/// asking (docs/troubleshooting.md, "Which server commands run without
/// asking"). Experiment files travel (bug reports, colleagues, blog posts),
/// and Run starts their command as the user; a command from a file is run
/// unasked only when the user trusted that exact plan before. Widget-free: the
/// window asks with a LaunchTrustDialog when mustAsk() says so.
class LaunchTrust {
public:
    /// Where the experiment now in the editor came from.
    enum class Origin {
        File, ///< opened from a file (File ▸ Open, a recent file, a drop, the command line) or a run file's spec
        Own, ///< knobscope's own: a bundled experiment, an installed template, File ▸ New
        NamedToRun, ///< named on the command line with --run: the user asked to run it
    };

    explicit LaunchTrust(Settings* settings);

    /// A new experiment is in the editor; `plan` is what it would start (empty
    /// when it does not validate yet: then Run looks the plan up again).
    void loaded(Origin origin, const LaunchPlan& plan);
    /// The editor's experiment was saved as `plan`. A trusted one stays trusted
    /// when the file is opened again; saving an untrusted one trusts nothing
    /// (a copy of someone else's file is still their command).
    void saved(const LaunchPlan& plan);
    /// Running `plan` must ask first: it starts something, the experiment is
    /// not the user's or knobscope's own, and the user never trusted this plan.
    bool mustAsk(const LaunchPlan& plan) const;
    /// The user trusted `plan`: remembered by its fingerprint, and the
    /// experiment in the editor is trusted (the user's own edits keep it so).
    void trust(const LaunchPlan& plan);

private:
    Settings* m_settings;
    bool m_trusted = false; ///< the experiment in the editor, edits included
};

} // namespace ks
