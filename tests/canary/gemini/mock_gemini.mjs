#!/usr/bin/env node
// A scripted stand-in for the Gemini API (generativelanguage v1beta) on 127.0.0.1, so the real
// Gemini CLI can be driven offline. Node's standard library only.
//
//   node mock_gemini.mjs --script scenarios.json --scenario NAME --port-file F --log F [--var K=V]
//
// Serves POST /v1beta/models/<model>:streamGenerateContent (SSE), :generateContent and
// :countTokens. A request whose generationConfig asks for JSON (the CLI's model router, its
// next-speaker and loop checks) gets an object filled from its responseJsonSchema; every other
// request is answered by the first rule of the scenario whose `when` matches (see scenarios.json).
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';

function parseArgs(argv) {
  const args = { vars: {} };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (key === '--var') {
      const eq = value.indexOf('=');
      args.vars[value.slice(0, eq)] = value.slice(eq + 1);
    } else {
      args[key.replace(/^--/, '').replace(/-/g, '_')] = value;
    }
  }
  for (const required of ['script', 'scenario', 'port_file', 'log'])
    if (!args[required]) throw new Error(`missing --${required.replace(/_/g, '-')}`);
  return args;
}

const args = parseArgs(process.argv.slice(2));
const script = JSON.parse(fs.readFileSync(args.script, 'utf8'));
const scenario = script.scenarios[args.scenario];
if (!scenario) throw new Error(`no scenario ${args.scenario} in ${args.script}`);
const log = fs.createWriteStream(args.log, { flags: 'a' });
const failures = new Map(); // rule index -> failures served so far

function fill(value) {
  if (typeof value === 'string')
    return value.replace(/\{\{(\w+)\}\}/g, (_, name) => args.vars[name] ?? `{{${name}}}`);
  if (Array.isArray(value)) return value.map(fill);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  return value;
}

const textOf = (content) => (content?.parts ?? []).map((p) => p.text ?? '').join('\n');
const responsesIn = (content) =>
  (content?.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse);

// The text of the latest user turn that says something (tool responses carry no text).
function lastPrompt(contents) {
  for (let i = contents.length - 1; i >= 0; i--)
    if (contents[i].role === 'user' && (contents[i].parts ?? []).some((p) => p.text)) return textOf(contents[i]);
  return '';
}

function matches(when, body) {
  const contents = body.contents ?? [];
  const last = contents[contents.length - 1];
  if (when.last_text_contains && !textOf(last).includes(when.last_text_contains)) return false;
  if (when.system_contains && !textOf(body.systemInstruction).includes(when.system_contains)) return false;
  if (when.prompt_contains && !lastPrompt(contents).includes(when.prompt_contains)) return false;
  if (when.any_text_contains && !contents.some((c) => textOf(c).includes(when.any_text_contains)))
    return false;
  if (when.function_response_for) {
    const names = responsesIn(last).map((r) => r.name);
    if (!names.includes(when.function_response_for)) return false;
  }
  if (when.no_function_response && responsesIn(last).length > 0) return false;
  return true;
}

// A value of the JSON schema's shape: what the CLI's side requests (router, checks) parse.
function fromSchema(schema, name = '') {
  const type = String(schema?.type ?? 'object').toLowerCase();
  if (schema?.enum) return name === 'next_speaker' && schema.enum.includes('user') ? 'user' : schema.enum[0];
  if (type === 'object') {
    const out = {};
    for (const [key, sub] of Object.entries(schema?.properties ?? {})) out[key] = fromSchema(sub, key);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return name.includes('score') ? 15 : 1;
  if (type === 'boolean') return false;
  if (name === 'model_choice') return 'flash';
  return `mock ${name}`.trim();
}

const estimate = (text) => Math.max(1, Math.ceil(text.length / 4));

// usageMetadata as the API reports it: prompt includes cached; thoughts are apart from candidates.
function usageFor(reply, body, replyText) {
  const prompt = estimate(JSON.stringify(body.contents ?? []) + JSON.stringify(body.systemInstruction ?? ''));
  const usage = {
    promptTokenCount: prompt,
    candidatesTokenCount: estimate(replyText),
    totalTokenCount: 0,
    ...(reply.usage ?? {}),
  };
  usage.totalTokenCount =
    usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0) +
    (usage.toolUsePromptTokenCount ?? 0);
  return usage;
}

