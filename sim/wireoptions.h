#pragma once

namespace kssim {

/// Byte-level variations that exercise a client's SSE parser.
struct WireOptions {
    bool crlf = false; ///< "\r\n" line ends instead of "\n"
    bool splitWrites = false; ///< each event cut at random byte offsets (inside UTF-8 too), 1 ms apart
    bool comments = false; ///< ": keep-alive" comment lines between events
};

} // namespace kssim
