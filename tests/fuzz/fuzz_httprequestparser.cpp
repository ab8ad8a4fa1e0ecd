// The simulator's HTTP/1.1 request parser (sim/httprequestparser.h) on any bytes
// in any split: the requests and the final state must not depend on how the
// connection cut them into reads. Complete requests' bodies then go through the
// simulator's OpenAI request parser, as the server does.
#include "fuzzinput.h"

#include "httprequestparser.h"
#include "openairequest.h"

#include <vector>

namespace {

struct Outcome {
    std::vector<kssim::HttpRequest> requests;
    kssim::HttpRequestParser::Result last = kssim::HttpRequestParser::Result::NeedMore;
    int errorStatus = 0;
};

bool same(const kssim::HttpRequest& a, const kssim::HttpRequest& b)
{
    return a.method == b.method && a.target == b.target && a.version == b.version && a.headers == b.headers
        && a.body == b.body && a.keepAlive == b.keepAlive;
}

// Small limits so the fuzzer reaches the 413 and 431 paths with short inputs.
constexpr kssim::HttpRequestParser::Limits kLimits { 256, 512 };

template <typename Feed> Outcome parse(Feed&& feedAll)
{
    kssim::HttpRequestParser parser(kLimits);
    Outcome out;
    feedAll([&](const char* bytes, qsizetype size) {
        parser.feed(QByteArray(bytes, size));
        kssim::HttpRequest request;
        while ((out.last = parser.next(request)) == kssim::HttpRequestParser::Result::Request) {
            KS_FUZZ_CHECK(request.body.size() <= kLimits.maxBodyBytes);
            out.requests.push_back(std::move(request));
            request = {};
        }
    });
    out.errorStatus = parser.errorStatus();
    KS_FUZZ_CHECK((out.last == kssim::HttpRequestParser::Result::Error) == (out.errorStatus != 0));
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const ksfuzz::SplitInput input(data, size);
    const Outcome split = parse([&](auto&& feed) { input.forEachRead(feed); });
    const Outcome whole = parse([&](auto&& feed) { feed(input.stream.constData(), input.stream.size()); });
    KS_FUZZ_CHECK(split.requests.size() == whole.requests.size());
    for (std::size_t i = 0; i < whole.requests.size(); ++i)
        KS_FUZZ_CHECK(same(split.requests[i], whole.requests[i]));
    KS_FUZZ_CHECK(split.errorStatus == whole.errorStatus);

    for (const kssim::HttpRequest& r : whole.requests) {
        const auto endpoint = r.path() == "/v1/chat/completions" ? kssim::Endpoint::Chat : kssim::Endpoint::Completions;
        (void)kssim::parseCompletionRequest(r.body, endpoint, QStringLiteral("sim-8b"), 4096);
    }
    return 0;
}
