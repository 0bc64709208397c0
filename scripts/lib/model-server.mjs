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

/** Starts the server; `script` answers each chat request. */
export async function startModelServer(script) {
  const requests = []
  let calls = 0
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? ''
      if (req.method === 'GET' && path.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', data: [] }))
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
      const entry = { path, body, at: Date.now() }
      requests.push(entry)
      if (!path.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `no route ${path}` } }))
        return
      }
      let answer
      try {
        answer = (await script({ body, index: calls++, requests })) ?? {}
      } catch (e) {
        answer = { text: `model-server script error: ${e?.message ?? e}` }
      }
      entry.answer = answer
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
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}
