// The end-to-end harness: a scripted mock LLM, a real `braid serve` on a fresh data directory
// and workspace, and Debian's Chromium driven by playwright-core. It builds nothing: it expects
// `target/debug/braid`, `target/debug/braid-mock-llm` and `web/dist` to exist.

import { spawn } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const webDir = resolve(here, "..");
export const repoRoot = resolve(webDir, "..");
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repoRoot, "target");
const braidBin = process.env.BRAID_BIN ?? join(targetDir, "debug", "braid");
const mockBin = process.env.BRAID_MOCK_LLM_BIN ?? join(targetDir, "debug", "braid-mock-llm");
const chromiumPath = process.env.BRAID_E2E_CHROMIUM ?? "/usr/bin/chromium";
const screenshotDir = join(webDir, "test-results");

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Fails early, saying what is missing and how to get it. */
function requireFile(path, how) {
  if (!existsSync(path)) throw new Error(`e2e: ${path} is missing: ${how}`);
}

/** The environment without any Braid or model setting of the person running the tests. */
function inheritedEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith("BRAID_") || name === "OPENAI_API_KEY" || name === "ANTHROPIC_API_KEY") delete env[name];
  }
  return env;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Children still running when this process exits (a test timed out or was cancelled before its
// teardown) are killed rather than left behind. Playwright does the same for the browser.
const running = new Set();
const tempDirs = new Set();
const killAll = () => {
  for (const child of running) child.proc.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
};
process.on("exit", killAll);
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.once(signal, () => {
    killAll();
    process.exit(1);
  });
}

/** A child process whose output is kept for the failure message, stopped by `stop()`. */
class Child {
  constructor(name, cmd, args, env, cwd) {
    this.name = name;
    this.log = "";
    this.exited = null;
    this.proc = spawn(cmd, args, { cwd, env: { ...inheritedEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (d) => {
      this.log += d.toString();
      if (this.log.length > 200_000) this.log = this.log.slice(-100_000);
    };
    this.proc.stdout.on("data", keep);
    this.proc.stderr.on("data", keep);
    running.add(this);
    this.done = new Promise((r) =>
      this.proc.on("exit", (code, signal) => {
        running.delete(this);
        r((this.exited = { code, signal }));
      }),
    );
  }

  /** Ends the process: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 3000) {
    if (this.exited) return;
    this.proc.kill("SIGTERM");
    const timer = sleep(graceMs).then(() => "late");
    if ((await Promise.race([this.done, timer])) === "late") {
      this.proc.kill("SIGKILL");
      await this.done;
    }
  }
}

/**
 * The mock plays a llama.cpp server running the model "mock" with a 32k window (`GET /props`), as
 * a local server would say: the table does not know "mock", and the 8,192-token default leaves
 * less than the built-in tools take beside the answer's reserve.
 */
const MOCK_DISCOVERY = { server: "llama_cpp", model: "mock", context_window: 32768 };

/** Starts `braid-mock-llm` with this script (`{responses: [...]}`); resolves to its port. */
async function startMock(dir, script) {
  requireFile(mockBin, "run `cargo build -p braid-testkit`");
  const file = join(dir, "mock-script.json");
  await writeFile(file, JSON.stringify({ discovery: MOCK_DISCOVERY, ...script }));
  const mock = new Child("braid-mock-llm", mockBin, ["--script", file, "--port", "0"], {}, dir);
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const first = mock.log.split("\n")[0];
    if (mock.log.includes("\n") && /^\d+$/.test(first.trim())) {
      mock.port = Number(first.trim());
      return mock;
    }
    if (mock.exited) break;
    await sleep(50);
  }
  await mock.stop();
  throw new Error(`e2e: braid-mock-llm did not start:\n${mock.log}`);
}

/**
 * One test's world: a mock LLM following `script`; `braid serve` on a fresh data directory and
 * workspace (with `files` written into it) and, when `mcpServers` is given (the `mcpServers`
 * object of a Claude Desktop config), those MCP servers; and a fresh Chromium profile.
 * `serverArgs` are added to `braid serve`'s own (an operator's flags, such as
 * `--allow-unsandboxed`). `close()` stops all of it whatever happened.
 */
export async function startWorld({ script, files = {}, mcpServers, serverArgs = [] }) {
  requireFile(join(webDir, "dist", "index.html"), "run `npm run build` in web/");
  const dir = await mkdtemp(join(tmpdir(), "braid-e2e-"));
  tempDirs.add(dir);
  const world = new World(dir);
  world.serverArgs = serverArgs;
  try {
    world.workspace = join(dir, "workspace");
    world.dataDir = join(dir, "data");
    await mkdir(world.workspace, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(world.workspace, name)), { recursive: true });
      await writeFile(join(world.workspace, name), text);
    }
    if (mcpServers) {
      world.mcpConfig = join(dir, "mcp_servers.json");
      await writeFile(world.mcpConfig, JSON.stringify({ mcpServers }));
    }
    world.mock = await startMock(dir, script);
    await world.startServer();
    world.browser = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
    });
    world.page = world.browser.pages()[0] ?? (await world.browser.newPage());
    // Generous for a loaded 2-core CI machine running debug builds.
    world.page.setDefaultTimeout(15_000);
    world.page.on("console", (m) => world.console.push(`${m.type()}: ${m.text()}`));
    world.page.on("pageerror", (e) => world.pageErrors.push(String(e)));
    return world;
  } catch (err) {
    await world.close();
    throw err;
  }
}

