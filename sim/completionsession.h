#pragma once

#include "batchengine.h"
#include "chunkformatter.h"
#include "faultplan.h"
#include "outputstream.h"
#include "simconnection.h"
#include "truthlog.h"
#include "wireoptions.h"

#include <QPointer>

#include <QRandomGenerator>
#include <functional>
#include <memory>

namespace kssim {

/// One completion request from acceptance to its last byte: turns engine token
/// emissions into SSE events (or one JSON body), applies its fault, and keeps
/// the truth record.
class CompletionSession {
public:
    struct Setup {
        std::uint64_t engineId = 0;
        CompletionRequest request;
        OutputSeed seed;
        int outputTokens = 1;
        Fault fault = Fault::None;
        int stallMs = 0;
        WireOptions wire;
        std::uint64_t wireSeed = 0;
        qint64 created = 0;
        /// Called once the response's last byte is written (or the client is gone).
        std::function<void()> onComplete;
    };
    enum class State { Running, Finished, Aborted };

    CompletionSession(
        const SimProfile& profile, Setup setup, std::shared_ptr<TruthRecord> truth, SimConnection* connection);

    void start();
    void onAdmitted(const Admission& admission, std::int64_t stepStartUs);
    /// The end of the step that emitted the first token (the latency histograms' first-token instant).
    void setFirstTokenUs(std::int64_t us) { m_firstTokenUs = us; }
    std::int64_t firstTokenUs() const { return m_firstTokenUs; }
    /// Sends the emission's tokens (one chunk per channel). Returns Finished after the last token, Aborted when a fault
    /// ended the response early (the engine must drop the sequence).
    State onToken(const TokenEmission& emission, int batchSize, std::int64_t nowUs);
    void onClientGone(std::int64_t nowUs);
    /// Server shutdown: ends the response with an error the client can see.
    void abortForShutdown(std::int64_t nowUs);

    const std::shared_ptr<TruthRecord>& truth() const { return m_truth; }
    std::uint64_t engineId() const { return m_setup.engineId; }
    SimConnection* connection() const { return m_connection; }

private:
    /// `tokens`: output tokens the event carries (0 for role, usage, errors, [DONE]).
    void sendEvent(const QByteArray& payload, int tokens);
    void sendDone();
    SimConnection::WrittenCallback onLastByteWritten() const;
    State finish(std::int64_t nowUs);
    /// The next piece of a tool call's arguments (raw JSON text), from one token's word.
    QByteArray toolArgumentsFragment(const QByteArray& word, bool last);
    /// One token of a tool-call answer as a streamed chunk (the opening, then argument fragments).
    QByteArray toolCallChunk(const QByteArray& word, const char* finishReason);
    State injectMidStreamFault(std::int64_t nowUs);

    const SimProfile& m_profile;
    Setup m_setup;
    QPointer<SimConnection> m_connection;
    OutputStream m_output;
    ChunkFormatter m_formatter;
    std::shared_ptr<TruthRecord> m_truth;
    QRandomGenerator m_wireRng;
    QByteArray m_content; ///< kept only for non-streaming responses
    QByteArray m_reasoning; ///< kept only for non-streaming responses
    QByteArray m_toolArguments; ///< kept only for non-streaming responses
    int m_toolWords = 0;
    int m_faultAt = 0;
    std::int64_t m_firstTokenUs = -1;
    int m_eventsSent = 0;
};

} // namespace kssim
