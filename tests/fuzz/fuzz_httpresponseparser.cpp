// The streaming client's HTTP/1.1 response decoder (core/client/httpresponseparser.h)
// on any bytes in any split: the status, the body handed on, the end state and
// keep-alive must not depend on how the response was cut into reads; the body
// never exceeds the bytes fed; after an error nothing more is handed on.
#include "fuzzinput.h"

#include "client/httpresponseparser.h"

namespace {

struct Outcome {
    ks::HttpResponseParser::Status status = ks::HttpResponseParser::Status::NeedMore;
    int heads = 0;
    int code = 0;
    QByteArray body;
    bool keepAlive = false;
};

template <typename Feed> Outcome parse(Feed&& feedAll, bool closeAtEnd)
{
    ks::HttpResponseParser parser;
    Outcome out;
    feedAll([&](const char* bytes, qsizetype size) {
        if (out.status == ks::HttpResponseParser::Status::Error)
            return; // the client closes the connection at an error; bytes after the end are one
        out.status = parser.feed(
            bytes, size,
            [&] {
                ++out.heads;
                out.code = parser.statusCode();
            },
            [&](const char* data, qsizetype n) {
                KS_FUZZ_CHECK(n >= 0);
                out.body.append(data, n);
            });
        if (out.status == ks::HttpResponseParser::Status::Error)
            KS_FUZZ_CHECK(!parser.error().isEmpty());
    });
    if (closeAtEnd && out.status == ks::HttpResponseParser::Status::NeedMore)
        out.status = parser.closed();
    out.keepAlive = parser.keepAlive();
    KS_FUZZ_CHECK(out.heads <= 1);
    KS_FUZZ_CHECK(out.heads == 0 || (out.code >= 200 && out.code <= 999));
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const ksfuzz::SplitInput input(data, size);
    const auto inReads = [&](auto&& feed) { input.forEachRead(feed); };
    const auto atOnce = [&](auto&& feed) { feed(input.stream.constData(), input.stream.size()); };
    for (bool closeAtEnd : { false, true }) {
        const Outcome split = parse(inReads, closeAtEnd);
        const Outcome whole = parse(atOnce, closeAtEnd);
        KS_FUZZ_CHECK(split.status == whole.status);
        KS_FUZZ_CHECK(split.heads == whole.heads);
        KS_FUZZ_CHECK(split.code == whole.code);
        KS_FUZZ_CHECK(split.body.size() <= input.stream.size());
        // A cut inside a chunk-size line can only make an error surface later, never a different body.
        if (split.status == ks::HttpResponseParser::Status::Done) {
            KS_FUZZ_CHECK(split.body == whole.body);
            KS_FUZZ_CHECK(split.keepAlive == whole.keepAlive);
        }
    }
    return 0;
}
