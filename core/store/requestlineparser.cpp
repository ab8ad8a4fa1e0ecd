#include "store/requestlineparser.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace ks {

namespace {

using json = nlohmann::json;

/// Fills a RequestRecord as the parser walks one flat request object.
class RequestSax : public nlohmann::json_sax<json> {
public:
    explicit RequestSax(const QString* sameRun)
        : m_sameRun(sameRun)
    {
    }
    RequestRecord record;
    bool isRequest = false;
    bool bad = false;
    bool hasRun = false, hasId = false, hasSend = false, hasSched = false, hasOk = false, hasRepeat = false;

    bool null() override { return true; } // null means "absent" for every optional field
    bool boolean(bool value) override
    {
        if (m_depth != 1 || m_inItl)
            return fail();
        if (m_key == "ok") {
            record.ok = value;
            hasOk = true;
        } else if (m_key == "warmup") {
            record.warmup = value;
        }
        return true;
    }
    bool number_integer(number_integer_t value) override { return integer(qint64(value)); }
    bool number_unsigned(number_unsigned_t value) override { return integer(qint64(value)); }
    bool number_float(number_float_t value, const string_t&) override
    {
        return integer(qint64(value)); // as the DOM path's get<qint64>() does: truncated
    }
    bool string(string_t& value) override
    {
        if (m_depth != 1 || m_inItl)
            return fail();
        const auto text = [&value] { return QString::fromUtf8(value.data(), qsizetype(value.size())); };
        if (m_key == "type")
            isRequest = value == "request";
        else if (m_key == "run") {
            const QString run = text();
            record.run = m_sameRun && *m_sameRun == run ? *m_sameRun : run;
            hasRun = true;
        } else if (m_key == "probe")
            record.probe = text();
        else if (m_key == "error")
            record.error = text();
        else if (m_key == "error_detail")
            record.errorDetail = text();
        else if (m_key == "out_tokens_source")
            record.outTokensFromUsage = value == "usage";
        else if (m_key == "output_sha256")
            record.outputSha256 = QByteArray(value.data(), qsizetype(value.size()));
        else if (m_key == "reasoning_sha256")
            record.reasoningSha256 = QByteArray(value.data(), qsizetype(value.size()));
        else if (m_key == "output_text")
            record.outputText = QByteArray(value.data(), qsizetype(value.size()));
        else if (m_key == "reasoning_text")
            record.reasoningText = QByteArray(value.data(), qsizetype(value.size()));
        return true;
    }
    bool binary(binary_t&) override { return fail(); }
    bool start_object(std::size_t) override
    {
        ++m_depth;
        return m_depth == 1 ? true : fail(); // request lines are flat
    }
    bool end_object() override
    {
        --m_depth;
        return true;
    }
    bool start_array(std::size_t) override
    {
        if (m_depth != 1 || m_key != "itl_us" || m_inItl)
            return fail();
        m_inItl = true;
        return true;
    }
    bool end_array() override
    {
        m_inItl = false;
        return true;
    }
    bool key(string_t& value) override
    {
        m_key = value;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return fail(); }

private:
    bool fail()
    {
        bad = true;
        return false;
    }
    bool integer(qint64 v)
    {
        if (m_depth != 1)
            return fail();
        if (m_inItl) {
            record.itlUs.push_back(std::int32_t(v));
            return true;
        }
        if (m_key == "id") {
            record.id = v;
            hasId = true;
        } else if (m_key == "t_send_us") {
            record.tSendUs = v;
            hasSend = true;
        } else if (m_key == "t_sched_us") {
            record.tSchedUs = v;
            hasSched = true;
        } else if (m_key == "t_wire_us")
            record.tWireUs = v;
        else if (m_key == "ttft_us")
            record.ttftUs = v;
        else if (m_key == "ttfc_us")
            record.ttfcUs = v;
        else if (m_key == "e2e_us")
            record.e2eUs = v;
        else if (m_key == "in_tokens")
            record.inTokens = int(v);
        else if (m_key == "out_tokens")
            record.outTokens = int(v);
        else if (m_key == "status")
            record.status = int(v);
        else if (m_key == "probe_repeat") {
            record.probeRepeat = int(v);
            hasRepeat = true;
        }
        return true;
    }

    const QString* m_sameRun;
    std::string m_key;
    int m_depth = 0;
    bool m_inItl = false;
};

} // namespace

std::optional<RequestRecord> parseRequestLine(const QByteArray& line, const QString* sameRun)
{
    RequestSax sax(sameRun);
    const bool parsed = json::sax_parse(line.begin(), line.end(), &sax);
    if (!parsed || sax.bad || !sax.isRequest || !sax.hasRun || !sax.hasId || !sax.hasSend || !sax.hasOk)
        return std::nullopt;
    if (!sax.hasSched)
        sax.record.tSchedUs = sax.record.tSendUs;
    if (!sax.hasRepeat)
        sax.record.probeRepeat = sax.record.probe.isEmpty() ? -1 : 0;
    return std::move(sax.record);
}

} // namespace ks
