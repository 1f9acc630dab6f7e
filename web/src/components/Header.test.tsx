// The header's token meter: plain below 80 % of the window, a warning from 80 %, critical from 95 %;
// and where the conversation works.
import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { TokenMeter, WorkspaceChip, budgetLevel, workspaceName } from "./Header";
import { summary } from "../test/server";

describe("the token meter", () => {
  it("warns at 80 % and 95 % of the limit", () => {
    expect(budgetLevel({ used: 799, limit: 1000 })).toBe("ok");
    expect(budgetLevel({ used: 800, limit: 1000 })).toBe("warn");
    expect(budgetLevel({ used: 949, limit: 1000 })).toBe("warn");
    expect(budgetLevel({ used: 950, limit: 1000 })).toBe("critical");
    expect(budgetLevel({ used: 10, limit: 0 })).toBe("ok");
  });

  it("shows the share and the level once it warns", () => {
    const full = { ...summary("c1", "Full"), token_budget: { used: 998, limit: 1000 } };
    const { container } = render(<TokenMeter summary={full} />);
    const meter = container.querySelector(".budget") as HTMLElement;
    expect(meter.dataset.level).toBe("critical");
    expect(meter.textContent).toContain("(100 %)");
    expect(meter.title).toMatch(/almost full/);
  });
});

describe("the workspace chip", () => {
  it("names the workspace by its last part and opens the settings", async () => {
    expect(workspaceName("/srv/repos/braid/")).toBe("braid");
    expect(workspaceName("C:\\work\\demo")).toBe("demo");
    let opened = 0;
    render(<WorkspaceChip workspace="/srv/repos/braid" onClick={() => opened++} />);
    const chip = screen.getByRole("button", { name: "Workspace: /srv/repos/braid" });
    expect(chip.textContent).toBe("in braid");
    await userEvent.click(chip);
    expect(opened).toBe(1);
  });

  it("says when there is none", () => {
    render(<WorkspaceChip workspace={undefined} onClick={() => {}} />);
    expect(screen.getByRole("button", { name: "No workspace" }).title).toMatch(/set one in Settings/);
  });
});
