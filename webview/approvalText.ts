import type { ToolCallRecord } from '../src/core/plan/planTypes';
import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { oneLine } from './format';

// What a waiting approval is about, in the words a person needs to decide: the command line or the
// file (not only the tool's name), and why Cortex asks (not the policy rule's code).

export interface ApprovalSubject {
  kind: 'command' | 'file' | 'call';
  /** The command line, the path, or the tool and its arguments on one line. */
  text: string;
  /** "Run command", "Write file"…: what approving does. */
  action: string;
}

const FILE_ACTIONS: Record<string, string> = {
  write_file: 'Write file',
  edit_file: 'Edit file',
  create_directory: 'Create folder',
};

function parseArgs(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The command line of a run_command, the path of a file tool, else the tool and its arguments. */
export function approvalSubject(a: Pick<ApprovalRequestMessage, 'toolName' | 'argumentsJson'>): ApprovalSubject {
  const args = parseArgs(a.argumentsJson);
  if (a.toolName === 'run_command' && typeof args.command === 'string') {
    const cwd = typeof args.cwd === 'string' && args.cwd && args.cwd !== '.' ? ` (in ${args.cwd})` : '';
    return { kind: 'command', text: `${args.command}${cwd}`, action: 'Run command' };
  }
  const path = typeof args.path === 'string' ? args.path : undefined;
  if (path && FILE_ACTIONS[a.toolName]) return { kind: 'file', text: path, action: FILE_ACTIONS[a.toolName] };
  return { kind: 'call', text: `${a.toolName} ${oneLine(a.argumentsJson, 200)}`, action: `Call ${a.toolName}` };
}

/** A short label for a node or a row: the command or file, else the tool name. */
export function approvalLabel(a: Pick<ApprovalRequestMessage, 'toolName' | 'argumentsJson'>): string {
  const subject = approvalSubject(a);
  return subject.kind === 'call' ? a.toolName : oneLine(subject.text, 120);
}

/**
 * Why Cortex asks, as a sentence. The policy's reasons are rule descriptions ("the rule
 * run_command: confirm", "\"rm\" is not a default safe (read-only) command"); this says what they mean.
 */
export function approvalReasonText(a: Pick<ApprovalRequestMessage, 'toolName' | 'reason' | 'required' | 'denyEffect'>): string {
  const reason = (a.reason ?? '').trim();
  let why: string;
  const rule = /^the (wildcard )?rule\s+(.+)$/i.exec(reason);
  if (rule) why = `your cortex.policy.tools setting asks to confirm ${rule[1] ? 'every tool call' : `every ${a.toolName} call`}`;
  else if (/^cortex\.policy\.protectedPaths/.test(reason) || /protected/i.test(reason)) why = `it touches a protected path (${reason})`;
  else if (reason) why = reason.replace(/^default:\s*/i, '').replace(/[\s.]+$/, '');
  else why = `${a.toolName} needs confirmation`;
  const ifDenied = a.denyEffect === 'block' || a.required ? 'If you deny it, the step is blocked.' : 'If you deny it, the model is told and continues.';
  return `Cortex asks because ${why}. ${ifDenied}`;
}

/** A call as a person names it: the command line, the tool and its file, else the tool. */
export function callLabel(call: Pick<ToolCallRecord, 'name' | 'requestedName' | 'arguments'>): string {
  const name = call.name || call.requestedName || '(unnamed)';
  const label = approvalLabel({ toolName: name, argumentsJson: call.arguments });
  return label === name ? name : name === 'run_command' ? label : `${name} ${label}`;
}
