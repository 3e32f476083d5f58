// Drives `helix-host mcp` with the official MCP TypeScript client (@modelcontextprotocol/sdk, as
// pinned in package.json) against a store swept from the fixtures of every flavor, and with raw
// JSON-RPC lines for what a client library would never send. run_mcp_test.sh prepares the store
// and sets the environment:
//   HELIX_HOST, HELIX_PLUGINS, HELIX_STORE_DIR  the binary, its plugins and the swept store
//   HELIX_XDG                                   an XDG_CONFIG_HOME without a helix config
//   HELIX_REPOS                                 holds cli/ (the scoped server's working
//                                               directory), codemie-code/ and mockworkA/ (the
//                                               working directory of codex:01a2029b, so that it
//                                               can be resumed)
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ErrorCode,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set; run this through run_mcp_test.sh`);
  return value;
};
const HOST = env('HELIX_HOST');
const REPOS = env('HELIX_REPOS');
const GLOBAL_ARGS = ['--plugins', env('HELIX_PLUGINS'), '--store', env('HELIX_STORE_DIR')];
const CHILD_ENV = { XDG_CONFIG_HOME: env('HELIX_XDG'), TZ: 'UTC' };

const MIT_SESSION = 'claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed';  // repo cli
const HELLO_CODEX = 'codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8';  // repo mockworkA
const HELLO_GROK = 'grok:01a2029c-db54-7f63-8de6-3e496b22d736';  // repo proj
const LONG_SESSION = 'codex:019c8a4c-ed82-79a1-aa28-7738fc5ab61a';  // 347 events
const LONGEST_TRANSCRIPT = 'claude:ef958aa1-0e93-49f0-bb71-150f63befcd1';  // ~95 KiB of markdown
const TOOLS = ['get_session', 'list_sessions', 'recall', 'resume_command', 'search_sessions',
               'session_usage'];

// The CLI's answer, as ground truth for the server's.
function cli(...args) {
  return JSON.parse(execFileSync(HOST, [...GLOBAL_ARGS, ...args],
                                 { env: { ...process.env, ...CHILD_ENV }, encoding: 'utf8' }));
}

const clients = [];
async function connect({ cwd = path.join(REPOS, 'cli'), args = [], roots } = {}) {
  const client = new Client({ name: 'helix-mcp-test', version: '1.0.0' },
                            { capabilities: roots ? { roots: { listChanged: true } } : {} });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots() }));
  const transport = new StdioClientTransport({
    command: HOST, args: [...GLOBAL_ARGS, 'mcp', ...args], cwd, env: CHILD_ENV, stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${result.content[0].text}`);
  // Structured results come with their JSON as text too (the specification's SHOULD).
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

