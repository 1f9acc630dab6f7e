// @vitest-environment node
// The committed API types must be what openapi-typescript makes of the committed OpenAPI
// document (which a Rust test keeps equal to the server's handlers): `make generate` rewrites both.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { OUTPUT, render } from "../../scripts/api-types.mjs";

describe("generated API types", () => {
  it("are current with the server's OpenAPI document", async () => {
    const committed = await readFile(OUTPUT, "utf8");
    const fresh = await render();
    expect(committed === fresh, "src/generated/api.ts is stale: run `make generate` and commit the result").toBe(true);
  });
});