// The reply's chunks: thoughts first, then text in two pieces, then function calls; the last
// chunk carries finishReason and usage, as the streaming API sends them.
function chunksFor(reply, body, model) {
  const parts = [];
  for (const thought of reply.thoughts ?? []) parts.push([{ text: thought, thought: true }]);
  if (reply.text) {
    const half = Math.floor(reply.text.length / 2);
    parts.push([{ text: reply.text.slice(0, half) }], [{ text: reply.text.slice(half) }]);
  }
  for (const call of reply.calls ?? []) parts.push([{ functionCall: { name: call.name, args: call.args ?? {} } }]);
  if (parts.length === 0) parts.push([{ text: '' }]);
  const replyText = (reply.thoughts ?? []).join('') + (reply.text ?? '') + JSON.stringify(reply.calls ?? []);
  const responseId = randomUUID().replace(/-/g, '').slice(0, 22);
  return parts.map((p, i) => {
    const chunk = { candidates: [{ content: { role: 'model', parts: p }, index: 0 }], modelVersion: model, responseId };
    if (i === parts.length - 1) {
      chunk.candidates[0].finishReason = 'STOP';
      chunk.usageMetadata = usageFor(reply, body, replyText);
    }
    return chunk;
  });
}

function pickRule(body) {
  const rules = [...(scenario.rules ?? []), ...(script.global_rules ?? [])];
  for (let i = 0; i < rules.length; i++) if (matches(rules[i].when ?? {}, body)) return [i, rules[i]];
  return [-1, { reply: { text: 'The mock has no rule for this request.' } }];
}

function send(res, status, json) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(json));
}

function handle(req, res, raw) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const [, model = '', method = ''] = url.pathname.match(/\/models\/([^/:]+):(\w+)$/) ?? [];
  let body = {};
  try {
    body = raw ? JSON.parse(raw) : {};
  } catch {
    return send(res, 400, { error: { code: 400, message: 'body is not JSON', status: 'INVALID_ARGUMENT' } });
  }
  const entry = { at: new Date().toISOString(), method: req.method, path: url.pathname, model, call: method };
  if (method === 'countTokens') {
    log.write(JSON.stringify(entry) + '\n');
    return send(res, 200, { totalTokens: estimate(JSON.stringify(body.contents ?? [])) });
  }
  const config = body.generationConfig ?? body.config ?? {};
  if (config.responseMimeType === 'application/json') {
    const value = fromSchema(config.responseJsonSchema ?? config.responseSchema);
    log.write(JSON.stringify({ ...entry, answered: 'json' }) + '\n');
    const reply = { candidates: [{ content: { role: 'model', parts: [{ text: JSON.stringify(value) }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 10, totalTokenCount: 60 }, modelVersion: model };
    return method === 'streamGenerateContent' ? sse(res, [reply]) : send(res, 200, reply);
  }
  const [index, rule] = pickRule(body);
  const reply = fill(rule.reply ?? {});
  const tools = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
  log.write(JSON.stringify({ ...entry, rule: rule.name ?? index, tools }) + '\n');
  if (reply.error) {
    const served = failures.get(index) ?? 0;
    if (reply.fail_times === undefined || served < reply.fail_times) {
      failures.set(index, served + 1);
      const { status = 500, message = 'mock failure', reason = 'INTERNAL' } = reply.error;
      return send(res, status, { error: { code: status, message, status: reason } });
    }
  }
  const chunks = chunksFor(reply, body, model);
  if (method === 'streamGenerateContent') return sse(res, chunks);
  // generateContent: one response holding every part.
  const whole = chunks[chunks.length - 1];
  whole.candidates[0].content.parts = chunks.flatMap((c) => c.candidates[0].content.parts);
  return send(res, 200, whole);
}

function sse(res, chunks) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  res.end();
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (piece) => (raw += piece));
  req.on('end', () => {
    try {
      handle(req, res, raw);
    } catch (error) {
      send(res, 500, { error: { code: 500, message: String(error), status: 'INTERNAL' } });
    }
  });
});
server.listen(0, '127.0.0.1', () => fs.writeFileSync(args.port_file, String(server.address().port)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
