// A hand-written AI SDK v2 language model (no `ai` package): records every call's prompt and
// answers with a scripted text. `reply(options, call)` returns the text for one call.
export function scriptedModel(reply, { modelId = 'scripted' } = {}) {
  const calls = [];
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const response = () => ({ id: `resp-${calls.length}`, modelId, timestamp: new Date(0) });
  return {
    calls,
    specificationVersion: 'v2',
    provider: 'guardspec',
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      calls.push({ method: 'doGenerate', prompt: options.prompt });
      const text = await reply(options, calls.length);
      return {
        content: [{ type: 'text', text }],
        finishReason: 'stop',
        usage,
        warnings: [],
        response: response(),
        rawCall: { rawPrompt: null, rawSettings: {} },
      };
    },
    async doStream(options) {
      calls.push({ method: 'doStream', prompt: options.prompt });
      const text = await reply(options, calls.length);
      const meta = response();
      const parts = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', ...meta },
        { type: 'text-start', id: 't0' },
        { type: 'text-delta', id: 't0', delta: text },
        { type: 'text-end', id: 't0' },
        { type: 'finish', finishReason: 'stop', usage },
      ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
        rawCall: { rawPrompt: null, rawSettings: {} },
      };
    },
  };
}

/** The title request is recognisable by Mastra's default title instructions in its system prompt. */
export function isTitleRequest(prompt) {
  return prompt.some(m => m.role === 'system' && typeof m.content === 'string' && m.content.includes('you will generate a short title'));
}
