// The official TypeScript SDK 1.x's own OAuth client (an OAuthClientProvider handed to the
// StreamableHTTPClientTransport, which runs auth(): discovery, registration or a client ID metadata
// document, PKCE, code exchange, refresh) against a live /api/mcp, driven by the test one JSON line at a time:
//   stdin  line 1: the plan {"url", "redirectUrl", "clientMetadataUrl"?, "scope"?, "calls": [...],
//                  "refresh": bool, "afterRefresh": [...]}
//   stdout {"authorize": url}        the SDK asked to send the traveller's browser there
//   stdin  {"callback": url}         where the browser was sent back to (code, state, iss)
//   (with "refresh") it waits out the access token's expires_in, then plays "afterRefresh"
//   stdout {"report": {...}}         what the client saw; the test decides what is right.
// Tokens, client information and the PKCE verifier live in memory only.
import { randomBytes } from "node:crypto";
import readline from "node:readline";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const receive = async () => JSON.parse((await lines.next()).value);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const thrown = (error) => ({
  type: error?.constructor?.name,
  code: error?.code,
  message: String(error?.message ?? error),
});

const plan = await receive();
const store = { tokens: undefined, client: undefined, verifier: undefined, state: undefined, saved: [] };
const provider = {
  get redirectUrl() {
    return plan.redirectUrl;
  },
  clientMetadataUrl: plan.clientMetadataUrl,
  get clientMetadata() {
    return {
      client_name: "Chauffeur proof (TypeScript SDK)",
      redirect_uris: [plan.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(plan.scope ? { scope: plan.scope } : {}),
    };
  },
  state() {
    store.state = randomBytes(16).toString("hex");
    return store.state;
  },
  clientInformation: () => store.client,
  saveClientInformation(information) {
    store.client = information;
  },
  tokens: () => store.tokens,
  saveTokens(tokens) {
    store.tokens = tokens;
    store.saved.push({ access: tokens.access_token, refresh: tokens.refresh_token, scope: tokens.scope });
  },
  redirectToAuthorization(url) {
    store.authorizeUrl = url.href;
  },
  saveCodeVerifier(verifier) {
    store.verifier = verifier;
  },
  codeVerifier: () => store.verifier,
};

const report = { calls: [], afterRefresh: [] };
const newClient = () => new Client({ name: "chauffeur-oauth-proof", version: "1.0.0" });

async function connect() {
  const url = new URL(plan.url);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = newClient();
  try {
    await client.connect(first);
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !store.authorizeUrl) throw error;
  }
  report.authorizeUrl = store.authorizeUrl;
  send({ authorize: store.authorizeUrl });
  const { callback } = await receive();
  const answer = new URL(callback).searchParams;
  report.callback = {
    state: answer.get("state"),
    stateSent: store.state,
    iss: answer.get("iss"),
    error: answer.get("error"),
  };
  if (answer.get("state") !== store.state) throw new Error("the state came back changed");
  await first.finishAuth(answer.get("code"));
  const client2 = newClient();
  await client2.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client2;
}

async function play(client, calls, into) {
  for (const call of calls) {
    try {
      into.push({ result: await client.callTool(call) });
    } catch (error) {
      into.push({ error: thrown(error) });
    }
  }
}

try {
  const client = await connect();
  report.clientId = store.client?.client_id;
  report.tools = (await client.listTools()).tools.map((tool) => tool.name);
  await play(client, plan.calls ?? [], report.calls);
  if (plan.refresh) {
    report.expiresIn = store.tokens.expires_in;
    await new Promise((resolve) => setTimeout(resolve, (store.tokens.expires_in + 1) * 1000));
    // The next request meets 401: the transport runs auth(), which spends the refresh token, and retries.
    await play(client, plan.afterRefresh ?? [], report.afterRefresh);
  }
  await client.close();
} catch (error) {
  report.failed = thrown(error);
}
report.saved = store.saved;
send({ report });
process.exit(0);
