// The Vercel AI SDK: @ai-sdk/mcp's createMCPClient with transport {type: "http", url, headers}, its tools in
// generateText with the openai-compatible provider at the stand-in; the agent runs are the example of
// docs/agents/clients.md, run as written. Reads the plan on standard input and prints the report after
// "REPORT " (tests/mcp_endpoint/frameworks/test_frameworks.py).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createMCPClient } from "@ai-sdk/mcp";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";

const plan = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => resolve(text));
}));

const connect = (token) =>
  createMCPClient({ transport: { type: "http", url: plan.url, headers: { Authorization: `Bearer ${token}` } } });
const failure = (error) => `${error?.name}: ${error?.message}${error?.cause ? ` | ${failure(error.cause)}` : ""}`;
const model = createOpenAICompatible({ name: "stand-in", baseURL: plan.model, apiKey: "stand-in" }).chatModel("stand-in");
const options = { toolCallId: "direct", messages: [] };
const structured = (result) => result.structuredContent ?? JSON.parse(result.content[0].text);

// The example as the page writes it, with the live address and the token for its placeholders, and the names
// it leaves to its reader (`model`, `prompt`) given as globals. A module of its own beside node_modules, so
// that its imports resolve; it leaves `result`.
const DOC_ADDRESS = "https://chauffeur.example.com/api/mcp?toolNames=underscore";
const DOC_TOKEN = "cbt_your_token";
const section = readFileSync(plan.doc, "utf8").split("\n### ").find((text) => text.includes("<!-- framework: vercel_ai -->"));
const example = section.match(/```js\n([\s\S]*?)```/)[1];
let examples = 0;

async function runDocumented(token, prompt) {
  const file = new URL(`./.example-${process.pid}-${examples++}.mjs`, import.meta.url);
  writeFileSync(file, `${example.replace(DOC_ADDRESS, plan.url).replace(DOC_TOKEN, token)}\nexport { result };\n`);
  Object.assign(globalThis, { model, prompt });
  try {
    return (await import(file.href)).result;
  } finally {
    rmSync(file);
  }
}

async function agent(token, name, args) {
  try {
    const result = await runDocumented(token, `CALL ${name} ${JSON.stringify(args)}`);
    const outputs = result.steps.flatMap((step) => step.content).filter((part) => part.type === "tool-result" || part.type === "tool-error");
    const last = outputs.at(-1);
    return { tool: last.type === "tool-error" ? failure(last.error) : JSON.stringify(last.output), final: result.text };
  } catch (error) {
    return { crashed: failure(error) };
  }
}

const found = {};
const client = await connect(plan.write);
const tools = await client.tools();
found.tools = Object.keys(tools);
found.call = structured(await tools.booking_calculate_price.execute(plan.price, options));
const refused = await tools.booking_calculate_price.execute(plan.bad_price, options);
found.error = { isError: refused.isError, text: refused.content[0].text };
const started = structured(await tools.booking_create_checkout.execute(plan.checkout, options));
const reference = { reference: started.reference };
found.round_trip = {
  checkout: started,
  get: structured(await tools.booking_get_booking.execute(reference, options)),
  cancel: structured(await tools.booking_cancel_booking.execute(reference, options)),
};
await client.close();
try {
  const bad = await connect(plan.bad);
  await bad.tools();
  found.unauthorized = "no error";
} catch (error) {
  found.unauthorized = failure(error);
}
found.agent = {
  valid: await agent(plan.write, "booking_calculate_price", plan.price),
  error: await agent(plan.write, "booking_calculate_price", plan.bad_price),
  forbidden: await agent(plan.read, "booking_create_checkout", plan.checkout),
  limited: await agent(plan.limited, "booking_calculate_price", plan.price),
};
console.log("REPORT " + JSON.stringify(found));
