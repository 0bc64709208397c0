// The YAML round-trips exactly through the npm `yaml` package (YAML 1.2, what the host parses
// with) and this package's reader, for thousands of random strings in every field.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import YAML from 'yaml'
import { nastyString, rng, tempStateDir, NASTY } from './checkpoint-helpers'

const native = createRequire(import.meta.url)('../index.js')

function sample(s: () => string) {
  return {
    schema: 'openclaw/checkpoint',
    schemaVersion: 1,
    meta: {
      checkpointId: s(), sessionKey: s(), sessionFile: s(), createdAt: s(), trigger: 'compaction',
      compactionCount: 2, tokenUsage: { inputTokens: 162431, contextWindow: 200000, utilization: 0.81 },
      previousCheckpoint: s(), channel: s(), agentId: s(),
    },
    working: {
      topic: s(), status: 'waiting_for_user', interrupted: true,
      lastToolCall: { name: s(), paramsSummary: s() }, nextAction: s(),
    },
    decisions: [{ id: s(), what: s(), when: s() }, { id: s(), what: s(), when: s() }],
    resources: { filesRead: [s(), s()], filesModified: [s()], toolsUsed: [s(), s()] },
    thread: { summary: s(), keyExchanges: [{ role: 'user', gist: s() }, { role: 'agent', gist: s() }] },
    openItems: [s(), s()],
    learnings: [s()],
  }
}

/** The snake_case document the YAML must parse to. */
function onDisk(c: ReturnType<typeof sample>) {
  const m = c.meta
  return {
    schema: c.schema, schema_version: 1,
    meta: {
      checkpoint_id: m.checkpointId, session_key: m.sessionKey, session_file: m.sessionFile,
      created_at: m.createdAt, trigger: m.trigger, compaction_count: m.compactionCount,
      token_usage: { input_tokens: 162431, context_window: 200000, utilization: 0.81 },
      previous_checkpoint: m.previousCheckpoint, channel: m.channel, agent_id: m.agentId,
    },
    working: {
      topic: c.working.topic, status: c.working.status, interrupted: true,
      last_tool_call: { name: c.working.lastToolCall.name, params_summary: c.working.lastToolCall.paramsSummary },
      next_action: c.working.nextAction,
    },
    decisions: c.decisions,
    resources: {
      files_read: c.resources.filesRead, files_modified: c.resources.filesModified, tools_used: c.resources.toolsUsed,
    },
    thread: { summary: c.thread.summary, key_exchanges: c.thread.keyExchanges },
    open_items: c.openItems,
    learnings: c.learnings,
  }
}

function parseStrict(text: string) {
  const doc = YAML.parseDocument(text, { uniqueKeys: true })
  expect(doc.errors).toEqual([])
  expect(doc.warnings).toEqual([])
  return doc.toJS()
}

