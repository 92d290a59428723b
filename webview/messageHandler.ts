import { parseHostMessage, type HostToWebview, type WebviewToHost } from '../src/protocol/messages';
import type { PlanStore } from './store';

// Host → webview message handling without the DOM: validate with the shared zod schema, fold into
// the store, and say what to post back (a resync on a seq gap) and whether to render.

export interface HandleResult {
  /** Messages to post to the host. */
  outgoing: WebviewToHost[];
  render: boolean;
  notice?: Extract<HostToWebview, { type: 'host/notice' }>;
  /** Set when the message was invalid and dropped. */
  error?: string;
  /** The message was a host/reset (the caller restores selection and zoom for that run). */
  reset?: { runId: string };
}

export function handleHostMessage(store: PlanStore, raw: unknown): HandleResult {
  const parsed = parseHostMessage(raw);
  if (!parsed.ok) return { outgoing: [], render: false, error: parsed.error };
  const message = parsed.message;
  switch (message.type) {
    case 'host/reset': {
      store.reset(message.runId, message.live, message.events, message.resumable ?? false);
      return { outgoing: [], render: true, reset: { runId: message.runId } };
    }
    case 'host/events': {
      const result = store.appendEvents(message.runId, message.fromSeq, message.events);
      if (result.kind === 'applied') return { outgoing: [], render: result.applied > 0 };
      const outgoing: WebviewToHost[] = result.shouldRequest && result.runId ? [{ type: 'webview/resync', runId: result.runId, fromSeq: result.fromSeq }] : [];
      return { outgoing, render: result.applied > 0 };
    }
    case 'host/approvalAnswer': {
      if (message.runId !== store.runId) return { outgoing: [], render: false };
      // A refusal is shown at once, with the host's reason; its buttons come back.
      const { refused } = store.applyReply(message);
      if (refused === undefined) return { outgoing: [], render: true };
      return { outgoing: [], render: true, notice: { type: 'host/notice', level: 'warning', message: refused } };
    }
    case 'host/notice':
      return { outgoing: [], render: false, notice: message };
  }
}
