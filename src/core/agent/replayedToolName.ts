// OpenAI-compatible endpoints refuse a conversation whose assistant tool_calls name a function
// outside ^[a-zA-Z0-9_-]{1,64}$, so a name the model made up (spaces, dots, another script) cannot
// be sent back as it came. The trace keeps the original; only the replayed history uses this.

const ENDPOINT_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Stands in for a tool name an endpoint would refuse. */
export const UNKNOWN_TOOL_PLACEHOLDER = 'unknown_tool';

/** The name to put in a replayed assistant tool call: the name itself if an endpoint accepts it. */
export function replayedToolName(name: string): string {
  return ENDPOINT_TOOL_NAME.test(name) ? name : UNKNOWN_TOOL_PLACEHOLDER;
}
