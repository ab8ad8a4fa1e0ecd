#include "workload/workload.h"

#include "workload/syntheticprompt.h"
#include "workload/traceprompt.h"

#include <random>

namespace ks {

namespace {
using json = nlohmann::json;

// Independent seeded streams per (session, turn) and purpose: a length drawn for
// request 7 never depends on how many requests were sent before it.
std::mt19937_64 streamFor(quint64 seed, qint64 session, int turn, quint64 salt)
{
    std::seed_seq seq { std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(session),
        std::uint32_t(quint64(session) >> 32), std::uint32_t(turn), std::uint32_t(salt) };
    return std::mt19937_64(seq);
}

constexpr quint64 kSaltInput = 1;
constexpr quint64 kSaltOutput = 2;
constexpr quint64 kSaltPrefix = 3;
constexpr quint64 kSaltImages = 4;

const char* const kPrefixWords[] = { "system", "policy", "answer", "always", "polite", "concise", "helpful", "careful",
    "review", "context", "follow", "rules", "detail", "clear", "honest", "brief" };
} // namespace

Workload::Workload(const LoadSpec& spec)
    : m_spec(spec)
{
    for (int i = 0; i < m_spec.prompts.prefixes; ++i)
        m_prefixes.push_back(prefixText(seed(), i, m_spec.prompts.prefixTokens));
    if (m_spec.prompts.images)
        m_images = std::make_shared<const ImagePool>(*m_spec.prompts.images, seed());
}

quint64 Workload::seed() const
{
    return m_spec.prompts.seed.value_or(m_spec.seed);
}

QByteArray Workload::prefixText(quint64 seed, int index, int tokens)
{
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 0x5eed + quint64(index));
    QByteArray out = "sys" + QByteArray::number(index);
    for (int i = 1; i < tokens; ++i) {
        out += ' ';
        out += kPrefixWords[rng() % std::size(kPrefixWords)];
    }
    return out;
}

int Workload::turnsOf(qint64 session) const
{
    const PromptSpec& p = m_spec.prompts;
    if (p.source == PromptSpec::Source::File && p.dataset) {
        return std::min<int>(p.turns, p.dataset->userTurnCount(std::size_t(session) % p.dataset->conversationCount()));
    }
    return p.turns;
}

PromptTurn Workload::turn(qint64 session, int turnIndex, const std::vector<QByteArray>& replies) const
{
    PromptTurn out = textTurn(session, turnIndex, replies);
    if (!m_images || (m_spec.trace && m_spec.trace->index))
        return out;
    // User message t of a session is run-wide message session * turns + t: the
    // same images whenever the conversation is resent.
    int t = 0;
    for (PromptTurn::Message& m : out.messages) {
        if (qstrcmp(m.role, "user") != 0)
            continue;
        auto rng = streamFor(seed(), session, t, kSaltImages);
        m.images = m_images->imagesFor(session * m_spec.prompts.turns + t, rng);
        out.images += int(m.images.size());
        for (const ImageRef& image : m.images)
            out.imageBytes += image->bytes;
        ++t;
    }
    if (out.images > 0)
        out.inTokens = 0; // the server counts image tokens by its own rule: its usage fills it
    return out;
}

