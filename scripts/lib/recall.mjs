// The measure moved to bin/lib/recall.mjs (issue 21) so the shipped CLI can import it; kept here for old imports.
export * from '../../bin/lib/recall.mjs'