async function refusal(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} must be refused`);
  assert.equal(result.structuredContent, undefined, 'a refusal carries no data');
  return result.content[0].text;
}

// The tokens a result costs, as the server counts them: 4 bytes of its JSON per token.
const tokensOf = (value) => Math.ceil(Buffer.byteLength(JSON.stringify(value)) / 4);

let scoped, everything;
test.before(async () => {
  scoped = await connect();
  everything = await connect({ args: ['--all-repos'] });
});
test.after(async () => { for (const c of clients) await c.close(); });

test('initialize: the server names itself and offers tools and resources', () => {
  assert.equal(scoped.getServerVersion().name, 'helix-host');
  const caps = scoped.getServerCapabilities();
  assert.ok(caps.tools, 'tools capability');
  assert.ok(caps.resources, 'resources capability');
  assert.match(scoped.getInstructions() ?? '', /helix/i);
});

test('tools/list: six tools, each with input and output schemas', async () => {
  const { tools } = await scoped.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  for (const tool of tools) {
    assert.ok(tool.description.length > 40, `${tool.name} describes itself`);
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal(tool.inputSchema.additionalProperties, false);
    assert.equal(tool.outputSchema.type, 'object');
    assert.equal(tool.annotations?.readOnlyHint, true);
  }
});

test('list_sessions: the scoped server lists its repository only, newest first', async () => {
  const expected = cli('sessions', '--json', '--repo', 'cli');
  const got = await call(scoped, 'list_sessions', { limit: 200 });
  assert.deepEqual(got.scope, ['cli']);
  assert.equal(got.total, expected.length);
  assert.deepEqual(new Set(got.sessions.map((s) => s.uid)),
                   new Set(expected.map((s) => s.session_uid)));
  for (const s of got.sessions) assert.equal(s.repo, 'cli');
  const starts = got.sessions.map((s) => s.started_at ?? '');
  assert.deepEqual(starts, [...starts].sort().reverse());
  const two = await call(scoped, 'list_sessions', { limit: 2 });
  assert.equal(two.sessions.length, 2);
  assert.equal(two.total, expected.length);
});

test('list_sessions --all-repos: every flavor, since and until', async () => {
  const got = await call(everything, 'list_sessions', { limit: 200 });
  assert.equal(got.scope, 'all');
  assert.equal(got.total, cli('sessions', '--json').length);
  assert.deepEqual(new Set(got.sessions.map((s) => s.flavor)), new Set(['claude', 'codex', 'grok']));
  const late = await call(everything, 'list_sessions', { since: '2026-11-01', limit: 200 });
  assert.deepEqual(late.sessions.map((s) => s.uid).sort(),
                   ['codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8',
                    'codex:01a2029e-059d-7da1-9afe-8f127feb8172', HELLO_GROK].sort());
  const early = await call(everything, 'list_sessions', { until: '2025-08-01', limit: 200 });
  for (const s of early.sessions) assert.ok(s.started_at === null || s.started_at < '2025-08-02');
  const codex = await call(everything, 'list_sessions', { flavor: 'codex', limit: 200 });
  assert.ok(codex.sessions.length > 0);
  for (const s of codex.sessions) assert.equal(s.flavor, 'codex');
});

test('search_sessions: hits grouped per session, with filters', async () => {
  const got = await call(scoped, 'search_sessions', { query: 'MIT license' });
  assert.equal(got.sessions[0].session.uid, MIT_SESSION);
  assert.match(got.sessions[0].hits[0].snippet, /MIT/);
  for (const s of got.sessions) assert.equal(s.session.repo, 'cli');
  const uids = got.sessions.map((s) => s.session.uid);
  assert.equal(new Set(uids).size, uids.length, 'one entry per session');
  const codex = await call(scoped, 'search_sessions', { query: 'MIT license', flavor: 'codex' });
  assert.equal(codex.sessions.length, 0);
  const after = await call(scoped, 'search_sessions', { query: 'MIT license', since: '2026-01-07' });
  assert.equal(after.sessions.length, 0);
  const before = await call(scoped, 'search_sessions', { query: 'MIT license', until: '2026-01-05' });
  assert.equal(before.sessions.length, 0);
  // Punctuation is plain text, not query syntax.
  const file = await call(everything, 'search_sessions', { query: 'hello.txt' });
  const flavors = new Set(file.sessions.map((s) => s.session.flavor));
  assert.ok(flavors.has('codex') && flavors.has('grok'), JSON.stringify([...flavors]));
  const grok = await call(everything, 'search_sessions', { query: 'hello.txt', flavor: 'grok' });
  assert.deepEqual(grok.sessions.map((s) => s.session.uid), [HELLO_GROK]);
});

test('get_session: by prefix, summary and digest', async () => {
  const summary = await call(scoped, 'get_session', { id: 'cf564e14' });
  assert.equal(summary.session.uid, MIT_SESSION);
  assert.equal(summary.part, 'summary');
  assert.match(summary.summary.first_prompt, /MIT license/);
  const digest = await call(scoped, 'get_session', { id: MIT_SESSION, part: 'digest' });
  const expected = cli('digest', MIT_SESSION, '--json');
  assert.equal(digest.digest.outcome, expected.outcome);
  assert.deepEqual(digest.digest.tool_histogram, expected.tool_histogram);
  const unknown = await refusal(scoped, 'get_session', { id: 'ffffffff' });
  assert.match(unknown, /no session/i);
  const ambiguous = await refusal(everything, 'get_session', { id: '01a2029' });
  assert.match(ambiguous, /01a2029b/);
  assert.match(ambiguous, /01a2029c/);
});

test('get_session: turns within max_tokens, paged to the end by `next`', async () => {
  const budget = 600;
  let args = { id: LONG_SESSION, part: 'turns', max_tokens: budget };
  const seen = [];
  for (let page = 0; args && page < 200; ++page) {
    const got = await call(everything, 'get_session', args);
    assert.ok(tokensOf(got) <= budget, `page ${page}: ${tokensOf(got)} tokens > ${budget}`);
    assert.equal(got.budget.max_tokens, budget);
    for (const turn of got.turns) for (const e of turn.events) seen.push(e.seq);
    if (got.next) assert.ok(got.left_out.length > 0, 'a cut page says what it left out');
    args = got.next;
  }
  assert.equal(args, null, 'the pages end');
  assert.equal(new Set(seen).size, seen.length, 'no event twice');
  const all = await call(everything, 'get_session', { id: LONG_SESSION, part: 'turns',
                                                       max_tokens: 100000 });
  const everyEvent = all.turns.flatMap((t) => t.events.map((e) => e.seq));
  assert.deepEqual(seen, everyEvent, 'the pages hold what one large page holds');
  const window = await call(everything, 'get_session',
                            { id: LONG_SESSION, part: 'turns', from_turn: 2, turn_count: 1,
                              max_tokens: 100000 });
  assert.deepEqual(window.turns.map((t) => t.turn), [2]);
});

test('session_usage: totals equal the CLI, unpriced models named', async () => {
  const got = await call(everything, 'session_usage', { by: 'day' });
  const expected = cli('usage', '--by', 'day', '--json');
  for (const field of ['input_tokens', 'output_tokens', 'cache_read_tokens',
                       'cache_creation_tokens', 'reasoning_tokens'])
    assert.equal(got.totals[field], expected.totals[field], field);
  assert.ok(Array.isArray(got.unpriced_models));
  const byRepo = await call(scoped, 'session_usage', { by: 'repo' });
  assert.deepEqual(byRepo.rows.map((r) => r.key), ['cli']);
  const byModel = await call(everything, 'session_usage', { by: 'model', since: '2026-11-01' });
  assert.ok(byModel.rows.length > 0);
});

test('resume_command: the agent\'s own command, or why not', async () => {
  const yes = await call(everything, 'resume_command', { id: HELLO_CODEX });
  assert.equal(yes.possible, true);
  assert.match(yes.command, /codex resume 01a2029b-bd0f-7b52-b27b-ba8d4ea361c8/);
  assert.equal(yes.cwd, path.join(REPOS, 'mockworkA'));
  const no = await call(scoped, 'resume_command', { id: MIT_SESSION });
  assert.equal(no.possible, false);
  assert.match(no.reason, /working directory/);
});

test('recall: passages packed within max_tokens, best first', async () => {
  const got = await call(scoped, 'recall', { question: 'how did we add the MIT license?',
                                             max_tokens: 800 });
  assert.ok(got.passages.length > 0);
  assert.equal(got.passages[0].session_uid, MIT_SESSION);
  assert.ok(tokensOf(got) <= 800, `${tokensOf(got)} tokens`);
  const scores = got.passages.map((p) => p.score);
  assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
  const small = await call(scoped, 'recall', { question: 'how did we add the MIT license?',
                                               max_tokens: 200 });
  assert.ok(tokensOf(small) <= 200, `${tokensOf(small)} tokens`);
  assert.ok(small.passages.length < got.passages.length || small.left_out.passages > 0);
});

test('scope: requests outside the repository are refused without data', async () => {
  for (const [name, args] of [['get_session', { id: HELLO_CODEX }],
                              ['resume_command', { id: HELLO_CODEX }],
                              ['list_sessions', { repo: 'mockworkA' }],
                              ['search_sessions', { query: 'hello', repo: 'mockworkA' }],
                              ['session_usage', { repo: 'mockworkA' }],
                              ['recall', { question: 'hello', repo: 'mockworkA' }]]) {
    const text = await refusal(scoped, name, args);
    assert.match(text, /outside this server's scope/, `${name}: ${text}`);
    assert.doesNotMatch(text, /Create hello\.txt/, 'the refusal leaks nothing of the session');
  }
  // Nothing of another repository comes back through a search either.
  const hello = await call(scoped, 'search_sessions', { query: 'hello.txt' });
  assert.equal(hello.sessions.length, 0);
  await assert.rejects(scoped.readResource({ uri: `helix://session/${HELLO_CODEX}` }),
                       (e) => e instanceof McpError && /outside/.test(e.message));
});

