// The floor: a raw-socket streaming client, one thread, epoll, nonblocking sockets,
// HTTP/1.1 keep-alive and its own chunked decoding. No Qt. It runs the same
// closed-loop load as bench/bare_qnam.cpp and knobscope and writes the
// same per-request lines, so bench/send_path.py can put the three side by side.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

long long nowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double processCpuS()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

[[noreturn]] void die(const char* what)
{
    std::fprintf(stderr, "raw_epoll: %s: %s\n", what, std::strerror(errno));
    std::exit(2);
}

struct Load {
    std::string host = "127.0.0.1";
    int port = 8000;
    std::string model = "sim-1.8b";
    std::string label = "raw";
    std::string out;
    int concurrency = 256;
    int requests = 1024;
    int maxTokens = 128;
    int inputWords = 32;
};

// The same prompts as bench/bare_qnam.cpp: distinct per request.
std::string prompt(int index, int words)
{
    static const char* const kWords[] = { "amber", "brook", "cedar", "delta", "ember", "fjord", "grove", "harbor",
        "inlet", "juniper", "kettle", "lagoon", "meadow", "nectar", "orchard", "pebble" };
    std::string out = "r" + std::to_string(index);
    unsigned h = unsigned(index) * 2654435761u + 1;
    for (int i = 1; i < words; ++i) {
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
        out += ' ';
        out += kWords[h % 16];
    }
    return out;
}

