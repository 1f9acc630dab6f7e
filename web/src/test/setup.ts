import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// `make test` runs these beside Rust builds on two cores: wait generously for the DOM to settle.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
});
