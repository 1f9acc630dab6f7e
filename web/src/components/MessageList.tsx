// The conversation's scrolling list: the window of messages (newest first, older ones on
// scroll), the empty state of a new conversation, and the failed turn's card at the end.

import type { RefObject, UIEvent } from "react";
import type { ConversationState, Entry } from "../conversation/reducer";
import type { MessageView } from "../generated/protocol";
import type { MessageViewOptions } from "../messages/MessageView";
import { MessageWindow } from "../messages/MessageWindow";
import { EmptyConversation } from "./EmptyConversation";
import { TurnFailure } from "./StatusBar";

/** What the list shows and does. */
export interface MessageListProps {
  /** The scrolling element, which the window and the follow hook read. */
  list: RefObject<HTMLOListElement | null>;
  onScroll: (e: UIEvent<HTMLOListElement>) => void;
  /** The open context: a new one starts a new window. */
  contextId: string;
  conversation: ConversationState;
  /** The entries shown (tool results folded into their calls). */
  entries: Entry[];
  options: MessageViewOptions;
  view: MessageView;
  /** Opens the full history at a message a marker hides. */
  onOpenFull: (at: string) => void;
  /** A message to bring into view (full history only). */
  reveal: string | null;
  onRevealed: () => void;
  onLoadEarlier: () => void;
  onLoadAll: () => void;
  /** The empty state, when the context has no message yet: its workspace. */
  empty: { workspace: string | undefined } | null;
  onPick: (text: string) => void;
  onSettings: () => void;
  onResume: () => void;
}

/** The list of messages. */
export function MessageList(p: MessageListProps) {
  const c = p.conversation;
  return (
    <ol className="messages" aria-label="Messages" ref={p.list} onScroll={p.onScroll}>
      <MessageWindow
        key={p.contextId}
        entries={p.entries}
        options={p.options}
        list={p.list}
        markers={p.view === "optimized" ? c.markers : []}
        onOpenFull={p.onOpenFull}
        reveal={p.view === "full" ? p.reveal : null}
        onRevealed={p.onRevealed}
        older={c.older !== undefined}
        onLoadEarlier={p.onLoadEarlier}
        onLoadAll={p.onLoadAll}
      />
      {p.empty && c.entries.length === 0 && <EmptyConversation workspace={p.empty.workspace} onPick={p.onPick} onSettings={p.onSettings} />}
      <TurnFailure conversation={c} onResume={p.onResume} />
    </ol>
  );
}
