// Usage: node vectors.mjs < inputs.ndjson > ../proof/testdata/vectors.ndjson
//
// Writes one test vector per input line: {"input":<the line as written>,"canonical":"...",
// "digest":"0x..."}. The input keeps its original spelling (1.0, 1E2, -0.0e0, \u escapes) so
// that the Go tests also exercise the parser on forms an encoder would not produce.
import { createInterface } from 'node:readline';
import { canonicalText, digestOfText } from './reference.mjs';

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
let n = 0;
for await (const line of input) {
  n++;
  const raw = line.trim();
  if (raw === '') continue;
  let value;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    process.stderr.write(`line ${n}: not JSON: ${err.message}\n`);
    process.exit(1);
  }
  const text = canonicalText(value);
  process.stdout.write(`{"input":${raw},"canonical":${JSON.stringify(text)},"digest":"${digestOfText(text)}"}\n`);
}