describe('checkpoint YAML', () => {
  it('every nasty piece round-trips in every field through npm yaml and readCheckpoint', () => {
    for (const piece of NASTY) {
      const cp = sample(() => piece)
      const text = native.checkpointToYaml(cp)
      expect(parseStrict(text), JSON.stringify(piece)).toEqual(onDisk(cp))
      expect(native.readCheckpoint({ yaml: text })).toEqual(cp)
    }
  })

  it('2000 random checkpoints (40k strings) round-trip exactly through both parsers', () => {
    const r = rng(0xc0ffee)
    let blocks = 0
    for (let i = 0; i < 2000; i++) {
      const cp = sample(() => nastyString(r))
      const text: string = native.checkpointToYaml(cp)
      blocks += (text.match(/: \|/g) ?? []).length
      const parsed = parseStrict(text)
      if (JSON.stringify(parsed) !== JSON.stringify(onDisk(cp))) {
        expect(parsed, text).toEqual(onDisk(cp))
      }
      const back = native.readCheckpoint({ yaml: text })
      if (JSON.stringify(back) !== JSON.stringify(cp)) expect(back, text).toEqual(cp)
    }
    // block scalars are really exercised, not only the quoted fallback
    expect(blocks).toBeGreaterThan(2000)
  })

  it('lays out the seed schema: keys in order, block scalars, quoted tool names, no user keys', () => {
    const cp = sample(() => 'Helping user plan a trip to Japan\n')
    cp.resources.toolsUsed = ['web_search', 'yes']
    const text: string = native.checkpointToYaml(cp)
    const keys = [...text.matchAll(/^(\s*(?:- )?)([a-z_]+):/gm)].map((m) => m[2])
    const seedKeys = [
      ...readFileSync('crates/checkpoint/tests/fixtures/seed_example.yaml', 'utf8').matchAll(/^(\s*(?:- )?)([a-z_]+):/gm),
    ].map((m) => m[2])
    // the seed's example has 2 decisions, 3 exchanges and no last_tool_call mapping
    const dedupe = (k: string[]) => k.filter((x, i) => x !== k[i - 1] || !['id', 'what', 'when', 'role', 'gist'].includes(x))
    expect(new Set(keys)).toEqual(new Set([...seedKeys, 'name', 'params_summary']))
    expect(keys.indexOf('meta')).toBeLessThan(keys.indexOf('working'))
    expect(dedupe(keys).join(',')).toContain('schema,schema_version,meta,checkpoint_id,session_key,session_file,created_at,trigger,compaction_count,token_usage,input_tokens,context_window,utilization,previous_checkpoint,channel,agent_id,working,topic,status,interrupted,last_tool_call')
    expect(text).toContain('  topic: |\n    Helping user plan a trip to Japan\n')
    expect(text).toContain('    - "web_search"\n    - "yes"\n')
    expect(text).toContain('  trigger: "compaction"\n')
  })

  it('writeCheckpointSync writes what the input says, byte-exact through npm yaml', () => {
    const { dir, cleanup } = tempStateDir('yamlw')
    try {
      const r = rng(7)
      for (let i = 0; i < 40; i++) {
        const s = () => nastyString(r)
        const input = {
          stateDir: dir, sessionKey: `k${i}:${s()}`, trigger: 'auto-80pct',
          tokenUsage: { inputTokens: 1000 + i, contextWindow: 200000 },
          sessionFile: s(), channel: s(), agentId: s(),
          working: { topic: s(), status: 'idle', nextAction: s() },
          decisions: [{ id: s(), what: s(), when: s() }],
          resources: { filesRead: [s()], filesModified: [s()], toolsUsed: [s()] },
          thread: { summary: s(), keyExchanges: [{ role: 'agent', gist: s() }] },
          openItems: [s()], learnings: [s()],
        }
        const res = native.writeCheckpointSync(input)
        const doc = parseStrict(readFileSync(res.path, 'utf8'))
        expect(doc.meta.session_key).toBe(input.sessionKey)
        expect(doc.working.topic).toBe(input.working.topic)
        expect(doc.working.next_action).toBe(input.working.nextAction)
        expect(doc.decisions).toEqual(input.decisions)
        expect(doc.resources).toEqual({
          files_read: input.resources.filesRead, files_modified: input.resources.filesModified,
          tools_used: input.resources.toolsUsed,
        })
        expect(doc.thread).toEqual({ summary: input.thread.summary, key_exchanges: input.thread.keyExchanges })
        expect(doc.open_items).toEqual(input.openItems)
        expect(doc.learnings).toEqual(input.learnings)
        expect([doc.meta.session_file, doc.meta.channel, doc.meta.agent_id]).toEqual([input.sessionFile, input.channel, input.agentId])
        expect(native.readCheckpoint({ stateDir: dir, sessionKey: input.sessionKey }).working.topic).toBe(input.working.topic)
      }
    } finally {
      cleanup()
    }
  })

  it('a lone surrogate cannot reach Rust intact: it becomes U+FFFD and the YAML stays valid', () => {
    const cp = sample(() => 'a\ud800b')
    const text = native.checkpointToYaml(cp)
    expect(parseStrict(text).working.topic).toBe('a\ufffdb')
  })
})
