// The last line of defence: if rendering the app throws, show what failed and a way out
// instead of a blank page.

import { Component, type ReactNode } from "react";

/** Catches a render error anywhere below and shows it with a reload button. */
export class CrashScreen extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown) {
    console.error("braid: the UI failed to render", error);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="crash" role="alert">
        <h1>The page failed to render</h1>
        <p>{this.state.error.message}</p>
        <p>Nothing on the server was lost. Reloading usually helps; if not, the browser console has details.</p>
        <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