std::string httpRequest(const Load& load, int index)
{
    const std::string body = "{\"model\":\"" + load.model + "\",\"prompt\":\"" + prompt(index, load.inputWords)
        + "\",\"max_tokens\":" + std::to_string(load.maxTokens)
        + ",\"temperature\":0,\"stream\":true,\"ignore_eos\":true,\"stream_options\":{\"include_usage\":true}}";
    return "POST /v1/completions HTTP/1.1\r\nHost: " + load.host + ':' + std::to_string(load.port)
        + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nX-Request-Id: " + load.label + '/'
        + std::to_string(index) + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

enum class State { Headers, ChunkSize, ChunkData, Body, Done };

struct Conn {
    int fd = -1;
    int index = -1; // request in flight, -1 when idle
    State state = State::Headers;
    int status = 0;
    long long tPostUs = 0;
    long long lastTokenUs = -1;
    long long ttftUs = -1;
    int tokens = 0;
    bool sawDone = false;
    std::size_t chunkLeft = 0;
    std::string in; // raw bytes not yet consumed
    std::string sse; // decoded body not yet split into events
    std::string outgoing;
    std::vector<long long> itlUs;
};

class Client {
public:
    explicit Client(Load load)
        : m_load(std::move(load))
    {
    }

    int run()
    {
        m_epoll = epoll_create1(0);
        if (m_epoll < 0)
            die("epoll_create1");
        m_conns.resize(std::size_t(m_load.concurrency));
        for (Conn& c : m_conns)
            open(c);
        const long long t0 = nowUs();
        const double cpu0 = processCpuS();
        for (Conn& c : m_conns)
            launch(c);
        std::vector<epoll_event> ready(256);
        while (m_open > 0) {
            const int n = epoll_wait(m_epoll, ready.data(), int(ready.size()), 60000);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                die("epoll_wait (stalled)");
            for (int i = 0; i < n; ++i) {
                Conn& c = m_conns[ready[i].data.u32];
                if (ready[i].events & EPOLLOUT)
                    flush(c);
                if (ready[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    receive(c);
            }
        }
        const long long wallUs = nowUs() - t0;
        const double cpuS = processCpuS() - cpu0;
        const double perEvent = m_events > 0 ? cpuS * 1e6 / double(m_events) : 0;
        m_lines += "{\"type\":\"summary\",\"client\":\"raw_epoll\",\"t0_mono_us\":" + std::to_string(t0)
            + ",\"wall_s\":" + std::to_string(double(wallUs) / 1e6) + ",\"cpu_s\":" + std::to_string(cpuS)
            + ",\"events\":" + std::to_string(m_events) + ",\"cpu_us_per_event\":" + std::to_string(perEvent)
            + ",\"threads\":1}\n";
        FILE* f = std::fopen(m_load.out.c_str(), "w");
        if (!f)
            die(m_load.out.c_str());
        std::fwrite(m_lines.data(), 1, m_lines.size(), f);
        std::fclose(f);
        std::printf("raw_epoll: %d requests, %lld token events in %.2f s, CPU %.2f s = %.1f us per event\n",
            m_load.requests, m_events, double(wallUs) / 1e6, cpuS, perEvent);
        return 0;
    }

private:
    // Connect and complete one GET /v1/models (blocking), so no timed request pays a handshake.
    void open(Conn& c)
    {
        c.fd = socket(AF_INET, SOCK_STREAM, 0);
        if (c.fd < 0)
            die("socket");
        sockaddr_in addr {};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(std::uint16_t(m_load.port));
        inet_pton(AF_INET, m_load.host.c_str(), &addr.sin_addr);
        if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0)
            die("connect");
        const int one = 1;
        setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        const std::string get = "GET /v1/models HTTP/1.1\r\nHost: " + m_load.host + "\r\n\r\n";
        if (write(c.fd, get.data(), get.size()) != ssize_t(get.size()))
            die("write");
        std::string reply;
        char buf[4096];
        for (;;) {
            const ssize_t n = read(c.fd, buf, sizeof buf);
            if (n <= 0)
                die("read /v1/models");
            reply.append(buf, std::size_t(n));
            const std::size_t end = reply.find("\r\n\r\n");
            if (end == std::string::npos)
                continue;
            const std::size_t cl = lowerFind(reply.substr(0, end), "content-length:");
            const std::size_t length = cl == std::string::npos ? 0 : std::strtoul(reply.c_str() + cl + 15, nullptr, 10);
            if (reply.size() >= end + 4 + length)
                break;
        }
        fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK);
        epoll_event ev {};
        ev.events = EPOLLIN;
        ev.data.u32 = std::uint32_t(&c - m_conns.data());
        if (epoll_ctl(m_epoll, EPOLL_CTL_ADD, c.fd, &ev) < 0)
            die("epoll_ctl");
        ++m_open;
    }

    static std::size_t lowerFind(std::string text, std::string_view what)
    {
        std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
        return text.find(what);
    }

    void launch(Conn& c)
    {
        if (m_next >= m_load.requests) {
            close(c.fd);
            c.fd = -1;
            --m_open;
            return;
        }
        const int index = m_next++;
        const int fd = c.fd;
        c = Conn {};
        c.fd = fd;
        c.index = index;
        c.itlUs.reserve(std::size_t(m_load.maxTokens));
        c.outgoing = httpRequest(m_load, index);
        c.tPostUs = nowUs();
        flush(c);
    }

    void flush(Conn& c)
    {
        while (!c.outgoing.empty()) {
            const ssize_t n = write(c.fd, c.outgoing.data(), c.outgoing.size());
            if (n < 0 && errno == EAGAIN)
                break;
            if (n < 0)
                die("write");
            c.outgoing.erase(0, std::size_t(n));
        }
        epoll_event ev {};
        ev.events = EPOLLIN | (c.outgoing.empty() ? 0u : unsigned(EPOLLOUT));
        ev.data.u32 = std::uint32_t(&c - m_conns.data());
        epoll_ctl(m_epoll, EPOLL_CTL_MOD, c.fd, &ev);
    }

    void receive(Conn& c)
    {
        char buf[65536];
        for (;;) {
            const long long t = nowUs();
            const ssize_t n = read(c.fd, buf, sizeof buf);
            if (n < 0 && errno == EAGAIN)
                return;
            if (n <= 0) {
                std::fprintf(stderr, "raw_epoll: connection closed during request %d\n", c.index);
                finish(c, false);
                close(c.fd);
                c.fd = -1;
                --m_open;
                return;
            }
            c.in.append(buf, std::size_t(n));
            parse(c, t);
            if (c.state == State::Done) {
                finish(c, true);
                launch(c);
                return;
            }
        }
    }

    // HTTP/1.1 response: status line and headers, then chunked transfer coding.
    void parse(Conn& c, long long t)
    {
        std::size_t pos = 0;
        for (;;) {
            if (c.state == State::Headers) {
                const std::size_t end = c.in.find("\r\n\r\n", pos);
                if (end == std::string::npos)
                    break;
                c.status = std::atoi(c.in.c_str() + pos + 9); // "HTTP/1.1 200"
                const std::string headers = c.in.substr(pos, end - pos);
                pos = end + 4;
                c.state = State::ChunkSize;
                if (lowerFind(headers, "transfer-encoding: chunked") == std::string::npos) {
                    // An error answer with Content-Length: read it whole, it carries no tokens.
                    const std::size_t cl = lowerFind(headers, "content-length:");
                    c.chunkLeft = cl == std::string::npos ? 0 : std::strtoul(headers.c_str() + cl + 15, nullptr, 10);
                    c.state = State::Body;
                }
            } else if (c.state == State::Body) {
                const std::size_t take = std::min(c.chunkLeft, c.in.size() - pos);
                pos += take;
                c.chunkLeft -= take;
                if (c.chunkLeft > 0)
                    break;
                c.state = State::Done;
                break;
            } else if (c.state == State::ChunkSize) {
                const std::size_t end = c.in.find("\r\n", pos);
                if (end == std::string::npos)
                    break;
                const std::size_t size = std::strtoul(c.in.c_str() + pos, nullptr, 16);
                if (size == 0) {
                    // The last chunk: the simulator sends no trailers, so one more CRLF ends the body.
                    if (c.in.size() < end + 4)
                        break;
                    pos = end + 4;
                    c.state = State::Done;
                    break;
                }
                c.chunkLeft = size;
                pos = end + 2;
                c.state = State::ChunkData;
            } else if (c.state == State::ChunkData) {
                const std::size_t take = std::min(c.chunkLeft, c.in.size() - pos);
                c.sse.append(c.in, pos, take);
                pos += take;
                c.chunkLeft -= take;
                if (c.chunkLeft > 0)
                    break;
                if (c.in.size() < pos + 2) // the chunk's CRLF is not here yet
                    break;
                pos += 2;
                c.state = State::ChunkSize;
            } else {
                break;
            }
        }
        c.in.erase(0, pos);
        scan(c, t);
    }

    // The minimal SSE scan: events end at a blank line; a token event has a non-empty "text".
    void scan(Conn& c, long long t)
    {
        std::size_t start = 0;
        for (;;) {
            const std::size_t end = c.sse.find("\n\n", start);
            if (end == std::string::npos)
                break;
            const std::string_view event(c.sse.data() + start, end - start);
            const std::size_t text = event.find("\"text\":\"");
            if (text != std::string_view::npos && text + 8 < event.size() && event[text + 8] != '"') {
                if (c.ttftUs < 0)
                    c.ttftUs = t - c.tPostUs;
                else
                    c.itlUs.push_back(t - c.lastTokenUs);
                c.lastTokenUs = t;
                ++c.tokens;
            } else if (event.substr(0, 12) == "data: [DONE]") {
                c.sawDone = true;
            }
            start = end + 2;
        }
        c.sse.erase(0, start);
    }

    void finish(Conn& c, bool complete)
    {
        const bool ok = complete && c.status == 200 && c.sawDone && c.tokens > 0;
        m_events += c.tokens;
        m_lines += "{\"type\":\"request\",\"rid\":\"" + m_load.label + '/' + std::to_string(c.index)
            + "\",\"t_post_mono_us\":" + std::to_string(c.tPostUs) + ",\"status\":" + std::to_string(c.status)
            + ",\"ok\":" + (ok ? "true" : "false") + ",\"ttft_us\":" + std::to_string(c.ttftUs) + ",\"e2e_us\":"
            + std::to_string(nowUs() - c.tPostUs) + ",\"tokens\":" + std::to_string(c.tokens) + ",\"itl_us\":[";
        for (std::size_t i = 0; i < c.itlUs.size(); ++i) {
            if (i > 0)
                m_lines += ',';
            m_lines += std::to_string(c.itlUs[i]);
        }
        m_lines += "]}\n";
    }

    Load m_load;
    int m_epoll = -1;
    int m_open = 0;
    int m_next = 0;
    long long m_events = 0;
    std::vector<Conn> m_conns;
    std::string m_lines;
};

bool parseArgs(int argc, char** argv, Load& load)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--help" || flag == "-h" || i + 1 >= argc)
            return false;
        const char* value = argv[++i];
        if (flag == "--base-url") {
            // http://HOST:PORT[/...], IPv4 only: all traffic stays on loopback.
            std::string url = value;
            if (url.rfind("http://", 0) != 0)
                return false;
            url.erase(0, 7);
            const std::size_t colon = url.find(':');
            if (colon == std::string::npos)
                return false;
            load.host = url.substr(0, colon);
            load.port = std::atoi(url.c_str() + colon + 1);
        } else if (flag == "--model") {
            load.model = value;
        } else if (flag == "--label") {
            load.label = value;
        } else if (flag == "--out") {
            load.out = value;
        } else if (flag == "--concurrency") {
            load.concurrency = std::max(1, std::atoi(value));
        } else if (flag == "--requests") {
            load.requests = std::max(1, std::atoi(value));
        } else if (flag == "--max-tokens") {
            load.maxTokens = std::max(1, std::atoi(value));
        } else if (flag == "--input-tokens") {
            load.inputWords = std::max(1, std::atoi(value));
        } else {
            return false;
        }
    }
    return !load.out.empty();
}

} // namespace

int main(int argc, char** argv)
{
    Load load;
    if (!parseArgs(argc, argv, load)) {
        std::fputs("usage: raw_epoll --out FILE [--base-url http://127.0.0.1:PORT] [--model M] [--label L]\n"
                   "                 [--concurrency C] [--requests N] [--max-tokens T] [--input-tokens I]\n",
            stderr);
        return 2;
    }
    load.concurrency = std::min(load.concurrency, load.requests);
    return Client(std::move(load)).run();
}