test('scope: the client\'s roots choose the repository, and follow its changes', async () => {
  let roots = [{ uri: pathToFileURL(path.join(REPOS, 'codemie-code')).href, name: 'codemie' }];
  const client = await connect({ cwd: REPOS, roots: () => roots });
  const first = await call(client, 'list_sessions', { limit: 200 });
  assert.deepEqual(first.scope, ['codemie-code']);
  assert.ok(first.sessions.length > 0);
  for (const s of first.sessions) assert.equal(s.repo, 'codemie-code');
  roots = [{ uri: pathToFileURL(path.join(REPOS, 'cli')).href, name: 'cli' }];
  await client.sendRootsListChanged();
  let second;
  for (let i = 0; i < 50; ++i) {  // the server asks for the roots again, then answers
    second = await call(client, 'list_sessions', { limit: 200 });
    if (second.scope[0] === 'cli') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(second.scope, ['cli']);
});

test('resources: sessions listed with a cursor, transcripts read by page', async () => {
  const expected = cli('sessions', '--json').length;
  const uris = [];
  let cursor, pages = 0;
  do {
    const page = await everything.listResources(cursor ? { cursor } : {});
    uris.push(...page.resources.map((r) => r.uri));
    for (const r of page.resources) assert.equal(r.mimeType, 'text/markdown');
    cursor = page.nextCursor;
    ++pages;
  } while (cursor);
  assert.ok(pages > 1, 'more than one page');
  assert.equal(uris.length, expected);
  assert.equal(new Set(uris).size, expected);
  const { resourceTemplates } = await everything.listResourceTemplates();
  assert.ok(resourceTemplates.some((t) => t.uriTemplate.startsWith('helix://session/')));

  const mit = await scoped.readResource({ uri: `helix://session/${MIT_SESSION}` });
  assert.match(mit.contents[0].text, /can you add a standard MIT license\?/);
  const long = await everything.readResource({ uri: `helix://session/${LONGEST_TRANSCRIPT}` });
  const footer = long.contents[0].text.match(/page 1 of (\d+)/);
  assert.ok(footer && Number(footer[1]) > 1, 'a long transcript comes in pages');
  const second = await everything.readResource({
    uri: `helix://session/${LONGEST_TRANSCRIPT}?page=2` });
  assert.match(second.contents[0].text, /page 2 of/);
  assert.notEqual(second.contents[0].text, long.contents[0].text);
  await assert.rejects(everything.readResource({ uri: 'helix://session/claude:nope' }),
                       (e) => e instanceof McpError && e.code === -32002);
});

// Raw JSON-RPC over the server's stdin and stdout: what no client library sends.
class RawServer {
  constructor(args = []) {
    this.proc = spawn(HOST, [...GLOBAL_ARGS, 'mcp', ...args],
                      { cwd: path.join(REPOS, 'cli'), env: { ...process.env, ...CHILD_ENV } });
    this.lines = [];
    this.waiters = [];
    this.stderr = '';
    let buffer = '';
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let nl; (nl = buffer.indexOf('\n')) >= 0;) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line);  // every line the server writes is one JSON message
        JSONRPCMessageSchema.parse(message);
        (this.waiters.shift() ?? ((m) => this.lines.push(m)))(message);
      }
    });
    this.proc.stderr.on('data', (chunk) => { this.stderr += chunk; });
  }
  next() {
    if (this.lines.length) return Promise.resolve(this.lines.shift());
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  async send(text) {
    if (!this.proc.stdin.write(text + '\n')) await once(this.proc.stdin, 'drain');
    return this.next();
  }
  request(id, method, params) {
    return this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) }));
  }
  async stillServing(id) {
    const pong = await this.request(id, 'ping');
    assert.deepEqual(pong, { jsonrpc: '2.0', id, result: {} });
  }
}

