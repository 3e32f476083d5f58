// A Streamable HTTP front for a stdio MCP server, so that @modelcontextprotocol/conformance
// (which tests servers by URL only) can reach `helix-host mcp`. Each MCP session the HTTP side
// opens starts its own server process; JSON-RPC messages pass through unchanged both ways, so
// what the suite checks is the stdio server's own answers. Listens on 127.0.0.1 only and
// prints its URL on stdout once it listens.
//   node stdio_http_relay.mjs <command> [args...]
import { randomUUID } from 'node:crypto';

import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node stdio_http_relay.mjs <command> [args...]');
  process.exit(2);
}

const sessions = new Map();  // MCP session id -> its HTTP transport

// One HTTP session joined to one server process.
async function openSession() {
  const server = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
  const http = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, http),
  });
  http.onmessage = (message) => server.send(message).catch((e) => http.onerror?.(e));
  server.onmessage = (message) => http.send(message).catch(() => {});
  http.onclose = () => {
    if (http.sessionId) sessions.delete(http.sessionId);
    server.close();
  };
  server.onclose = () => http.close();
  await server.start();
  return http;
}

const app = createMcpExpressApp();
app.all('/mcp', async (req, res) => {
  try {
    const id = req.headers['mcp-session-id'];
    let http = id ? sessions.get(id) : undefined;
    if (!http && !id && req.method === 'POST' && isInitializeRequest(req.body))
      http = await openSession();
    if (!http) {
      res.status(id ? 404 : 400).json({
        jsonrpc: '2.0', id: null,
        error: { code: -32000, message: id ? 'unknown session' : 'initialize first' } });
      return;
    }
    await http.handleRequest(req, res, req.body);
  } catch (e) {
    if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', id: null,
                                                 error: { code: -32603, message: String(e) } });
  }
});

const listener = app.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${listener.address().port}/mcp`);
});
const stop = () => {
  for (const http of sessions.values()) http.close();
  listener.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
