// A scripted OpenAI-compatible model server on 127.0.0.1 for the real-run test (scripts/test-real.mjs): it
// records every request body it receives and answers each from a script, with a realistic `usage` block, as
// chat completions (streamed as SSE when the request asks for it, else one JSON body).
//
//   const server = await startModelServer((request) => ({ text: 'ok', usage: { prompt_tokens: 1200 } }))
//   server.url            // http://127.0.0.1:<port>/v1
//   server.requests       // [{ path, body, at }]  every request, in order
//   await server.close()
//
// The script gets `{ body, index, requests }` and returns `{ text?, toolCalls?: [{ name, arguments }], usage? }`.
// `usage.prompt_tokens` defaults to the request's characters / 4 (what OpenClaw's own estimate is close to).
//
// `startModelServer(script, { api: 'anthropic' })` speaks the Anthropic Messages API instead, as Claude Code
// (`ANTHROPIC_BASE_URL=server.origin`) calls it: `POST /v1/messages` answered as the SSE stream Claude Code reads
// (message_start, text / tool_use content blocks, message_delta with stop_reason and usage, message_stop) or one
// JSON body, and `POST /v1/messages/count_tokens`. The script returns `{ text?, toolCalls?, usage? }` where
// `usage` is Anthropic's (`input_tokens`, `output_tokens`, `cache_read_input_tokens`,
// `cache_creation_input_tokens`); `input_tokens` defaults to the request's characters / 4. Any other path is a
// recorded 404. `anthropicText(body)` is all the text such a request carries, for assertions.
//
// `startModelServer(script, { api: 'responses' })` speaks the OpenAI Responses API as the Codex binary calls it
// (a model provider with `wire_api = "responses"` and `base_url = server.url`): `POST /v1/responses` answered as
// the SSE stream Codex reads (response.created, output_item.added/done per message or function_call item,
// output_text.delta, response.completed with usage) or one JSON body. The script returns
// `{ text?, toolCalls?, usage? }` where `usage` is the Responses API's (`input_tokens`, `output_tokens`,
// `cached_tokens`); `input_tokens` defaults to the request's characters / 4. `responsesText(body)` is all the
// text such a request carries (instructions and input items), for assertions. `POST /v1/responses/compact`
// (Codex's compaction on the OpenAI provider) is answered with `{ output }`: the script's `output` items, else
// one user message of its `text`. Codex 0.154's compaction is a `POST /v1/responses` whose last input item is
// `{ type: 'compaction_trigger' }` (`isCompactionTrigger(body)`): the script answers it with `{ compaction }`, a
// string sent back as the one output item `{ type: 'compaction', encrypted_content }` (opaque to Codex, which
// keeps it as the compacted history's last item). A GET (Codex's websocket attempt) is a recorded 404.
import { createServer } from 'node:http'

/** The text of a chat-completions message's content (a string or an array of parts). */
export function contentText(content) {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? ''))).join('\n')
  return ''
}

/** All the text a request carries (system, user, assistant and tool messages), for assertions. */
export function requestText(body) {
  return (body?.messages ?? []).map((m) => contentText(m.content)).join('\n')
}

/** The text of an Anthropic content value (a string or blocks: text, tool_use input, tool_result content). */
export function anthropicContentText(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b) => {
      if (typeof b === 'string') return b
      if (b?.type === 'text') return b.text ?? ''
      if (b?.type === 'tool_use') return JSON.stringify(b.input ?? {})
      if (b?.type === 'tool_result') return anthropicContentText(b.content)
      return ''
    })
    .join('\n')
}

/** All the text an Anthropic Messages request carries (system and messages), for assertions. */
export function anthropicText(body) {
  const system = typeof body?.system === 'string' ? body.system : anthropicContentText(body?.system)
  return [system, ...(body?.messages ?? []).map((m) => anthropicContentText(m.content))].join('\n')
}

/** The text of one Responses API input item (a message's content parts, a function call or its output). */
export function responsesItemText(item) {
  if (typeof item === 'string') return item
  if (item?.type === 'function_call') return `${item.name ?? ''} ${item.arguments ?? ''}`
  if (item?.type === 'function_call_output') return typeof item.output === 'string' ? item.output : contentText(item.output?.content ?? item.output)
  return contentText(item?.content)
}

/** Whether a Responses API request is Codex's compaction request (its last input item is `compaction_trigger`). */
export function isCompactionTrigger(body) {
  return Array.isArray(body?.input) && body.input.at(-1)?.type === 'compaction_trigger'
}

/** All the text a Responses API request carries (instructions and input items), for assertions. */
export function responsesText(body) {
  const input = typeof body?.input === 'string' ? [body.input] : (body?.input ?? [])
  return [body?.instructions ?? '', ...input.map(responsesItemText)].join('\n')
}

