// Usage: node digest.mjs [--canonical] < values.ndjson
//
// For each JSON text on standard input (one per line; blank lines are ignored) prints one
// line: the value's digest, or with --canonical its RFC 8785 canonical text. The service's
// proof package must print the same for every input; `svc verify` relies on that.
import { createInterface } from 'node:readline';
import { canonicalText, digestOfText } from './reference.mjs';

const wantCanonical = process.argv.slice(2).includes('--canonical');
const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of input) {
  if (line.trim() === '') continue;
  const text = canonicalText(JSON.parse(line));
  process.stdout.write((wantCanonical ? text : digestOfText(text)) + '\n');
}