test('raw JSON-RPC: malformed requests get errors and the server keeps serving', async () => {
  const raw = new RawServer();
  const init = await raw.request(1, 'initialize', {
    protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {},
    clientInfo: { name: 'raw', version: '0' } });
  assert.equal(init.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  raw.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
                       '\n');
  await raw.stillServing(2);

  const expectError = async (reply, code, pattern) => {
    assert.ok(reply.error, `an error reply: ${JSON.stringify(reply).slice(0, 300)}`);
    assert.equal(reply.error.code, code, reply.error.message);
    if (pattern) assert.match(reply.error.message, pattern);
  };
  let reply = await raw.send('{"jsonrpc": "2.0", "id": 3, "method": "tools/list"');
  await expectError(reply, ErrorCode.ParseError);
  assert.equal(reply.id, undefined, 'an unreadable request gets an answer without an id');
  await raw.stillServing(4);

  reply = await raw.request(5, 'tools/call', { name: 'drop_tables', arguments: {} });
  await expectError(reply, ErrorCode.InvalidParams, /unknown tool 'drop_tables'/i);
  assert.equal(reply.id, 5);
  await raw.stillServing(6);

  reply = await raw.request(7, 'tools/call', { name: 'list_sessions', arguments: { limit: 'ten' } });
  await expectError(reply, ErrorCode.InvalidParams, /limit/);
  reply = await raw.request(8, 'tools/call', { name: 'search_sessions', arguments: { query: 5 } });
  await expectError(reply, ErrorCode.InvalidParams, /query/);
  reply = await raw.request(9, 'tools/call', { name: 'get_session', arguments: {} });
  await expectError(reply, ErrorCode.InvalidParams, /id/);
  reply = await raw.request(10, 'tools/call',
                            { name: 'recall', arguments: { question: 'x', colour: 'red' } });
  await expectError(reply, ErrorCode.InvalidParams, /colour/);
  await raw.stillServing(11);

  reply = await raw.request(12, 'sessions/drop', {});
  await expectError(reply, ErrorCode.MethodNotFound);
  reply = await raw.send(JSON.stringify([{ jsonrpc: '2.0', id: 13, method: 'ping' }]));
  await expectError(reply, ErrorCode.InvalidRequest);
  reply = await raw.send(JSON.stringify({ jsonrpc: '1.0', id: 14, method: 'ping' }));
  await expectError(reply, ErrorCode.InvalidRequest);
  await raw.stillServing(15);

  const huge = 'x'.repeat(10 * 1024 * 1024);
  reply = await raw.request(16, 'tools/call', { name: 'recall', arguments: { question: huge } });
  await expectError(reply, ErrorCode.InvalidRequest, /too large/);
  await raw.stillServing(17);
  const tools = await raw.request(18, 'tools/list');
  assert.equal(tools.result.tools.length, TOOLS.length);

  raw.proc.stdin.end();
  const [code] = await once(raw.proc, 'exit');
  assert.equal(code, 0, `the server exits cleanly at the end of its input: ${raw.stderr}`);
});

test('raw JSON-RPC: requests before initialize are refused, ping is not', async () => {
  const raw = new RawServer();
  const early = await raw.request(1, 'tools/list');
  assert.equal(early.error.code, ErrorCode.InvalidRequest);
  assert.match(early.error.message, /initialize/);
  await raw.stillServing(2);
  const old = await raw.request(3, 'initialize', {
    protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
  assert.equal(old.result.protocolVersion, LATEST_PROTOCOL_VERSION, 'counter-offers its own');
  raw.proc.stdin.end();
  await once(raw.proc, 'exit');
});
