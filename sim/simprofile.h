#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace kssim {

/// Timing and behaviour of one simulated model. The step-time model is the
/// memory-bound decode of a real GPU: every engine step reads all weights once
/// (stepBaseUs), pays a little per running sequence (KV reads, sampling), and
/// pays per prompt token prefilled in that step. docs/simulator.md derives the numbers.
struct SimProfile {
    QString name;
    double stepBaseUs = 0;
    double stepPerSeqUs = 0;
    double prefillPerTokenUs = 0;
    int defaultMaxNumSeqs = 128;
    int defaultMaxBatchedTokens = 2048;
    qint64 kvCacheTokens = 0;
    int maxModelLen = 4096;
    double meanOutputTokens = 0; ///< length draw when ignore_eos is off
    bool reasoning = false;
    double reasoningShare = 0; ///< fraction of output tokens streamed as reasoning_content
    /// Fraction of prompts with a near-tie logit that flips with the kernel path
    /// (prefix-cache hit, batch size): these change between passes in one process.
    double driftWithinProcess = 0;
    /// Fraction (a superset of the above) that also flips with the per-process
    /// numerics seed: these change across a restart.
    double driftAcrossRestart = 0;
};

std::optional<SimProfile> findProfile(const QString& name);
QStringList profileNames();

} // namespace kssim
