#!/usr/bin/env node
// A lockstep streaming server that is not knobscope-sim, for judging a client's send
// path against an independent implementation (bench/send_path_lockstep.py runs it).
//
// OpenAI-compatible POST /v1/completions (and /v1/chat/completions) with stream: true,
// GET /v1/models and GET /health, on Node's own http module. All open streams advance
// in lockstep, as a batching engine's do: one global step timer (--step-ms) writes one
// token to every active stream, so every stream of a wave ends at the same step, and a
// request joins at the first step after its body has arrived. The whole server is one
// thread: a burst of N requests is handled one request at a time, in the order the
// kernel hands the sockets to the event loop.
//
// Each request is stamped when its handler runs (Node's 'request' event: the request
// line and headers parsed), on CLOCK_MONOTONIC (process.hrtime is uv_hrtime), the clock
// the bench clients stamp post() with. The log (--log, JSON lines, written on SIGTERM or
// SIGINT) has one line per request in the shape of knobscope-sim's truth log, so the
// same readers match it by X-Request-Id:
//   client_request_id  the X-Request-Id header
//   arrival_us         the handler ran
//   body_us            the body was complete (the request joins the next step after it)
//   first_token_us     the first token chunk was written; token_us every token's write
//   first_step         the step index of the first token (one wave = one first_step)
// Binds 127.0.0.1 only. Prints "lockstep_server listening on http://127.0.0.1:PORT".
'use strict';

const fs = require('fs');
const http = require('http');

function parseArgs(argv) {
  const opts = { port: 0, stepMs: 20, log: '', headersAt: 'arrival' };
  for (let i = 2; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) usage();
    if (flag === '--port') opts.port = Number(value);
    else if (flag === '--step-ms') opts.stepMs = Number(value);
    else if (flag === '--log') opts.log = value;
    else if (flag === '--headers-at' && (value === 'arrival' || value === 'first-token')) opts.headersAt = value;
    else usage();
  }
  if (!(opts.stepMs > 0) || !Number.isInteger(opts.port)) usage();
  return opts;
}

function usage() {
  process.stderr.write('usage: lockstep_server.js [--port P] [--step-ms MS] [--log FILE] '
    + '[--headers-at arrival|first-token]\n');
  process.exit(2);
}

const opts = parseArgs(process.argv);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const WORDS = ['amber', 'brook', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'harbor',
  'inlet', 'juniper', 'kettle', 'lagoon', 'meadow', 'nectar', 'orchard', 'pebble'];

const joining = []; // body complete, waiting for the next step
let active = []; // streaming
const done = []; // log lines of finished requests
let step = 0;
let nextId = 0;

function sseChunk(s, text, finish) {
  const choice = s.chat
    ? { index: 0, delta: { content: text }, logprobs: null, finish_reason: finish }
    : { index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null };
  return 'data: ' + JSON.stringify({ id: s.id, object: s.chat ? 'chat.completion.chunk' : 'text_completion',
    created: s.created, model: s.model, choices: [choice] }) + '\n\n';
}

function usageChunk(s) {
  return 'data: ' + JSON.stringify({ id: s.id, object: s.chat ? 'chat.completion.chunk' : 'text_completion',
    created: s.created, model: s.model, choices: [],
    usage: { prompt_tokens: s.promptTokens, total_tokens: s.promptTokens + s.maxTokens,
      completion_tokens: s.maxTokens } }) + '\n\n';
}

function sendHeaders(res) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
}

// The log lines are made at shutdown: a wave's last step ends every stream of the wave,
// and serialising 256 token lists there would delay the handlers of the re-posted wave.
function record(s) {
  done.push(({ client_request_id: s.rid, arrival_us: s.arrivalUs, body_us: s.bodyUs,
    first_token_us: s.tokenUs.length ? s.tokenUs[0] : -1, first_step: s.firstStep, tokens: s.tokenUs.length,
    max_tokens: s.maxTokens, token_us: s.tokenUs, fault: s.fault || undefined }));
}

