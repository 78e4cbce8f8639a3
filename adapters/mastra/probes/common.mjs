// Helpers shared by the probes (each probe is runnable with `node probes/<name>.mjs`).
import { MessageList } from '@mastra/core/agent/message-list';

export { MessageList };

export function list() {
  let n = 0;
  return new MessageList({ threadId: 't1', resourceId: 'r1', generateMessageId: () => `gen-${++n}` });
}

export const text = t => ({ type: 'text', text: t });
export const tool = (state, extra = {}) => ({
  type: 'tool-invocation',
  toolInvocation: { state, toolCallId: 'tc1', toolName: 'getLocation', args: { q: 1 }, ...extra },
});
export const db = (id, role, createdAt, parts) => ({
  id,
  role,
  createdAt: new Date(createdAt),
  threadId: 't1',
  resourceId: 'r1',
  content: { format: 2, parts },
});

/** Sources of each message on the list, by live set membership (object identity). */
export function sets(l) {
  const sm = l.stateManager;
  return l.messages.map(m => {
    const s = [];
    if (sm.getMemoryMessages().has(m)) s.push('memory');
    if (sm.getUserMessages().has(m)) s.push('input');
    if (sm.getResponseMessages().has(m)) s.push('response');
    if (sm.getContextMessages().has(m)) s.push('context');
    return `${m.id}@${m.createdAt.getTime()}[${s.join(',')}]`;
  });
}

/** Set members that are not on the list (orphans), by source. */
export function detached(l) {
  const on = new Set(l.messages);
  const sm = l.stateManager;
  const out = {};
  for (const [k, set] of Object.entries({
    memory: sm.getMemoryMessages(),
    input: sm.getUserMessages(),
    response: sm.getResponseMessages(),
    context: sm.getContextMessages(),
  })) {
    const d = [...set].filter(m => !on.has(m)).map(m => m.id);
    if (d.length) out[k] = d;
  }
  return out;
}

export function checker(l) {
  const c = l.makeMessageSourceChecker();
  return Object.fromEntries(l.messages.map(m => [m.id, c.getSource(m)]));
}

export function show(label, value) {
  console.log(`${label}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}
