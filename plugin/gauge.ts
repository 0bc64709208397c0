// The context gauge's inputs: the tokens of the next request (estimated incrementally per session), the session
// model's window as OpenClaw's config declares it, and the thresholds kept before OpenClaw's own compaction.
import { ContextEstimator } from '@openclaw/context-native'
import { obj, type SessionMemory } from './state.ts'

/**
 * Where OpenClaw compacts on its own: at window - min(20,000, window / 4) tokens (84 % of 128k, 80 % of 100k,
 * 75 % of 80k and below). The 80 % checkpoint and the 70 % gauge line move below it (4 and 14 points) where
 * the settings would put them at or after it, so they still come before the compaction.
 */
export function gaugeThresholds(contextWindow: number, gauge: { gaugeAt: number; checkpointAt: number }): { gaugeAt: number; checkpointAt: number } {
  const compactAt = (contextWindow - Math.min(20_000, contextWindow / 4)) / contextWindow
  const checkpointAt = Math.min(gauge.checkpointAt, compactAt - 0.04)
  return { checkpointAt, gaugeAt: Math.min(gauge.gaugeAt, checkpointAt - 0.1) }
}

/**
 * The context the next provider call reads, estimated incrementally: each message is counted once per session
 * (re-counting the whole conversation every turn costs ~100 ms on a long session, the increment ~0.1 ms). When
 * `messages` is not the previous list plus new ones (a compaction, a branch, a host that copies them), the
 * estimator starts over from them.
 */
export function estimateTokens(memory: SessionMemory, messages: unknown[], prompt: unknown): number {
  type Gauge = { estimator: ContextEstimator; counted: number; last: unknown }
  let g = memory.gauge as Gauge | undefined
  if (!g || messages.length < g.counted || (g.counted > 0 && messages[g.counted - 1] !== g.last)) {
    g = { estimator: new ContextEstimator(), counted: 0, last: undefined }
    memory.gauge = g
  }
  if (messages.length > g.counted) {
    g.estimator.addMessages(messages.slice(g.counted))
    g.counted = messages.length
    g.last = messages[messages.length - 1]
  }
  if (prompt === undefined) return g.estimator.estimate().tokens
  const next = g.estimator.fork()
  next.addMessage({ role: 'user', content: prompt })
  return next.estimate().tokens
}

/** The context window of a model as OpenClaw's config declares it (`models.providers.<p>.models[]`). */
export function configuredWindow(config: unknown, provider?: string, model?: string): number | undefined {
  const c = obj(config)
  if (!provider || !model) {
    const primary = obj(obj(obj(c.agents).defaults).model).primary ?? obj(obj(c.agents).defaults).model
    if (typeof primary !== 'string' || !primary.includes('/')) return undefined
    ;[provider, model] = [primary.slice(0, primary.indexOf('/')), primary.slice(primary.indexOf('/') + 1)]
  }
  const models = obj(obj(obj(c.models).providers)[provider]).models
  if (!Array.isArray(models)) return undefined
  const m = obj(models.find((x) => obj(x).id === model))
  const w = m.contextTokens ?? m.contextWindow
  return typeof w === 'number' && w > 0 ? w : undefined
}

/**
 * The window of a session's model, else `undefined`: the run's budget, the run's model's config entry, the window
 * the session's runs last reported (`record.contextWindow`, from `llm_output`), the default model's config entry.
 * A hook that carries no model (the compaction hooks) thus gets the session's model's window, not the default's.
 */
export function sessionWindow(
  config: unknown,
  record: { contextWindow?: number },
  ctx?: { contextTokenBudget?: number; modelProviderId?: string; modelId?: string },
): number | undefined {
  if (ctx?.contextTokenBudget) return ctx.contextTokenBudget
  const runModel = ctx?.modelProviderId && ctx.modelId ? configuredWindow(config, ctx.modelProviderId, ctx.modelId) : undefined
  return runModel ?? record.contextWindow ?? configuredWindow(config)
}
