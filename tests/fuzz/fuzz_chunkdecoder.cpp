// The chunk decoder (core/api/chunkdecoder.h) on any payload, for both APIs, and
// the StreamAccumulator (core/client/streamaccumulator.h) on the input as a whole
// response body: what a hostile or broken server can send a client, through to
// the run's summary.
#include "fuzzinput.h"

#include "api/chunkdecoder.h"
#include "client/streamaccumulator.h"
#include "metrics/runsummary.h"

#include <vector>

namespace {

void checkChunk(const ks::ChunkInfo& c, ks::ApiKind api)
{
    using Kind = ks::ChunkInfo::Kind;
    KS_FUZZ_CHECK(!c.hasContent || c.hasToken);
    if (c.kind == Kind::Chunk)
        KS_FUZZ_CHECK(c.hasContent == !c.content.isEmpty());
    if (c.kind == Kind::Error || c.kind == Kind::Undecodable) {
        KS_FUZZ_CHECK(!c.hasToken && !c.errorMessage.isEmpty());
    }
    if (api == ks::ApiKind::Completions)
        KS_FUZZ_CHECK(c.reasoning.isEmpty());
}

ks::RequestRecord accumulate(ks::ApiKind api, int status, const QByteArray& body)
{
    ks::RequestRecord start;
    start.run = QStringLiteral("fuzz");
    start.tSchedUs = start.tSendUs = 1000;
    ks::StreamAccumulator acc(api, start);
    acc.keepText(true);
    acc.onStatus(status);
    acc.onRequestWritten(1010);
    acc.onBytes(body, 2000);
    const ks::RequestRecord r = acc.finish(3000);
    KS_FUZZ_CHECK(r.ok == r.error.isEmpty());
    KS_FUZZ_CHECK(!r.ok || (status >= 200 && status < 300));
    KS_FUZZ_CHECK(r.e2eUs == 2000);
    KS_FUZZ_CHECK(r.ttftUs == -1 || r.ttftUs == 1000);
    return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray input(reinterpret_cast<const char*>(data), qsizetype(size));
    for (const ks::ApiKind api : { ks::ApiKind::Completions, ks::ApiKind::Chat })
        checkChunk(ks::decodeChunk(input, api), api);

    std::vector<ks::RequestRecord> records;
    records.push_back(accumulate(ks::ApiKind::Completions, 200, input));
    records.push_back(accumulate(ks::ApiKind::Chat, 200, input));
    records.push_back(accumulate(ks::ApiKind::Chat, 503, input));
    const nlohmann::json summary = ks::summarizeRun(
        QStringLiteral("fuzz"), QStringLiteral("c"), QStringLiteral("a"), records, ks::Slo { 100, 10 });
    KS_FUZZ_CHECK(summary.is_object());
    return 0;
}
