#pragma once

#include "workload/loadspec.h"
#include "workload/workload.h"

#include <QByteArray>
#include <QUrl>

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <vector>

namespace ks {

/// Builds request `index` of an arm. Immutable after construction, so worker
/// threads share one without locks.
class RequestFactory {
public:
    RequestFactory(const LoadSpec& spec, QByteArray apiKey);

    /// The whole HTTP/1.1 request `index` with this body: head and body, ready to write.
    QByteArray httpRequest(qint64 index, const QByteArray& body) const;
    /// GET /v1/models, the request that opens a connection before t0.
    QByteArray modelsRequest() const;
    QUrl url() const { return m_url; }
    /// How long a stream may go without a byte before it counts as stalled.
    qint64 stallTimeoutUs() const;
    QByteArray body(qint64 index) const;
    /// Set unless the spec asks for plain synthetic prompts (LoadSpec::plainPrompts).
    const Workload* workload() const { return m_workload.get(); }
    /// The body of one workload request.
    QByteArray body(const PromptTurn& turn) const;
    /// The probe request `index` sends, or nullptr for a load request.
    const Probe* probeOf(qint64 index) const;
    int probeRepeatOf(qint64 index) const;
    QUrl modelsUrl() const { return m_modelsUrl; }
    const LoadSpec& spec() const { return m_spec; }

    static QByteArray userAgent();

private:
    /// The spec's `tools` and `tool_choice`, on chat requests.
    void addTools(nlohmann::json& body) const;

    LoadSpec m_spec;
    QByteArray m_apiKey;
    QUrl m_url;
    QUrl m_modelsUrl;
    QByteArray m_bodyHead; ///< everything before the prompt
    QByteArray m_bodyTail; ///< everything after it
    QByteArray m_headerLines; ///< the request's fixed header lines
    std::vector<QByteArray> m_probeBodies;
    std::shared_ptr<const Workload> m_workload;
};

} // namespace ks