// One engine step: every active stream gets one token; the requests that finished
// arriving since the last step join it. A stream's last token, the usage chunk and
// [DONE] go out in one write.
function runStep() {
  step += 1;
  while (joining.length) {
    const s = joining.shift();
    if (s.closed) continue;
    s.firstStep = step;
    active.push(s);
  }
  const still = [];
  for (const s of active) {
    if (s.closed) {
      s.fault = 'client_closed';
      record(s);
      continue;
    }
    const n = s.tokenUs.length;
    const last = n + 1 >= s.maxTokens;
    if (n === 0 && opts.headersAt === 'first-token') sendHeaders(s.res);
    let out = sseChunk(s, (n ? ' ' : '') + WORDS[(s.seq + n) % 16], last ? 'length' : null);
    s.tokenUs.push(nowUs());
    if (last) {
      if (s.includeUsage) out += usageChunk(s);
      out += 'data: [DONE]\n\n';
      s.res.end(out);
      record(s);
    } else {
      s.res.write(out);
      still.push(s);
    }
  }
  active = still;
}

// Steps on a fixed grid from the first one; a step that starts late (the thread was
// busy with a burst) is not made up, the next one is on the grid again. A timer that
// fires a little early (Node rounds its timers to the millisecond) still runs the step
// it was set for, once.
const stepUs = opts.stepMs * 1000;
let nextStepUs = nowUs() + stepUs;
function scheduleStep() {
  setTimeout(() => {
    runStep();
    nextStepUs += stepUs;
    const now = nowUs();
    if (nextStepUs <= now) nextStepUs += Math.ceil((now - nextStepUs + 1) / stepUs) * stepUs;
    scheduleStep();
  }, Math.max(0, (nextStepUs - nowUs()) / 1000));
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function completion(req, res, arrivalUs) {
  const s = { rid: req.headers['x-request-id'] || '', arrivalUs, bodyUs: -1, firstStep: -1, tokenUs: [],
    seq: nextId, id: 'cmpl-ls-' + nextId++, created: Math.floor(Date.now() / 1000), res,
    chat: req.url.startsWith('/v1/chat/'), closed: false };
  const parts = [];
  req.on('data', (b) => parts.push(b));
  req.on('end', () => {
    s.bodyUs = nowUs();
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch (e) {
      sendJson(res, 400, { error: { message: 'the body is not JSON', type: 'BadRequestError' } });
      return;
    }
    if (body.stream !== true) {
      sendJson(res, 400, { error: { message: 'this server only streams (stream: true)', type: 'BadRequestError' } });
      return;
    }
    s.model = String(body.model || 'lockstep');
    s.maxTokens = Math.max(1, Math.floor(Number(body.max_tokens) || 16));
    s.includeUsage = Boolean(body.stream_options && body.stream_options.include_usage);
    const prompt = s.chat ? JSON.stringify(body.messages || []) : String(body.prompt || '');
    s.promptTokens = prompt.split(/\s+/).filter(Boolean).length;
    if (opts.headersAt === 'arrival') sendHeaders(res);
    joining.push(s);
  });
  res.on('close', () => { s.closed = true; });
}

const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
  const arrivalUs = nowUs();
  const path = req.url.split('?')[0];
  if (req.method === 'POST' && (path === '/v1/completions' || path === '/v1/chat/completions')) {
    completion(req, res, arrivalUs);
    return;
  }
  req.resume();
  if (req.method === 'GET' && path === '/health') {
    res.writeHead(200, { 'Content-Length': 0 });
    res.end();
  } else if (req.method === 'GET' && path === '/v1/models') {
    sendJson(res, 200, { object: 'list', data: [{ id: 'lockstep', object: 'model', created: 0,
      owned_by: 'bench' }] });
  } else {
    sendJson(res, 404, { error: { message: 'not found: ' + path, type: 'NotFoundError' } });
  }
});
// Keep-alive connections stay open for the whole run, as a benchmark client expects.
server.keepAliveTimeout = 0;
server.headersTimeout = 60000;
server.requestTimeout = 0;
server.maxRequestsPerSocket = 0;

function shutdown() {
  for (const s of active.concat(joining)) {
    s.fault = 'server_shutdown';
    record(s);
  }
  if (opts.log) fs.writeFileSync(opts.log, done.map((r) => JSON.stringify(r) + '\n').join(''));
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

server.listen({ host: '127.0.0.1', port: opts.port, backlog: 4096 }, () => {
  process.stdout.write('lockstep_server listening on http://127.0.0.1:' + server.address().port + '\n');
  scheduleStep();
});