PromptTurn Workload::textTurn(qint64 session, int turnIndex, const std::vector<QByteArray>& replies) const
{
    const PromptSpec& p = m_spec.prompts;
    PromptTurn out;
    auto outputRng = streamFor(seed(), session, turnIndex, kSaltOutput);
    out.maxTokens = m_spec.maxTokensDist ? m_spec.maxTokensDist->draw(outputRng) : m_spec.maxTokens;
    if (m_spec.trace && m_spec.trace->index && std::size_t(session) < m_spec.trace->index->entries.size()) {
        const TraceEntry& e = m_spec.trace->index->entries[std::size_t(session)];
        out.maxTokens = e.outputLen;
        out.inTokens = e.inputLen;
        out.messages.push_back({ "user", tracePrompt(*m_spec.trace->index, std::size_t(session), seed()) });
        return out;
    }
    if (p.source == PromptSpec::Source::File && p.dataset) {
        const Conversation c = p.dataset->conversation(std::size_t(session) % p.dataset->conversationCount());
        for (const QByteArray& system : c.system)
            out.messages.push_back({ "system", system });
        for (int t = 0; t <= turnIndex; ++t) {
            out.messages.push_back({ "user", c.userTurns[std::size_t(t)] });
            if (t < turnIndex)
                out.messages.push_back({ "assistant", replies[std::size_t(t)] });
        }
        return out;
    }
    // Synthetic: a shared prefix (as the system prompt), then one user message per turn.
    if (!m_prefixes.empty()) {
        auto prefixRng = streamFor(seed(), session, 0, kSaltPrefix);
        out.prefix = int(prefixRng() % m_prefixes.size());
        out.messages.push_back({ "system", m_prefixes[std::size_t(out.prefix)] });
        out.inTokens += p.prefixTokens;
    }
    const LengthDist input = p.inputTokens.value_or(LengthDist::fixed(m_spec.inputTokens));
    for (int t = 0; t <= turnIndex; ++t) {
        auto inputRng = streamFor(seed(), session, t, kSaltInput);
        const int words = input.draw(inputRng);
        // Single requests keep the numbering of the plain synthetic prompts.
        const qint64 index = p.multiTurn() ? session * p.turns + t : session;
        out.messages.push_back({ "user", syntheticPrompt(seed(), index, words) });
        out.inTokens += words;
        if (t < turnIndex)
            out.messages.push_back({ "assistant", replies[std::size_t(t)] });
    }
    if (turnIndex > 0)
        out.inTokens = 0; // the replies' length is the server's to count
    return out;
}

QByteArray Workload::completionPrompt(const PromptTurn& turn)
{
    QByteArray text;
    for (const PromptTurn::Message& m : turn.messages) {
        if (!text.isEmpty())
            text += '\n';
        text += m.content;
    }
    return text;
}

json Workload::identity(const LoadSpec& spec)
{
    const PromptSpec& p = spec.prompts;
    json id = json::object();
    if (spec.trace) {
        const TraceSpec& t = *spec.trace;
        id["source"] = "trace";
        id["path"] = t.path.toStdString();
        id["format"] = traceFormatName(t.format).toStdString();
        id["speed"] = t.speed;
        id["start_s"] = t.startS;
        id["duration_s"] = t.durationS > 0 ? json(t.durationS) : json(nullptr);
        id["requests"] = t.index ? t.index->entries.size() : 0;
    } else if (p.source == PromptSpec::Source::File) {
        id["source"] = "file";
        id["path"] = p.path.toStdString();
        id["format"] = formatName(p.format).toStdString();
        id["file_sha256"] = p.dataset ? p.dataset->sha256.toStdString() : std::string();
        if (p.dataset && p.dataset->skippedConversations > 0)
            id["file_skipped_conversations"] = p.dataset->skippedConversations;
        id["conversations"] = p.dataset ? p.dataset->conversationCount() : 0;
    } else {
        id["source"] = "synthetic";
        id["input_tokens"] = p.inputTokens.value_or(LengthDist::fixed(spec.inputTokens)).toJson();
        if (p.prefixes > 0)
            id["shared_prefix"] = { { "prefixes", p.prefixes }, { "prefix_tokens", p.prefixTokens } };
    }
    id["seed"] = p.seed.value_or(spec.seed);
    if (p.multiTurn())
        id["multi_turn"] = { { "turns", p.turns } };
    id["max_tokens"] = spec.trace ? json("trace")
        : spec.maxTokensDist      ? spec.maxTokensDist->toJson()
                                  : json(spec.maxTokens);
    if (p.images)
        id["images"] = p.images->toJson();
    id["api"] = spec.api == ApiKind::Chat ? "chat" : "completions";
    return id;
}

bool Workload::sameWorkload(const json& a, const json& b, QString* problem)
{
    auto comparable = [](json id) {
        if (id.is_object())
            id.erase("path"); // the same bytes under another name are the same workload
        return id;
    };
    if (comparable(a) == comparable(b))
        return true;
    auto describe = [](const json& id) {
        return id.is_object() ? QString::fromStdString(id.dump()) : QStringLiteral("not recorded");
    };
    if (problem)
        *problem = QStringLiteral("%1 against %2").arg(describe(comparable(a)), describe(comparable(b)));
    return false;
}

} // namespace ks
