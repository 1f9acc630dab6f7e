// An image pasted into the composer with a question: the browser draws a picture with known
// text, pastes it as a PNG, and sends it with the question in one send. The mock model has no
// vision, so `auto` reads the picture with the real Tesseract; the image card shows the
// picture, the mode and the recognized text, and the answer follows.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

/** Draws `lines` black on white in a canvas and pastes the PNG into the composer's text box. */
async function pasteTextPicture(page, lines) {
  const box = page.getByLabel("Message", { exact: true });
  await box.focus();
  await box.evaluate(async (textarea, lines) => {
    const canvas = document.createElement("canvas");
    canvas.width = 900;
    canvas.height = 60 + 70 * lines.length;
    const g = canvas.getContext("2d");
    g.fillStyle = "#ffffff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = "#000000";
    g.font = "44px sans-serif";
    g.textBaseline = "top";
    lines.forEach((line, i) => g.fillText(line, 30, 30 + 70 * i));
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    const data = new DataTransfer();
    data.items.add(new File([blob], "receipt.png", { type: "image/png" }));
    textarea.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, lines);
}

test("a pasted image and its question: recognized text and the answer", async () => {
  const script = { responses: [textReply(["The total ", "is 318 EUR."])] };
  await withWorld("image-paste", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await pasteTextPicture(w.page, ["INVOICE 4471", "Total due 318 EUR"]);
    await w.page.getByRole("list", { name: "Attached images" }).getByAltText("receipt.png").waitFor();
    await w.send("What is the total?");

    const card = w.page.locator("figure.image-card");
    await card.locator("pre.ocr-text").getByText("INVOICE 4471").waitFor({ timeout: 30_000 });
    assert.match(await card.locator("pre.ocr-text").innerText(), /Total due 318 EUR/);
    await card.getByText("Mode: auto, used OCR").waitFor();
    await card.getByText(/Vision is unavailable: `mock` cannot see images/).waitFor();
    assert.ok(await card.locator("img").evaluate((img) => img.naturalWidth === 900), "the picture is shown");
    await w.page.locator("li.message.role-assistant").getByText("The total is 318 EUR.").waitFor();
    assert.equal(await w.page.getByRole("list", { name: "Attached images" }).count(), 0, "the draft is cleared");

    const stored = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
    const [image, question, answer] = stored.messages.filter((m) => m.kind !== "system_control");
    assert.equal(image.kind, "image");
    assert.equal(image.data.recognition.method, "ocr");
    assert.equal(question.data.parts[0].text, "What is the total?");
    assert.equal(image.metadata.send_id, question.metadata.send_id, "image and question are one send");
    assert.equal(answer.role, "assistant");
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    // The e2e mock plays a llama.cpp server that reports no vision for `mock` (harness.mjs).
    assert.deepEqual(summary.capabilities.vision, { value: false, source: "server" });
    await w.screenshot("image-paste");
  });
});
