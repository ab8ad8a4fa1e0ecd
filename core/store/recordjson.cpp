#include "store/recordjson.h"

namespace ks {

nlohmann::json toJson(const RequestRecord& r)
{
    auto optional = [](qint64 v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    auto text
        = [](const QString& s) { return s.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(s.toStdString()); };
    nlohmann::json j = {
        { "type", "request" },
        { "run", r.run.toStdString() },
        { "id", r.id },
        { "probe", text(r.probe) },
        { "warmup", r.warmup },
        { "t_sched_us", r.tSchedUs },
        { "t_send_us", r.tSendUs },
        { "t_wire_us", optional(r.tWireUs) },
        { "ttft_us", optional(r.ttftUs) },
        { "ttfc_us", optional(r.ttfcUs) },
        { "e2e_us", optional(r.e2eUs) },
        { "itl_us", r.itlUs },
        { "in_tokens", r.inTokens },
        { "out_tokens", r.outTokens },
        { "out_tokens_source", r.outTokensFromUsage ? "usage" : "events" },
        { "status", r.status },
        { "ok", r.ok },
        { "error", text(r.error) },
        { "error_detail", text(r.errorDetail) },
        { "output_sha256",
            r.outputSha256.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(r.outputSha256.toStdString()) },
    };
    if (!r.reasoningSha256.isEmpty())
        j["reasoning_sha256"] = r.reasoningSha256.toStdString();
    if (!r.probe.isEmpty()) {
        j["probe_repeat"] = r.probeRepeat;
        j["output_text"] = r.outputText.toStdString();
        j["reasoning_text"] = r.reasoningText.toStdString();
    }
    return j;
}

std::optional<RequestRecord> requestFromJson(const nlohmann::json& j, QString* error)
{
    try {
        RequestRecord r;
        auto optional = [&](const char* key) -> qint64 {
            const auto it = j.find(key);
            return it == j.end() || it->is_null() ? -1 : it->get<qint64>();
        };
        auto text = [&](const char* key) -> QString {
            const auto it = j.find(key);
            return it == j.end() || it->is_null() ? QString() : QString::fromStdString(it->get<std::string>());
        };
        r.run = QString::fromStdString(j.at("run").get<std::string>());
        r.id = j.at("id").get<qint64>();
        r.probe = text("probe");
        r.warmup = j.value("warmup", false);
        r.tSendUs = j.at("t_send_us").get<qint64>();
        r.tSchedUs = j.contains("t_sched_us") ? j["t_sched_us"].get<qint64>() : r.tSendUs;
        r.tWireUs = optional("t_wire_us");
        r.ttftUs = optional("ttft_us");
        r.ttfcUs = optional("ttfc_us");
        r.e2eUs = optional("e2e_us");
        if (j.contains("itl_us") && j["itl_us"].is_array())
            r.itlUs = j["itl_us"].get<std::vector<std::int32_t>>();
        r.inTokens = j.value("in_tokens", 0);
        r.outTokens = j.value("out_tokens", 0);
        r.outTokensFromUsage = j.value("out_tokens_source", "") == "usage";
        r.status = j.value("status", 0);
        r.ok = j.at("ok").get<bool>();
        r.error = text("error");
        r.errorDetail = text("error_detail");
        r.outputSha256 = text("output_sha256").toLatin1();
        r.reasoningSha256 = text("reasoning_sha256").toLatin1();
        r.probeRepeat = j.value("probe_repeat", r.probe.isEmpty() ? -1 : 0);
        r.outputText = text("output_text").toUtf8();
        r.reasoningText = text("reasoning_text").toUtf8();
        return r;
    } catch (const nlohmann::json::exception& e) {
        *error = QStringLiteral("request record: ") + QString::fromUtf8(e.what());
        return std::nullopt;
    }
}

} // namespace ks
