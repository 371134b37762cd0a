// One agent session through an official MCP TypeScript client, driven by a plan from the test:
//   node session.mjs <sdk: v1|v2|stdio> <mode: legacy|auto> <url> <token or ""> < plan.json
// The plan is {"calls": [{"name": tool, "arguments": {...}}, ...]}; with sdk "stdio" it also holds
// {"stdio": {"command", "args", "env"}}: the 1.x client then starts that command and talks to it over
// stdio, as a desktop host does with a configured server (url and token are then unused). Prints one JSON report: what the
// client itself made of the server (version, identity, tools) and of every call (its result, or the
// error it threw with the fields that client exposes). The test decides what is right.
import { readFileSync } from "node:fs";

const [sdk, mode, url, token] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(0, "utf8"));
const { Client, StreamableHTTPClientTransport, StdioClientTransport } =
  sdk === "v2"
    ? await import("@modelcontextprotocol/client")
    : {
        ...(await import("@modelcontextprotocol/sdk/client/index.js")),
        ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
        ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
      };

const thrown = (error) => ({
  error: {
    ...Object.fromEntries(Object.entries(error ?? {}).filter(([, value]) => typeof value !== "function")),
    type: error?.constructor?.name,
    code: error?.code,
    message: String(error?.message ?? error),
    data: error?.data,
    status: error?.status ?? error?.data?.status,
  },
});

const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport =
  sdk === "stdio"
    ? new StdioClientTransport({ ...plan.stdio, env: { ...process.env, ...plan.stdio.env }, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const options = sdk === "v2" ? { versionNegotiation: { mode } } : {};
const client = new Client({ name: `chauffeur-test-${sdk}`, version: "1.0.0" }, options);
const report = {};
try {
  await client.connect(transport);
} catch (error) {
  report.connect = thrown(error);
  console.log(JSON.stringify(report));
  process.exit(0);
}
report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
report.server = client.getServerVersion();
report.instructions = client.getInstructions();
report.tools = (await client.listTools()).tools;
report.calls = [];
for (const call of plan.calls) {
  try {
    report.calls.push({ result: await client.callTool(call) });
  } catch (error) {
    report.calls.push(thrown(error));
  }
}
await client.close();
console.log(JSON.stringify(report));
