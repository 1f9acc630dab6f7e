// Proves that the generated API client refuses a route the server does not have: type-checks
// typecheck/wrong-route.ts, which calls one, and succeeds only if tsc fails on exactly that call.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const fixture = "typecheck/wrong-route.ts";
const tsc = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "typecheck"], {
  cwd: root,
  encoding: "utf8",
});
const out = `${tsc.stdout}${tsc.stderr}`;
const lines = readFileSync(new URL(`../${fixture}`, import.meta.url), "utf8").split("\n");
const marked = lines.findIndex((l) => l.includes("WRONG-CALL")) + 2;
const errors = out.split("\n").filter((l) => l.includes("error TS"));
const onCall = errors.filter((l) => l.startsWith(`${fixture}(${marked},`));
if (tsc.status === 0 || onCall.length === 0 || onCall.length !== errors.length) {
  console.error(`wrong-call check: expected tsc to fail only on ${fixture}:${marked}, got exit ${tsc.status}:\n${out}`);
  process.exit(1);
}
console.log(`wrong-call check: a call to a route the server lacks fails to type-check (${onCall[0].trim()})`);