class World {
  constructor(dir) {
    this.dir = dir;
    this.console = [];
    this.pageErrors = [];
    this.server = null;
    this.serverArgs = [];
    /** The server's port, once its first start has bound one. */
    this.port = null;
    this.url = null;
  }

  /**
   * Starts `braid serve` on this world's data directory, and waits for `/health`. The first start
   * binds port 0 and learns its port from the server's "listening" line, so that files running at
   * once never pick the same port; a restart binds that port again, so the page's address holds.
   */
  async startServer() {
    requireFile(braidBin, "run `cargo build -p braid-server`");
    this.server = new Child(
      "braid serve",
      braidBin,
      [
        "serve",
        "--bind", `127.0.0.1:${this.port ?? 0}`,
        "--data-dir", this.dataDir,
        "--web-dir", join(webDir, "dist"),
        "--titles", "off",
        // The workspace lies in this world's directory; the data directory in it is refused.
        "--workspace-root", this.dir,
        ...(this.mcpConfig ? ["--mcp-config", this.mcpConfig] : []),
        ...this.serverArgs,
      ],
      {
        BRAID_LLM_PROVIDER: "openai",
        BRAID_LLM_BASE_URL: `http://127.0.0.1:${this.mock.port}/v1`,
        BRAID_MODEL: "mock",
        RUST_LOG: process.env.RUST_LOG ?? "info",
      },
      // Not the repository: an `mcp_servers.json` there must not leak into the tests.
      this.dir,
    );
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (this.server.exited) break;
      if (this.port === null) {
        const bound = /braid is listening.*http:\/\/127\.0\.0\.1:(\d+)/.exec(this.server.log);
        if (!bound) {
          await sleep(100);
          continue;
        }
        this.port = Number(bound[1]);
        this.url = `http://127.0.0.1:${this.port}`;
      }
      try {
        const r = await fetch(`${this.url}/health`);
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    const log = this.server.log;
    await this.server.stop();
    throw new Error(`e2e: braid serve did not become healthy on ${this.url ?? "any port (it never said it was listening: RUST_LOG must let braid_server::serve's info lines through)"}:\n${log}`);
  }

  /** Stops `braid serve` (gracefully first). */
  async stopServer() {
    await this.server?.stop(5000);
  }

  /** Calls the HTTP API; throws with the server's answer on a non-2xx status. */
  async api(method, path, body) {
    const r = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`e2e: ${method} ${path} answered ${r.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  }

  /** Creates a context with manual approvals on this world's workspace, merging `config`. */
  async createContext(config = {}, title = "e2e") {
    return this.api("POST", "/v1/contexts", {
      title,
      config: {
        model: "",
        mode: "act",
        agent_role: "actor",
        workspace: this.workspace,
        approval_policy: { type: "manual" },
        tool_timeout_secs: 30,
        optimization: { strategy: { type: "intelligent" }, reserve_output_tokens: 4096, margin_tokens: 256 },
        ...config,
      },
    });
  }

  /** Opens the UI on a context and waits for its conversation to show. */
  async open(contextId) {
    await this.page.goto(`${this.url}/contexts/${contextId}`);
    await this.page.getByRole("list", { name: "Messages" }).waitFor();
  }

  /** Types a message into the composer and sends it. */
  async send(text) {
    await this.page.getByLabel("Message", { exact: true }).fill(text);
    await this.page.getByRole("button", { name: /^(Send|Queue)$/ }).click();
  }

  /** Saves a full-page screenshot as `web/test-results/<name>.png`. */
  async screenshot(name) {
    await mkdir(screenshotDir, { recursive: true });
    await this.page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
  }

  /** What to print when a test failed: the processes' logs and the page's console. */
  diagnostics() {
    return [
      `--- braid serve log ---\n${this.server?.log.slice(-6000) ?? ""}`,
      `--- mock LLM log ---\n${this.mock?.log.slice(-3000) ?? ""}`,
      `--- browser console ---\n${this.console.slice(-50).join("\n")}`,
      `--- page errors ---\n${this.pageErrors.join("\n")}`,
    ].join("\n");
  }

  /** Stops the browser, the server and the mock, and removes the temp directory. */
  async close() {
    await this.browser?.close().catch(() => {});
    await this.server?.stop().catch(() => {});
    await this.mock?.stop().catch(() => {});
    await rm(this.dir, { recursive: true, force: true }).catch(() => {});
    tempDirs.delete(this.dir);
  }
}

/**
 * Runs `body(world)` in a fresh world; on failure saves a screenshot named `<name>-failed` and
 * adds the logs to the error. Always tears the world down.
 */
export async function withWorld(name, options, body) {
  const world = await startWorld(options);
  try {
    await body(world);
    await world.screenshot(name);
  } catch (err) {
    await world.screenshot(`${name}-failed`).catch(() => {});
    const diag = world.diagnostics();
    await world.close();
    err.message = `${err.message}\n${diag}`;
    throw err;
  }
  await world.close();
}

/** A scripted streamed text answer, in pieces. */
export function textReply(pieces, delayMs = 30) {
  return {
    type: "stream",
    chunk_delay_ms: delayMs,
    chunks: [
      ...pieces.map((text) => ({ type: "text", text })),
      { type: "usage", prompt_tokens: 100, completion_tokens: 10 },
      { type: "finish", reason: "stop" },
    ],
  };
}

/** A scripted answer calling one tool with these arguments. */
export function toolCallReply(id, name, args, text = "") {
  const json = JSON.stringify(args);
  return {
    type: "stream",
    chunk_delay_ms: 10,
    chunks: [
      ...(text ? [{ type: "text", text }] : []),
      { type: "tool_call_start", index: 0, id, name },
      { type: "tool_call_args", index: 0, delta: json.slice(0, 5) },
      { type: "tool_call_args", index: 0, delta: json.slice(5) },
      { type: "usage", prompt_tokens: 100, completion_tokens: 10 },
      { type: "finish", reason: "tool_calls" },
    ],
  };
}

/** Waits until the MCP server `name` of the world's configuration is ready. */
export async function waitForMcpServer(w, name) {
  const deadline = Date.now() + 30_000;
  let last;
  while (Date.now() < deadline) {
    last = await w.api("GET", "/v1/mcp/servers");
    if (last.servers?.some((s) => s.name === name && s.status === "ready")) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`MCP server ${name} never became ready: ${JSON.stringify(last)}`);
}

/** Waits until an input's value is `expected` (React fills drafts after the event that asks). */
export async function waitForValue(locator, expected, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await locator.inputValue();
    if (last === expected) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected the value ${JSON.stringify(expected)}, still ${JSON.stringify(last)} after ${timeout} ms`);
}