/** Writes a Responses API answer (SSE when the request streams) for a script's `answer`. */
function writeResponses(res, body, raw, answer, n) {
  const u = answer.usage ?? {}
  const inputTokens = u.input_tokens ?? Math.ceil(raw.length / 4)
  const outputTokens = u.output_tokens ?? Math.max(1, Math.ceil((answer.text ?? '').length / 4))
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  }
  const items = []
  if (typeof answer.compaction === 'string') items.push({ type: 'compaction', id: `cmp_${n}`, encrypted_content: answer.compaction })
  else if (answer.text || !(answer.toolCalls?.length > 0)) {
    items.push({ type: 'message', id: `msg_${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text || 'ok', annotations: [] }] })
  }
  for (const [i, t] of (answer.toolCalls ?? []).entries()) {
    items.push({ type: 'function_call', id: `fc_${n}_${i}`, status: 'completed', call_id: t.id ?? `call_${n}_${i}`, name: t.name, ...(t.namespace ? { namespace: t.namespace } : {}), arguments: typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments ?? {}) })
  }
  const response = { id: `resp_${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model: body.model ?? 'scripted', output: items, usage }
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(response))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  let seq = 0
  const send = (type, o) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...o })}\n\n`)
  send('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } })
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      send('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } })
      send('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: item.content[0].text })
    } else if (item.type === 'compaction') {
      send('response.output_item.added', { output_index, item })
    } else {
      send('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } })
      send('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments })
    }
    send('response.output_item.done', { output_index, item })
  })
  send('response.completed', { response })
  res.end()
}

/** Writes an Anthropic Messages answer (SSE when the request streams) for a script's `answer`. */
function writeAnthropic(res, body, raw, answer, n) {
  const u = answer.usage ?? {}
  const usage = {
    input_tokens: u.input_tokens ?? Math.ceil(raw.length / 4),
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    output_tokens: u.output_tokens ?? Math.max(1, Math.ceil((answer.text ?? '').length / 4)),
  }
  const blocks = []
  if (answer.text) blocks.push({ type: 'text', text: answer.text })
  for (const [i, t] of (answer.toolCalls ?? []).entries()) blocks.push({ type: 'tool_use', id: t.id ?? `toolu_${n}_${i}`, name: t.name, input: t.arguments ?? {} })
  if (blocks.length === 0) blocks.push({ type: 'text', text: 'ok' })
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  const message = { id: `msg_${n}`, type: 'message', role: 'assistant', model: body.model ?? 'scripted', content: blocks, stop_reason: stopReason, stop_sequence: null, usage }
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(message))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  const send = (type, o) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`)
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } })
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } })
      send('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } })
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } })
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } })
    }
    send('content_block_stop', { index })
  })
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } })
  send('message_stop', {})
  res.end()
}

/** Starts the server; `script` answers each chat request (`api: 'anthropic'` / `'responses'`: each Messages / Responses request). */
export async function startModelServer(script, { api = 'openai' } = {}) {
  const requests = []
  let calls = 0
  /** The script's answer to a request (its error as the answer's text), kept on the request's record. */
  const answerFor = async (body, entry) => {
    let answer
    try {
      answer = (await script({ body, index: calls++, requests })) ?? {}
    } catch (e) {
      answer = { text: `model-server script error: ${e?.message ?? e}` }
    }
    entry.answer = answer
    return answer
  }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? ''
      if (req.method === 'GET' && path.split('?')[0].endsWith('/models')) {
        if (api === 'responses') requests.push({ path, method: 'GET', body: null, at: Date.now() })
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', data: [], models: [] }))
        return
      }
      let body
      try {
        body = raw ? JSON.parse(raw) : {}
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: 'invalid JSON' } }))
        return
      }
      const entry = { path, method: req.method, body, at: Date.now(), ...(api === 'responses' ? { headers: req.headers } : {}) }
      requests.push(entry)
      if (api === 'anthropic') {
        const route = path.split('?')[0]
        if (req.method === 'POST' && route.endsWith('/v1/messages/count_tokens')) {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }))
          return
        }
        if (req.method !== 'POST' || !route.endsWith('/v1/messages')) {
          res.writeHead(404, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } }))
          return
        }
        writeAnthropic(res, body, raw, await answerFor(body, entry), calls)
        return
      }
      if (api === 'responses') {
        // Codex's compaction of its thread on the OpenAI provider: the new history as `output`.
        if (req.method === 'POST' && path.split('?')[0].endsWith('/responses/compact')) {
          const answer = await answerFor(body, entry)
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ output: answer.output ?? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: answer.text ?? 'summary' }] }] }))
          return
        }
        if (req.method !== 'POST' || !path.split('?')[0].endsWith('/responses')) {
          res.writeHead(404, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }))
          return
        }
        writeResponses(res, body, raw, await answerFor(body, entry), calls)
        return
      }
      if (!path.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `no route ${path}` } }))
        return
      }
      const answer = await answerFor(body, entry)
      const promptTokens = answer.usage?.prompt_tokens ?? Math.ceil(raw.length / 4)
      const completionTokens = answer.usage?.completion_tokens ?? Math.max(1, Math.ceil((answer.text ?? '').length / 4))
      const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens }
      const toolCalls = (answer.toolCalls ?? []).map((t, i) => ({
        index: i,
        id: t.id ?? `call_${calls}_${i}`,
        type: 'function',
        function: { name: t.name, arguments: typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments ?? {}) },
      }))
      const finish = toolCalls.length ? 'tool_calls' : 'stop'
      const id = `chatcmpl-${calls}`
      const created = Math.floor(Date.now() / 1000)
      const model = body.model ?? 'scripted'
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
        const send = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`)
        const base = { id, object: 'chat.completion.chunk', created, model }
        send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })
        if (answer.text) send({ ...base, choices: [{ index: 0, delta: { content: answer.text }, finish_reason: null }] })
        if (toolCalls.length) send({ ...base, choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }] })
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })
        send({ ...base, choices: [], usage })
        res.write('data: [DONE]\n\n')
        res.end()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: answer.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls.map(({ index: _i, ...t }) => t) } : {}) },
              finish_reason: finish,
            },
          ],
          usage,
        }),
      )
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address()
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}
