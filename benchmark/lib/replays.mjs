// The bundled transcripts (scripts/eval-restore.mjs's set) replayed as the plugin would have run them, each into a
// fresh state dir that is removed after: shared by the cases that measure what a compaction does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { replay } from '../../bin/lib/replay.mjs'
import { parseTranscript } from '../../bin/lib/transcript.mjs'
import { DEFAULT_DIR, transcriptFiles } from '../../scripts/eval-restore.mjs'

/**
 * Replays each bundled transcript (an unreadable one is skipped) with the replay options `options()` returns for it,
 * then calls `visit({ file, name, report, stateDir })` before its state dir is removed. `name` is the file's path
 * under the transcripts folder.
 */
export async function replayBundled(prefix, options, visit) {
  for (const file of transcriptFiles([DEFAULT_DIR])) {
    let parsed
    try {
      parsed = parseTranscript(readFileSync(file, 'utf8'))
    } catch {
      continue
    }
    const stateDir = mkdtempSync(join(tmpdir(), prefix))
    try {
      const report = await replay(parsed, { file, stateDir, ...options() })
      await visit({ file, name: file.slice(DEFAULT_DIR.length + 1), report, stateDir })
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  }
}
