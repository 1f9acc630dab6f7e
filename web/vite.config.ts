import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// `braid serve` serves `dist/` at `/`; during `npm run dev` the API is proxied to a local server.
export default defineConfig({
  plugins: [react()],
  // The Markdown highlighter brings ~35 common languages; one ~560 kB chunk (~175 kB gzipped) is fine for a local tool.
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 800 },
  server: {
    proxy: {
      "/v1": { target: process.env.BRAID_URL ?? "http://127.0.0.1:8787", changeOrigin: true },
      "/health": { target: process.env.BRAID_URL ?? "http://127.0.0.1:8787", changeOrigin: true },
    },
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    testTimeout: 20_000,
  },
});
